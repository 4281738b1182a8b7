import { describe, expect, it } from "vitest";
import { MAX_SEED, RandomStream, STREAM_KEYS, deriveSeed, seedStreams, splitmix64 } from "../src/engine/rng.ts";

describe("xoshiro128** streams", () => {
  it("matches the reference sequence for state (1, 2, 3, 4)", () => {
    const s = RandomStream.fromState(1, 2, 3, 4);
    expect([s.u32(), s.u32(), s.u32()]).toEqual([11520, 0, 5927040]);
  });

  it("is identical for the same seed, differs across seeds and across streams", () => {
    const draw = (seed: number) => Array.from({ length: 8 }, () => seedStreams(seed).sim.u32());
    const a = seedStreams(42);
    const b = seedStreams(42);
    const seqA = Array.from({ length: 16 }, () => a.sim.u32());
    expect(Array.from({ length: 16 }, () => b.sim.u32())).toEqual(seqA);
    expect(Array.from({ length: 16 }, () => seedStreams(43).sim.u32())).not.toEqual(seqA);
    expect(Array.from({ length: 16 }, () => a.config.u32())).not.toEqual(seqA);
    expect(draw(MAX_SEED)).toHaveLength(8);
  });

  it("counts draws and reseeds at recipe breakpoints (count@seed)", () => {
    const plain = seedStreams(7).sim;
    const reseeded = seedStreams(7).sim;
    reseeded.setBreakpoints([{ count: 5, seed: 99 }]);
    const before = Array.from({ length: 5 }, () => plain.u32());
    expect(Array.from({ length: 5 }, () => reseeded.u32())).toEqual(before);
    expect(reseeded.calls).toBe(5);
    expect(reseeded.segment).toBe(0);
    const fresh = seedStreams(99).sim;
    // The draw after the breakpoint is the first draw of the stream seeded with 99.
    expect(reseeded.u32()).toBe(fresh.u32());
    expect(reseeded.segment).toBe(1);
    expect(reseeded.calls).toBe(1);
    expect(reseeded.totalCalls).toBe(6);
  });

  it("draws integers without bias or overflow and validates ranges", () => {
    const s = seedStreams(1).sim;
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[s.rangeInt(0, 3)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(9_000);
    const big = s.rangeInt(0, 2 ** 40);
    expect(big).toBeGreaterThanOrEqual(0);
    expect(big).toBeLessThan(2 ** 40);
    expect(s.rangeInt(-3, -2)).toBe(-3);
    expect(() => s.rangeInt(5, 5)).toThrow(/lo < hi/);
    expect(() => s.rangeInt(0, 1.5)).toThrow(RangeError);
    expect(() => s.rangeInt(-(2 ** 53 - 1), 2 ** 53 - 1)).toThrow(/2\^53/);
    for (let i = 0; i < 1000; i++) {
      const r = s.ratio();
      expect(r >= 0 && r < 1).toBe(true);
    }
  });

  it("maps 32-bit draws to ranges exactly as rejection sampling with a modulo would (recipes stay valid)", () => {
    // The reference mapping: reject x >= 2^32 - 2^32 % span, then lo + x % span.
    const reference = (stream: RandomStream, lo: number, hi: number): number => {
      const span = hi - lo;
      const limit = 2 ** 32 - (2 ** 32 % span);
      for (;;) {
        const x = stream.u32();
        if (x < limit) return lo + (x % span);
      }
    };
    const spans = [
      1,
      2,
      3,
      7,
      10,
      1000,
      65_537,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 31 + 1,
      3_000_000_019,
      2 ** 32 - 1,
      2 ** 32,
    ];
    for (const span of spans) {
      const fast = new RandomStream(42, 7n);
      const slow = new RandomStream(42, 7n);
      for (let i = 0; i < 2_000; i++) {
        // Alternate spans so the cached rejection limit is recomputed often.
        const s = i % 3 === 0 ? 5 : span;
        expect(fast.rangeInt(-17, -17 + s)).toBe(reference(slow, -17, -17 + s));
      }
    }
  });
  it("derives campaign seeds deterministically within the safe-integer range", () => {
    const seeds = Array.from({ length: 100 }, (_, i) => deriveSeed(5, i));
    expect(Array.from({ length: 100 }, (_, i) => deriveSeed(5, i))).toEqual(seeds);
    expect(new Set(seeds).size).toBe(100);
    for (const seed of seeds) expect(Number.isSafeInteger(seed) && seed >= 0).toBe(true);
    expect(deriveSeed(6, 0)).not.toBe(seeds[0]);
    expect(() => seedStreams(-1)).toThrow(/non-negative safe integer/);
  });
  it("seeds a stream with exactly the words of splitmix64 on BigInt (seeding runs on 32-bit halves)", () => {
    const MASK_64 = (1n << 64n) - 1n;
    const reference = (seed: number, key: bigint): RandomStream => {
      let state = (BigInt(seed) ^ key) & MASK_64;
      const words: number[] = [];
      for (let i = 0; i < 2; i++) {
        const { value, next } = splitmix64(state);
        state = next;
        words.push(Number(value & 0xffffffffn) | 0, Number(value >> 32n) | 0);
      }
      return RandomStream.fromState(words[0]!, words[1]!, words[2]!, words[3]!);
    };
    const seeds = [0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 2 ** 32, 2 ** 32 + 1, 2 ** 52 + 12345, MAX_SEED];
    let x = 0x9e3779b9;
    for (let i = 0; i < 200; i++) {
      x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) >>> 0;
      seeds.push((x % 2 ** 21) * 2 ** 32 + (Math.imul(x, 0x297a2d39) >>> 0));
    }
    for (const key of Object.values(STREAM_KEYS)) {
      for (const seed of seeds) {
        const ours = new RandomStream(seed, key);
        const theirs = reference(seed, key);
        expect(
          Array.from({ length: 4 }, () => ours.u32()),
          `seed ${seed}`,
        ).toEqual(Array.from({ length: 4 }, () => theirs.u32()));
      }
    }
  });
});
