/**
 * `WebAssembly.instantiate` and `WebAssembly.compile` for simulated code: done synchronously, with
 * the promise already settled. Node finishes the asynchronous forms on its own threads and settles
 * them from the real event loop, outside simulated time; the synchronous forms give the same
 * module and instance inside the step (a WASM program such as PGlite instantiates its module at
 * every start, so every boot of a simulated database process needs this).
 */
import { defineVirtualCalls } from "./registry.ts";

/** The part of the WebAssembly global used here (the compiler's libraries have no DOM types). */
interface WasmApi {
  Module: new (bytes: unknown) => object;
  Instance: new (module: object, imports?: unknown) => object;
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

function moduleOf(source: unknown): object {
  return source instanceof wasm.Module ? source : new wasm.Module(source);
}

defineVirtualCalls({
  "WebAssembly.compile": (_process, _this, args) => {
    try {
      return Promise.resolve(moduleOf(args[0]));
    } catch (error) {
      return Promise.reject(error);
    }
  },
  "WebAssembly.instantiate": (_process, _this, args) => {
    try {
      // A module gives an instance; bytes give the pair, as the native function does.
      if (args[0] instanceof wasm.Module) return Promise.resolve(new wasm.Instance(args[0], args[1]));
      const module = moduleOf(args[0]);
      return Promise.resolve({ module, instance: new wasm.Instance(module, args[1]) });
    } catch (error) {
      return Promise.reject(error);
    }
  },
});
