/**
 * `WebAssembly.compile` and `WebAssembly.instantiate` done synchronously, their promises settled at
 * once: what a seed (and module loading) answers for them, since V8's background compile finishes
 * when the real event loop says. undici compiles its HTTP parser (llhttp) this way when it loads.
 */

interface WasmApi {
  compile: (...args: unknown[]) => Promise<unknown>;
  instantiate: (...args: unknown[]) => Promise<unknown>;
  readonly Module: new (bytes: unknown) => object;
  readonly Instance: new (module: object, imports?: unknown) => object;
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
/** The native constructors (the synchronous forms are not guarded). */
const { Module, Instance } = wasm;

function settle<T>(make: () => T): Promise<T> {
  try {
    return Promise.resolve(make());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** `WebAssembly.compile(bytes)`, settled at once. */
export function compileNow(args: readonly unknown[]): Promise<object> {
  return settle(() => new Module(args[0]));
}

/** `WebAssembly.instantiate(module | bytes, imports)`, settled at once. */
export function instantiateNow(args: readonly unknown[]): Promise<unknown> {
  const [source, imports] = args;
  if (source instanceof Module) return settle(() => new Instance(source, imports));
  return settle(() => {
    const module = new Module(source);
    return { module, instance: new Instance(module, imports) };
  });
}

/** Modules `withSyncWasm` compiled: their loader instantiates them a microtask later, outside `body`. */
const compiledWhileInstalling = new WeakSet<object>();

/** Whether `module` was compiled while the guard installed (part of loading Node, not a seed's call). */
export function compiledAtInstall(module: unknown): boolean {
  return typeof module === "object" && module !== null && compiledWhileInstalling.has(module);
}

/**
 * Runs `body` with the two compiled synchronously: for a read of a lazy global that loads Node's
 * undici (Node 22's `WebSocket`) while the guard installs, so its parser is ready before any seed.
 */
export function withSyncWasm<T>(body: () => T): T {
  const { compile, instantiate } = wasm;
  wasm.compile = (...args) =>
    compileNow(args).then((module) => {
      compiledWhileInstalling.add(module);
      return module;
    });
  wasm.instantiate = (...args) => instantiateNow(args);
  try {
    return body();
  } finally {
    wasm.compile = compile;
    wasm.instantiate = instantiate;
  }
}
