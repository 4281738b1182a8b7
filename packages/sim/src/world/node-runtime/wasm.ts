/**
 * Virtual `WebAssembly.compile` and `WebAssembly.instantiate` (with `nodeRuntime()`): compiled
 * synchronously, their promises settle within the calling step instead of after V8's background
 * compile (`engine/sync-wasm.ts`). undici compiles its HTTP parser this way when it loads, which
 * may happen inside a seed at the first `fetch`.
 */
import { compileNow, instantiateNow } from "../../engine/sync-wasm.ts";
import { defineVirtualCalls } from "./registry.ts";

defineVirtualCalls({
  "WebAssembly.compile": (_process, _this, args) => compileNow(args),
  "WebAssembly.instantiate": (_process, _this, args) => instantiateNow(args),
});
