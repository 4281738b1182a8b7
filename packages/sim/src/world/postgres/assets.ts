/**
 * PGlite's WebAssembly modules and file bundle, read and compiled once per realm and handed to
 * every PGlite started in it. PGlite would otherwise read them with `fs/promises` at every start,
 * which is real I/O inside a seed; compiling the 9 MB Postgres module once (V8 compiles its
 * functions lazily, then keeps them in the module) also makes later starts cheaper.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { PGliteOptions } from "@electric-sql/pglite";

/** A compiled WebAssembly module (the compiler's libraries have no DOM types to name it). */
type WasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;
const WasmModuleClass = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => WasmModule } })
  .WebAssembly.Module;

export interface PgliteAssets {
  readonly version: string;
  readonly pgliteWasmModule: WasmModule;
  readonly initdbWasmModule: WasmModule;
  readonly fsBundle: ArrayBuffer;
  /** Options for `new PGlite(...)`: the modules and a bundle that resolves without real I/O. */
  options(): Pick<PGliteOptions, "pgliteWasmModule" | "initdbWasmModule" | "fsBundle">;
}

let loaded: PgliteAssets | null = null;

/** The assets of the installed `@electric-sql/pglite`, loaded at the first call of this realm. */
export function loadPgliteAssets(): PgliteAssets {
  if (loaded !== null) return loaded;
  const require = createRequire(import.meta.url);
  // The package exports no package.json; its entry point lies in dist/, beside the assets.
  const dist = dirname(require.resolve("@electric-sql/pglite"));
  const packageJson = join(dist, "..", "package.json");
  const version = (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
  const bundle = readFileSync(join(dist, "pglite.data"));
  const fsBundle = bundle.buffer.slice(bundle.byteOffset, bundle.byteOffset + bundle.byteLength) as ArrayBuffer;
  const assets: PgliteAssets = {
    version,
    pgliteWasmModule: new WasmModuleClass(readFileSync(join(dist, "pglite.wasm"))),
    initdbWasmModule: new WasmModuleClass(readFileSync(join(dist, "initdb.wasm"))),
    fsBundle,
    options: () => ({
      pgliteWasmModule: assets.pgliteWasmModule,
      initdbWasmModule: assets.initdbWasmModule,
      // PGlite only calls arrayBuffer(); a Blob's would settle from the real event loop.
      fsBundle: { arrayBuffer: () => Promise.resolve(fsBundle) } as unknown as Blob,
    }),
  };
  loaded = assets;
  return assets;
}
