/**
 * Randomness drawn while simulation modules load (a module-level `Math.random()` or `randomUUID()`,
 * say an id a library makes at import) comes from a stream with a fixed seed, restarted at every
 * load, so the CLI's main thread and its workers get the same values on every run. Clocks and
 * timers used at load stay real: no seed is running yet. WebAssembly compiled at load is compiled
 * synchronously, so a seed never waits for a background compile.
 */
import { type VirtualCall, type VirtualDispatch, whileLoading } from "../../engine/escape-guard.ts";
import { natives } from "../../engine/natives.ts";
import { RandomStream } from "../../engine/rng.ts";
import * as random from "./crypto.ts";
import { compileNow, instantiateNow } from "../../engine/sync-wasm.ts";

/** Key of the load-time stream ("moduleld"). */
const LOAD_STREAM_KEY = 0x6d6f64756c656c64n;

class LoadRandomness implements VirtualDispatch, random.RandomSource {
  readonly random = new RandomStream(0, LOAD_STREAM_KEY);
  private readonly calls: Readonly<Record<string, VirtualCall>> = {
    "Math.random": () => random.float53(this.random),
    "crypto.getRandomValues": (_this, args) => random.getRandomValues(this, args),
    "crypto.randomUUID": () => random.randomUUID(this),
    "crypto.randomBytes": (_this, args) => random.randomBytes(this, args),
    "crypto.pseudoRandomBytes": (_this, args) => random.randomBytes(this, args),
    "crypto.randomFillSync": (_this, args) => random.randomFillSync(this, args),
    "crypto.randomFill": (_this, args) => random.randomFill(this, args),
    "crypto.randomInt": (_this, args) => random.randomInt(this, args),
    // A library that compiles WebAssembly at import (undici's HTTP parser) is ready once its import is.
    "WebAssembly.compile": (_this, args) => compileNow(args),
    "WebAssembly.instantiate": (_this, args) => instantiateNow(args),
  };

  implementation(call: string): VirtualCall | undefined {
    return this.calls[call];
  }

  fillRandom(bytes: Uint8Array): void {
    random.fillBytes(this.random, bytes);
  }

  callBack(callback: (error: null, value: any) => void, value: unknown): void {
    natives.setImmediate(() => callback(null, value));
  }
}

/** Runs `load` (an `import()` of simulation code) with module-level randomness on a fixed seed. */
export function loadWithFixedRandomness<T>(load: () => Promise<T>): Promise<T> {
  return whileLoading(new LoadRandomness(), load);
}
