/** `RandomProvider` on `node:crypto`: unpredictable, unseeded randomness for production. */
import { getRandomValues, randomInt } from "node:crypto";
import type { RandomProvider } from "../providers.ts";

const TWO_POW_32 = 2 ** 32;
const TWO_POW_48 = 2 ** 48;
const TWO_POW_52 = 2 ** 52;
const TWO_POW_53 = 2 ** 53;
/** u32 values fetched from the OS per refill (one syscall serves this many draws). */
const POOL_SIZE = 256;

export class ProductionRandom implements RandomProvider {
  private readonly pool = new Uint32Array(POOL_SIZE);
  private next = POOL_SIZE;

  /** A uniform unsigned 32-bit integer (0 ..= 2^32 - 1). */
  random(): number {
    if (this.next === POOL_SIZE) {
      getRandomValues(this.pool);
      this.next = 0;
    }
    return this.pool[this.next++]!;
  }

  /** A uniform integer in `[lo, hi)`; `RangeError` unless both are safe integers with `lo < hi`. */
  randomRange(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || !(lo < hi)) {
      throw new RangeError(
        `randomRange(lo, hi) needs safe integers with lo < hi, got lo=${String(lo)}, hi=${String(hi)}`,
      );
    }
    const span = hi - lo; // exact up to 2^53; a larger true span never computes below 2^52
    if (span <= TWO_POW_48) return randomInt(lo, hi);
    if (span <= TWO_POW_52) {
      const limit = TWO_POW_53 - (TWO_POW_53 % span);
      for (;;) {
        const x = this.random53();
        if (x < limit) return lo + (x % span);
      }
    }
    // Span above 2^52 (up to 2^54 - 2): pick one of two 2^53-wide windows starting at lo and
    // reject results at or past hi. Every candidate below hi is computed exactly, and one that
    // reaches 2^53 or more can only round to >= 2^53 > hi, so rejection stays exact (>= 1/4 accepted).
    for (;;) {
      const base = this.random() & 1 ? lo + TWO_POW_53 : lo;
      const value = base + this.random53();
      if (value < hi) return value;
    }
  }

  /** `true` with probability `p`; `RangeError` unless `0 <= p <= 1`. */
  randomBool(p: number): boolean {
    if (typeof p !== "number" || !(p >= 0 && p <= 1)) {
      throw new RangeError(`randomBool(p) needs 0 <= p <= 1, got ${String(p)}`);
    }
    return this.randomRatio() < p;
  }

  /** A uniform float in `[0, 1)` with 53 bits of resolution. */
  randomRatio(): number {
    return this.random53() / TWO_POW_53;
  }

  /** A uniform integer in [0, 2^53). */
  private random53(): number {
    return (this.random() & 0x1fffff) * TWO_POW_32 + this.random();
  }
}
