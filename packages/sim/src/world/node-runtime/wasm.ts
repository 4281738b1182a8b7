/**
 * Virtual `WebAssembly.compile` and `WebAssembly.instantiate` (with `nodeRuntime()`, and while
 * simulation modules load): compiled synchronously, their promises settle within the calling step
 * instead of after V8's background compile, whose finish the real event loop decides. undici
 * compiles its HTTP parser (llhttp) this way when it loads, before its first connection can run.
 */
import { defineVirtualCalls } from "./registry.ts";

/** The native constructors (the synchronous forms are not guarded). */
const { Module, Instance } = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface WasmApi {
  readonly Module: new (bytes: unknown) => object;
  readonly Instance: new (module: object, imports?: unknown) => object;
}

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

defineVirtualCalls({
  "WebAssembly.compile": (_process, _this, args) => compileNow(args),
  "WebAssembly.instantiate": (_process, _this, args) => instantiateNow(args),
});
