/**
 * The exploration hot paths computed without BigInt or boxed keys give exactly the values of
 * their plain definitions: child seeds, bucket hashes and bucket lookups; work skipped or
 * deferred for speed (stack text, site lookups) gives the same results.
 */
import { describe, expect, it } from "vitest";
import { assertAlways } from "@moonpool/core";
import { SimulationBuilder } from "../src/index.ts";
import { AssertionTable } from "../src/chaos/assertions/index.ts";
import { fmix32, fmix32Signed } from "../src/chaos/assertions/hashing.ts";
import { Bucket, BucketIndex } from "../src/chaos/assertions/sites.ts";
import { childSeed, type Recipe } from "../src/engine/recipe.ts";
import { MAX_SEED, seedStreams } from "../src/engine/rng.ts";

const MASK_64 = (1n << 64n) - 1n;

/** The definition: FNV-1a 64 on BigInt over the low and high byte of each code unit. */
function referenceChildSeed(rootSeed: number, parent: Recipe, branchAt: string, childIndex: number): number {
  const text = `${rootSeed}|${parent.map((bp) => `${bp.count}@${bp.seed}`).join(" -> ")}|${branchAt}|${childIndex}`;
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    for (const byte of [text.charCodeAt(i) & 0xff, text.charCodeAt(i) >> 8]) {
      h ^= BigInt(byte);
      h = (h * 0x100000001b3n) & MASK_64;
    }
  }
  h ^= h >> 33n;
  h = (h * 0xff51afd7ed558ccdn) & MASK_64;
  h ^= h >> 33n;
  return Number(h & BigInt(MAX_SEED));
}

describe("exploration fast paths", () => {
  it("childSeed equals its BigInt definition, including non-ASCII branch labels", () => {
    for (let i = 0; i < 300; i++) {
      const parent: Recipe = Array.from({ length: i % 4 }, (_, k) => ({
        count: (i * 31 + k) % 1000,
        seed: (i * 1_000_003 + k) * 7919,
      }));
      const label = i % 7 === 0 ? `fresh\u00e9\u4e2d${i}` : `${i % 5}:${i * 13}`;
      expect(childSeed(i * 104_729, parent, label, i % 9)).toBe(referenceChildSeed(i * 104_729, parent, label, i % 9));
    }
    expect(childSeed(MAX_SEED, [{ count: 1, seed: MAX_SEED }], "0:0", 0)).toBe(
      referenceChildSeed(MAX_SEED, [{ count: 1, seed: MAX_SEED }], "0:0", 0),
    );
  });

  it("childSeed gives the same seeds when one parent recipe serves many children and roots", () => {
    const parent: Recipe = [
      { count: 151, seed: 8_837_201, streams: "sim+schedule" },
      { count: 80, seed: 1, streams: "schedule" },
    ];
    for (const root of [1, 2, 1, MAX_SEED])
      for (let child = 0; child < 6; child++)
        for (const label of ["1:17", "2:0", "fresh"])
          expect(childSeed(root, parent, label, child)).toBe(referenceChildSeed(root, parent, label, child));
  });

  it("fmix32Signed is fmix32 as a signed integer", () => {
    for (const v of [0, 1, -1, 0x7fffffff, -0x80000000, 0xdeadbeef | 0, 123456789])
      expect(fmix32Signed(v) >>> 0).toBe(fmix32(v));
  });

  it("BucketIndex finds keys sharing their high 32 bits and keeps insertion order", () => {
    const index = new BucketIndex();
    const TWO_POW_21 = 2 ** 21;
    const keys = [0xfffffffe * TWO_POW_21 + 5, 0xfffffffe * TWO_POW_21 + 6, 3 * TWO_POW_21 + 5, 0];
    const buckets = keys.map((k) => new Bucket({ k }));
    for (const [i, k] of keys.entries()) index.set(k, buckets[i]!);
    for (const [i, k] of keys.entries()) expect(index.get(k)).toBe(buckets[i]);
    expect(index.find(0xfffffffe | 0, 6)).toBe(buckets[1]);
    expect(index.find(0xfffffffe, 6)).toBe(buckets[1]);
    expect(index.get(0xfffffffe * TWO_POW_21 + 7)).toBeUndefined();
    expect(index.get(4 * TWO_POW_21 + 5)).toBeUndefined();
    expect(index.slots.map((s) => s.key)).toEqual(keys);
    expect(index.size).toBe(4);
    expect(() => index.set(keys[0]!, new Bucket({}))).toThrow(/already indexed/);
  });

  it("an assertion failure's stack is formatted by the time the root seed's result is returned", async () => {
    const report = await new SimulationBuilder()
      .workload({
        name: "failing",
        run: async () => {
          assertAlways(false, "stack wanted");
        },
      })
      .setDebugSeeds([3])
      .setIterations(1)
      .run();
    const failure = report.seeds[0]!.failures.find((f) => f.kind === "assertion")!;
    const own = Object.getOwnPropertyDescriptor(failure, "stack");
    expect(own?.get).toBeUndefined();
    expect(own?.value).toContain("explore-fast-paths.test.ts");
    expect(own?.value).not.toMatch(/chaos[\\/]assertions[\\/]/);
    expect(JSON.parse(JSON.stringify(failure)).stack).toBe(own?.value);
  });

  it("the last site looked up answers repeated calls, and another kind on its message is still a misuse", () => {
    const table = new AssertionTable();
    table.beginSeed(1, { segment: 0, calls: 0 });
    for (let i = 0; i < 5; i++) {
      table.sometimesEach("each", { value: i % 2 });
      table.booleanAssertion("sometimes", true, "plain");
    }
    table.booleanAssertion("sometimes", true, "each");
    table.endSeed();
    expect(
      table
        .bucketSummaries()
        .find((s) => s.message === "each")
        ?.buckets.map((b) => b.hits),
    ).toEqual([3, 2]);
    expect(table.results().plain).toEqual({ totalChecks: 5, successes: 5 });
    expect(table.assertionViolations().join("\n")).toMatch(/reuses a message first used by assertSometimesEach/);
  });

  it("streams reseeded with a seed seen before draw the same values as fresh ones", () => {
    const first = seedStreams(42);
    const drawn = [first.sim.u32(), first.schedule.u32(), first.config.u32(), first.select.u32()];
    const again = seedStreams(42);
    expect([again.sim.u32(), again.schedule.u32(), again.config.u32(), again.select.u32()]).toEqual(drawn);
    again.sim.reseed(42);
    expect(again.sim.u32()).toBe(drawn[0]);
    expect(seedStreams(43).sim.u32()).not.toBe(drawn[0]);
  });
});
