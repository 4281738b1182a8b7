/** Bucket hashing without string building gives exactly the hashes of the string form. */
import { describe, expect, it } from "vitest";
import {
  fnv1a,
  FNV_OFFSET_32,
  IdentityHasher,
  MIX_OFFSET_32,
  mixHash,
  valueText,
} from "../src/chaos/assertions/hashing.ts";

describe("IdentityHasher", () => {
  it("matches fnv1a and mixHash over valueText for every kind of value", () => {
    const values: unknown[] = [
      0,
      -0,
      1,
      -1,
      7,
      10,
      99,
      100,
      12345,
      -98765,
      2 ** 31,
      2 ** 40 + 3,
      999_999_999_999_999,
      1e15,
      1e21,
      1.5,
      -0.25,
      NaN,
      Infinity,
      -Infinity,
    ];
    values.push(true, false, "", "a", "gate", "ü\u0000x", "1", undefined, null);
    const hasher = new IdentityHasher();
    for (const value of values) {
      const text = valueText(value);
      hasher.start(FNV_OFFSET_32, MIX_OFFSET_32);
      hasher.value(value);
      expect([hasher.hash1, hasher.hash2], `value ${String(value)}`).toEqual([
        fnv1a(FNV_OFFSET_32, text),
        mixHash(MIX_OFFSET_32, text),
      ]);
    }
  });

  it("continues from a message hash over several values, like the concatenated strings", () => {
    const hasher = new IdentityHasher();
    const h1 = fnv1a(FNV_OFFSET_32, "gate");
    const h2 = mixHash(MIX_OFFSET_32, "gate");
    hasher.start(h1, h2);
    for (const v of [3, 5, "x", true]) hasher.value(v);
    const text = [3, 5, "x", true].map(valueText).join("");
    expect([hasher.hash1, hasher.hash2]).toEqual([fnv1a(h1, text), mixHash(h2, text)]);
    // Different values, different hashes.
    hasher.start(h1, h2);
    for (const v of [3, 5, "x", false]) hasher.value(v);
    expect(hasher.hash1).not.toBe(fnv1a(h1, text));
  });
});
