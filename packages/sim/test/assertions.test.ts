import { describe, expect, it } from "vitest";
import {
  AssertionTable,
  MAX_ASSERTION_SITES,
  MAX_EACH_BUCKETS,
  MAX_EACH_KEYS,
  type AssertionDetail,
  type DrawCoordinates,
} from "../src/chaos/assertions/index.ts";
import { RandomStream, STREAM_KEYS } from "../src/engine/rng.ts";

/** A hand-driven draw position, so tests can check where discoveries are located. */
class FakeStream implements DrawCoordinates {
  segment = 0;
  calls = 0;
}

function seeded(table: AssertionTable, seed = 1) {
  const stream = new FakeStream();
  const violations: string[] = [];
  table.beginSeed(seed, stream, (text) => violations.push(text));
  return { stream, violations };
}

function detail(table: AssertionTable, message: string): AssertionDetail | undefined {
  return table.details().find((d) => d.message === message);
}

describe("limits", () => {
  it("are the documented spec values", () => {
    expect(MAX_ASSERTION_SITES).toBe(2048);
    expect(MAX_EACH_BUCKETS).toBe(256);
    expect(MAX_EACH_KEYS).toBe(6);
    const table = new AssertionTable();
    expect(table.maxSites).toBe(2048);
    expect(table.maxEachBuckets).toBe(256);
    expect(table.maxEachKeys).toBe(6);
  });

  it("rejects nonsense capacity overrides", () => {
    expect(() => new AssertionTable({ maxSites: 0 })).toThrow(RangeError);
    expect(() => new AssertionTable({ maxEachBuckets: 1.5 })).toThrow(/positive integer/);
  });
});

describe("assertAlways", () => {
  it("records a failure as a violation, fails the seed once, and keeps the first details", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table, 42);
    table.booleanAssertion("always", true, "balance non-negative");
    table.booleanAssertion("always", false, "balance non-negative", { account: 7, balance: -3 });
    table.booleanAssertion("always", false, "balance non-negative", { account: 9, balance: -1 });
    table.endSeed();

    expect(violations).toHaveLength(1);
    expect(violations[0]).toContain('assertAlways("balance non-negative") failed');
    expect(violations[0]).toContain("account=7");
    const d = detail(table, "balance non-negative")!;
    expect(d).toMatchObject({
      kind: "always",
      passCount: 1,
      failCount: 2,
      status: "FAIL",
      watermark: null,
      frontier: null,
    });
    expect(d.firstFailure).toMatchObject({ seed: 42, details: { account: 7, balance: -3 } });
    expect(table.validateContracts().assertionViolations).toEqual([
      'assertAlways("balance non-negative") failed 2 times out of 3',
    ]);
    expect(table.results()["balance non-negative"]).toEqual({ totalChecks: 3, successes: 1 });
  });

  it("a violation in a later seed is reported to that seed too", () => {
    const table = new AssertionTable();
    const first = seeded(table, 1);
    table.booleanAssertion("always", false, "x");
    table.endSeed();
    const second = seeded(table, 2);
    table.booleanAssertion("always", false, "x");
    table.endSeed();
    expect(first.violations).toHaveLength(1);
    expect(second.violations).toHaveLength(1);
    expect(detail(table, "x")!.firstFailure!.seed).toBe(1);
  });

  it("never failing: PASS and no violation", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table);
    for (let i = 0; i < 10; i++) table.booleanAssertion("always", true, "fine");
    table.endSeed();
    expect(violations).toEqual([]);
    expect(detail(table, "fine")).toMatchObject({ status: "PASS", passCount: 10, failCount: 0 });
    expect(table.validateContracts()).toEqual({ assertionViolations: [], coverageViolations: [] });
  });

  it("does not guide the search", () => {
    const table = new AssertionTable();
    seeded(table);
    table.booleanAssertion("always", true, "a");
    table.booleanAssertion("always", false, "a");
    expect(table.endSeed()).toEqual([]);
  });
});

describe("assertAlwaysOrUnreachable", () => {
  it("fails like assertAlways", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table);
    table.booleanAssertion("alwaysOrUnreachable", false, "opt", { n: 1 });
    table.endSeed();
    expect(violations[0]).toContain('assertAlwaysOrUnreachable("opt") failed {n=1}');
    expect(detail(table, "opt")!.status).toBe("FAIL");
    expect(table.assertionViolations()).toEqual(['assertAlwaysOrUnreachable("opt") failed once out of 1']);
  });

  it("never reached is fine: absent from the report, no violation", () => {
    const table = new AssertionTable();
    seeded(table);
    table.endSeed();
    expect(table.details()).toEqual([]);
    expect(table.validateContracts()).toEqual({ assertionViolations: [], coverageViolations: [] });
  });
});

describe("assertUnreachable", () => {
  it("reaching it is a violation counted as pass_count", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table, 5);
    table.booleanAssertion("unreachable", true, "corrupt frame", { len: 12 });
    table.booleanAssertion("unreachable", true, "corrupt frame");
    table.endSeed();
    expect(violations).toEqual(['assertUnreachable("corrupt frame") was reached {len=12}']);
    expect(detail(table, "corrupt frame")).toMatchObject({ kind: "unreachable", passCount: 2, status: "FAIL" });
    expect(table.assertionViolations()).toEqual(['assertUnreachable("corrupt frame") was reached 2 times']);
  });

  it("never reached: absent from details, no violation", () => {
    const table = new AssertionTable();
    seeded(table);
    table.booleanAssertion("always", true, "other");
    table.endSeed();
    expect(detail(table, "corrupt frame")).toBeUndefined();
    expect(table.assertionViolations()).toEqual([]);
  });
});

describe("assertSometimes", () => {
  it("the first pass of the campaign is a discovery located on the stream", () => {
    const table = new AssertionTable();
    const { stream } = seeded(table, 9);
    stream.calls = 3;
    table.booleanAssertion("sometimes", false, "retry happened");
    stream.segment = 1;
    stream.calls = 17;
    table.booleanAssertion("sometimes", true, "retry happened");
    stream.calls = 20;
    table.booleanAssertion("sometimes", true, "retry happened");
    expect(table.endSeed()).toEqual([
      { kind: "firstPass", message: "retry happened", key: "retry happened", segment: 1, drawCount: 17, seed: 9 },
    ]);
    // The explorer's rarity measure: how often the discovered state has been seen (site calls).
    expect(table.visits("retry happened")).toBe(3);
    expect(table.visits("unknown")).toBe(0);
    expect(detail(table, "retry happened")).toMatchObject({
      kind: "sometimes",
      passCount: 2,
      failCount: 1,
      status: "PASS",
    });
    expect(table.coverageViolations()).toEqual([]);
  });

  it("latches are cumulative across seeds: a later seed passing again is not a discovery", () => {
    const table = new AssertionTable();
    seeded(table, 1);
    table.booleanAssertion("sometimes", true, "s");
    expect(table.endSeed()).toHaveLength(1);
    seeded(table, 2);
    table.booleanAssertion("sometimes", true, "s");
    expect(table.endSeed()).toEqual([]);
  });

  it("never true: MISS and a coverage violation, no safety violation", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table);
    for (let i = 0; i < 4; i++) table.booleanAssertion("sometimes", false, "never");
    expect(table.endSeed()).toEqual([]);
    expect(violations).toEqual([]);
    expect(detail(table, "never")).toMatchObject({ status: "MISS", passCount: 0, failCount: 4 });
    expect(table.validateContracts()).toEqual({
      assertionViolations: [],
      coverageViolations: ['assertSometimes("never") has 0% success rate (4 checks)'],
    });
  });

  it("takeDiscoveries reads and clears the running seed's list", () => {
    const table = new AssertionTable();
    seeded(table);
    table.booleanAssertion("sometimes", true, "a");
    expect(table.takeDiscoveries()).toHaveLength(1);
    expect(table.takeDiscoveries()).toEqual([]);
    table.booleanAssertion("reachable", true, "b");
    expect(table.endSeed().map((d) => d.message)).toEqual(["b"]);
  });

  it("discovery coordinates come from a real sim stream", () => {
    const table = new AssertionTable();
    const sim = new RandomStream(123, STREAM_KEYS.sim);
    table.beginSeed(123, sim);
    for (let i = 0; i < 5; i++) sim.u32();
    table.booleanAssertion("sometimes", true, "here");
    sim.setBreakpoints([{ count: 8, seed: 77 }]);
    for (let i = 0; i < 5; i++) sim.u32(); // 3 draws in segment 0, then the reseed, then 2
    table.booleanAssertion("reachable", true, "there");
    expect(table.endSeed()).toEqual([
      { kind: "firstPass", message: "here", key: "here", segment: 0, drawCount: 5, seed: 123 },
      { kind: "firstPass", message: "there", key: "there", segment: 1, drawCount: 2, seed: 123 },
    ]);
  });
});

describe("assertReachable", () => {
  it("reaching it passes and is a discovery once", () => {
    const table = new AssertionTable();
    seeded(table);
    table.booleanAssertion("reachable", true, "recovery path");
    table.booleanAssertion("reachable", true, "recovery path");
    expect(table.endSeed().map((d) => d.kind)).toEqual(["firstPass"]);
    expect(detail(table, "recovery path")).toMatchObject({ kind: "reachable", passCount: 2, status: "PASS" });
    expect(table.coverageViolations()).toEqual([]);
  });

  it("never reached: unknown to the table (a site exists only once executed)", () => {
    const table = new AssertionTable();
    seeded(table);
    table.endSeed();
    expect(table.details()).toEqual([]);
    expect(table.sometimesCoverage()).toEqual({ total: 0, hit: 0, booleanTotal: 0, unreached: [] });
    expect(table.allSometimesReached()).toBe(false);
  });
});

describe("numeric always", () => {
  it("a false comparison is a violation with left/right in the details", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table, 3);
    table.numericAssertion("always", "le", 3, 5, "dead <= processes");
    table.numericAssertion("always", "le", 6, 5, "dead <= processes", { group: "acceptor" });
    table.endSeed();
    expect(violations).toEqual([
      'assertAlwaysLessThanOrEqualTo("dead <= processes") failed: left=6 right=5 {group=acceptor}',
    ]);
    const d = detail(table, "dead <= processes")!;
    expect(d).toMatchObject({ kind: "numericAlways", comparison: "le", passCount: 1, failCount: 1, status: "FAIL" });
    expect(d.firstFailure).toMatchObject({ seed: 3, details: { left: 6, right: 5, group: "acceptor" } });
    // The report watermark (lt/le minimise left - right): the best left is 3.
    expect(d.watermark).toBe(3);
    expect(table.assertionViolations()).toEqual([
      'assertAlwaysLessThanOrEqualTo("dead <= processes") failed once out of 2',
    ]);
  });

  it("all four comparisons, including boundaries", () => {
    const table = new AssertionTable();
    seeded(table);
    table.numericAssertion("always", "gt", 5, 5, "gt");
    table.numericAssertion("always", "ge", 5, 5, "ge");
    table.numericAssertion("always", "lt", 5, 5, "lt");
    table.numericAssertion("always", "le", 5, 5, "le");
    table.endSeed();
    expect(table.details().map((d) => [d.message, d.status])).toEqual([
      ["gt", "FAIL"],
      ["ge", "PASS"],
      ["lt", "FAIL"],
      ["le", "PASS"],
    ]);
  });

  it("NaN fails, with its values in the details; the watermark ignores it", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table);
    table.numericAssertion("always", "ge", Number.NaN, 0, "latency >= 0");
    table.endSeed();
    expect(violations[0]).toContain("left=NaN right=0");
    expect(detail(table, "latency >= 0")).toMatchObject({ status: "FAIL", failCount: 1, watermark: null });
  });

  it("never failing: PASS and never a discovery", () => {
    const table = new AssertionTable();
    seeded(table);
    for (let i = 0; i < 5; i++) table.numericAssertion("always", "gt", 10 + i, 0, "positive");
    expect(table.endSeed()).toEqual([]);
    expect(detail(table, "positive")).toMatchObject({ status: "PASS", watermark: 14 });
    expect(table.assertionViolations()).toEqual([]);
  });
});

describe("numeric sometimes", () => {
  it("the first evaluation and every strict improvement are watermark discoveries", () => {
    const table = new AssertionTable();
    const { stream } = seeded(table);
    const values = [1, 5, 3, 5, 9, 40, 7];
    const at: number[] = [];
    values.forEach((v, i) => {
      stream.calls = i * 10;
      table.numericAssertion("sometimes", "gt", v, 32, "decided slots");
    });
    for (const d of table.endSeed()) {
      expect(d.kind).toBe("watermark");
      at.push(d.drawCount);
    }
    expect(at).toEqual([0, 10, 40, 50]); // 1, 5, 9, 40
    expect(detail(table, "decided slots")).toMatchObject({
      kind: "numericSometimes",
      passCount: 1,
      failCount: 6,
      watermark: 40,
      status: "PASS",
    });
  });

  it("tracks the distance, not the left operand: both operands growing is not progress", () => {
    const table = new AssertionTable();
    seeded(table);
    table.numericAssertion("sometimes", "gt", 10, 8, "ahead of threshold"); // distance 2
    table.numericAssertion("sometimes", "gt", 50, 49, "ahead of threshold"); // distance 1: no progress
    table.numericAssertion("sometimes", "gt", 100, 99, "ahead of threshold"); // distance 1
    table.numericAssertion("sometimes", "gt", 60, 55, "ahead of threshold"); // distance 5: progress
    expect(table.endSeed()).toHaveLength(2);
    // The report shows the left operand at the best distance, not the largest left seen.
    expect(detail(table, "ahead of threshold")!.watermark).toBe(60);
  });

  it("lt/le minimise the distance", () => {
    const table = new AssertionTable();
    seeded(table);
    table.numericAssertion("sometimes", "lt", 3, 3, "healthy replicas low"); // distance 0, fails
    table.numericAssertion("sometimes", "lt", 4, 3, "healthy replicas low"); // 1: worse
    table.numericAssertion("sometimes", "lt", 2, 3, "healthy replicas low"); // -1: better, passes
    table.numericAssertion("sometimes", "le", 0.5, 0.25, "ratio low"); // fractional values
    table.numericAssertion("sometimes", "le", 0.2, 0.25, "ratio low");
    expect(table.endSeed().map((d) => d.message)).toEqual([
      "healthy replicas low",
      "healthy replicas low",
      "ratio low",
      "ratio low",
    ]);
    expect(detail(table, "healthy replicas low")).toMatchObject({
      watermark: 2,
      passCount: 1,
      failCount: 2,
      status: "PASS",
    });
    expect(detail(table, "ratio low")).toMatchObject({ watermark: 0.2, status: "PASS" });
  });

  it("watermarks persist across seeds: a later seed discovers only by beating the campaign best", () => {
    const table = new AssertionTable();
    seeded(table, 1);
    table.numericAssertion("sometimes", "ge", 10, 0, "depth");
    expect(table.endSeed()).toHaveLength(1);
    seeded(table, 2);
    table.numericAssertion("sometimes", "ge", 4, 0, "depth");
    table.numericAssertion("sometimes", "ge", 10, 0, "depth");
    expect(table.endSeed()).toEqual([]);
    seeded(table, 3);
    table.numericAssertion("sometimes", "ge", 11, 0, "depth");
    expect(table.endSeed()).toEqual([
      { kind: "watermark", message: "depth", key: "depth", segment: 0, drawCount: 0, seed: 3 },
    ]);
  });

  it("never passing: MISS and a coverage violation (but still guides)", () => {
    const table = new AssertionTable();
    seeded(table);
    table.numericAssertion("sometimes", "gt", 1, 100, "deep");
    table.numericAssertion("sometimes", "gt", Number.NaN, 100, "deep");
    expect(table.endSeed()).toHaveLength(1);
    expect(detail(table, "deep")).toMatchObject({ status: "MISS", failCount: 2, watermark: 1 });
    expect(table.validateContracts()).toEqual({
      assertionViolations: [],
      coverageViolations: ['assertSometimesGreaterThan("deep") has 0% success rate (2 checks)'],
    });
  });
});

describe("assertSometimesAll", () => {
  const msg = "failover completed";

  it("frontier, partial combinations and completion", () => {
    const table = new AssertionTable();
    const { stream } = seeded(table);
    const call = (a: boolean, b: boolean, c: boolean, at: number) => {
      stream.calls = at;
      table.sometimesAll(msg, { oldLeaderDown: a, newQuorum: b, clientDone: c });
    };
    call(false, false, false, 0); // nothing true: no discovery
    call(true, false, false, 1); // frontier 1
    call(false, true, false, 2); // new combination {newQuorum}, same frontier
    call(true, false, false, 3); // seen combination: nothing
    call(true, true, false, 4); // frontier 2
    call(false, true, true, 5); // new combination of 2
    expect(table.takeDiscoveries().map((d) => [d.kind, d.drawCount])).toEqual([
      ["frontier", 1],
      ["combination", 2],
      ["frontier", 4],
      ["combination", 5],
    ]);
    expect(detail(table, msg)).toMatchObject({
      kind: "sometimesAll",
      passCount: 6,
      frontier: 2,
      propositions: 3,
      status: "MISS",
    });
    expect(table.coverageViolations()).toEqual([
      `assertSometimesAll("${msg}") never had all 3 propositions true together (best 2 of 3, 6 checks)`,
    ]);
    expect(table.allSometimesReached()).toBe(false);

    call(true, true, true, 6);
    expect(table.endSeed().map((d) => d.kind)).toEqual(["frontier"]);
    expect(detail(table, msg)).toMatchObject({ frontier: 3, status: "PASS" });
    expect(table.coverageViolations()).toEqual([]);
  });

  it("the combination is the set of true names, independent of key order", () => {
    const table = new AssertionTable();
    seeded(table);
    table.sometimesAll(msg, { a: true, b: true, c: false });
    table.sometimesAll(msg, { b: true, a: true, c: false });
    table.sometimesAll(msg, { c: false, b: true, a: true });
    expect(table.endSeed()).toHaveLength(1);
  });

  it("partial truth is never PASS (a frontier above 0 is not completion)", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table);
    table.sometimesAll(msg, { a: true, b: false });
    table.endSeed();
    expect(violations).toEqual([]);
    expect(detail(table, msg)!.status).toBe("MISS");
    expect(table.assertionViolations()).toEqual([]);
  });

  it("frontier latches across seeds", () => {
    const table = new AssertionTable();
    seeded(table, 1);
    table.sometimesAll(msg, { a: true, b: false });
    expect(table.endSeed()).toHaveLength(1);
    seeded(table, 2);
    table.sometimesAll(msg, { a: true, b: false });
    expect(table.endSeed()).toEqual([]);
  });
});

describe("assertSometimesEach", () => {
  const msg = "protocol state";

  it("one bucket per identity; names do not matter, values and their order do", () => {
    const table = new AssertionTable();
    const { stream } = seeded(table, 4);
    stream.calls = 11;
    table.sometimesEach(msg, { phase: 1, regime: "partition" });
    table.sometimesEach(msg, { phase: 1, regime: "partition" });
    table.sometimesEach(msg, { step: 1, faults: "partition" }); // same values: same bucket
    table.sometimesEach(msg, { regime: "partition", phase: 1 }); // other order: other bucket
    table.sometimesEach(msg, { phase: "1", regime: "partition" }); // "1" is not 1
    const discoveries = table.endSeed();
    expect(discoveries.map((d) => d.kind)).toEqual(["newBucket", "newBucket", "newBucket"]);
    expect(discoveries[0]).toMatchObject({ kind: "newBucket", message: msg, segment: 0, drawCount: 11, seed: 4 });
    // A bucket's key names the bucket; its visits are the bucket's hits.
    expect(discoveries[0]!.key.startsWith(`${msg}#`)).toBe(true);
    expect(table.visits(discoveries[0]!.key)).toBeGreaterThanOrEqual(1);
    const [summary] = table.bucketSummaries();
    expect(summary).toMatchObject({ message: msg, bucketsDiscovered: 3, totalHits: 5 });
    expect(summary!.buckets[0]).toEqual({ identity: { phase: 1, regime: "partition" }, hits: 3, bestQuality: null });
    // Each-sites have no contract and are not in details/results.
    expect(table.details()).toEqual([]);
    expect(table.results()).toEqual({});
    expect(table.validateContracts()).toEqual({ assertionViolations: [], coverageViolations: [] });
  });

  it("quality is lexicographic (first key most important), clamped, and better quality is a discovery", () => {
    const table = new AssertionTable();
    seeded(table);
    const q = (decided: number, depth: number) => table.sometimesEach(msg, { phase: 2 }, { decided, depth });
    q(3, 9); // new bucket
    q(3, 8); // worse
    q(3, 10); // better second key
    q(2, 100); // worse first key wins
    q(4, 0); // better first key
    q(99999, -5); // clamped to 32767, 0
    q(40000, 0); // clamps to the same: not better
    expect(table.endSeed().map((d) => d.kind)).toEqual([
      "newBucket",
      "betterQuality",
      "betterQuality",
      "betterQuality",
    ]);
    const bucket = table.bucketSummaries()[0]!.buckets[0]!;
    expect(bucket).toEqual({ identity: { phase: 2 }, hits: 7, bestQuality: { decided: 32767, depth: 0 } });
  });

  it("quality persists across seeds", () => {
    const table = new AssertionTable();
    seeded(table, 1);
    table.sometimesEach(msg, { p: 1 }, { q: 5 });
    expect(table.endSeed()).toHaveLength(1);
    seeded(table, 2);
    table.sometimesEach(msg, { p: 1 }, { q: 5 });
    expect(table.endSeed()).toEqual([]);
    seeded(table, 3);
    table.sometimesEach(msg, { p: 1 }, { q: 6 });
    expect(table.endSeed().map((d) => d.kind)).toEqual(["betterQuality"]);
  });

  it("more than 6 identity keys: all hashed, the first 6 kept for display", () => {
    const table = new AssertionTable();
    seeded(table);
    const identity = (last: number) => ({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: last });
    table.sometimesEach(msg, identity(7));
    table.sometimesEach(msg, identity(8));
    table.endSeed();
    const [summary] = table.bucketSummaries();
    expect(summary!.bucketsDiscovered).toBe(2);
    expect(summary!.buckets[0]!.identity).toEqual({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 });
  });

  it("more than 4 quality keys is rejected as a misuse that fails the seed", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table);
    table.sometimesEach(msg, { p: 1 }, { a: 1, b: 2, c: 3, d: 4, e: 5 });
    table.sometimesEach(msg, { p: 1 }, { a: 1, b: 2, c: 3, d: 4, e: 5 });
    table.endSeed();
    expect(violations).toHaveLength(1);
    expect(violations[0]).toContain("5 quality keys; at most 4");
    expect(table.bucketSummaries()[0]!.bucketsDiscovered).toBe(0);
    expect(table.assertionViolations()).toEqual([
      `assertSometimesEach("${msg}") was given 5 quality keys; at most 4 are supported (put the most important first, drop the rest) (2 calls ignored)`,
    ]);
  });

  it("summaries are sorted by total hits, buckets by hits", () => {
    const table = new AssertionTable();
    seeded(table);
    table.sometimesEach("rare", { k: 1 });
    for (let i = 0; i < 3; i++) table.sometimesEach("common", { k: "x" });
    for (let i = 0; i < 5; i++) table.sometimesEach("common", { k: "y" });
    table.endSeed();
    const summaries = table.bucketSummaries();
    expect(summaries.map((s) => [s.message, s.totalHits])).toEqual([
      ["common", 8],
      ["rare", 1],
    ]);
    expect(summaries[0]!.buckets.map((b) => b.identity["k"])).toEqual(["y", "x"]);
  });

  it("bucket overflow at a small capacity is counted and named, never silent", () => {
    const table = new AssertionTable({ maxEachBuckets: 2 });
    const { violations } = seeded(table);
    table.sometimesEach("site a", { k: 1 });
    table.sometimesEach("site a", { k: 2 });
    table.sometimesEach("site a", { k: 3 }); // dropped
    table.sometimesEach("site b", { k: 1 }); // dropped
    table.sometimesEach("site b", { k: 1 }); // dropped again
    table.sometimesEach("site a", { k: 1 }); // existing bucket still counts
    expect(table.endSeed().map((d) => d.kind)).toEqual(["newBucket", "newBucket"]);
    expect(violations).toEqual([]);
    expect(table.bucketCount).toBe(2);
    expect(table.overflow()).toMatchObject({
      maxEachBuckets: 2,
      droppedBucketCalls: 3,
      droppedBucketMessages: ["site a", "site b"],
      droppedSiteCalls: 0,
    });
    expect(table.bucketSummaries().find((s) => s.message === "site a")!.totalHits).toBe(3);
  });
});

describe("bounded site table", () => {
  it("sites beyond the capacity are dropped, counted and named", () => {
    const table = new AssertionTable({ maxSites: 2 });
    seeded(table);
    table.booleanAssertion("sometimes", true, "one");
    table.booleanAssertion("sometimes", true, "two");
    table.booleanAssertion("sometimes", true, "three");
    table.booleanAssertion("sometimes", true, "three");
    table.booleanAssertion("reachable", true, "four");
    expect(table.endSeed().map((d) => d.message)).toEqual(["one", "two"]);
    expect(table.siteCount).toBe(2);
    expect(table.details().map((d) => d.message)).toEqual(["one", "two"]);
    expect(table.overflow()).toMatchObject({
      maxSites: 2,
      droppedSiteCalls: 3,
      droppedSiteMessages: ["three", "four"],
    });
  });

  it("an always failure on a dropped site still fails the seed and is reported", () => {
    const table = new AssertionTable({ maxSites: 1 });
    const { violations } = seeded(table);
    table.booleanAssertion("always", true, "tracked");
    table.booleanAssertion("always", false, "untracked");
    table.numericAssertion("always", "gt", 0, 1, "untracked numeric");
    table.booleanAssertion("sometimes", false, "untracked sometimes");
    table.endSeed();
    expect(violations).toHaveLength(2);
    expect(violations[0]).toContain("not tracked: the assertion table is full");
    expect(table.overflow().untrackedAlwaysFailures).toBe(2);
    expect(table.assertionViolations()).toEqual([
      '2 always-family failures were not tracked because the assertion table is full (1 sites): "untracked", "untracked numeric"',
    ]);
  });
});

describe("kind mismatch (one message, two assertion functions)", () => {
  it("is an assertion violation naming both functions and fails the current seed", () => {
    const table = new AssertionTable();
    seeded(table, 1);
    table.booleanAssertion("sometimes", true, "shared");
    table.endSeed();
    const { violations } = seeded(table, 2);
    table.booleanAssertion("always", true, "shared");
    table.booleanAssertion("always", false, "shared");
    table.endSeed();
    expect(violations).toEqual([
      'assertAlways("shared") reuses a message first used by assertSometimes: give each assertion its own message',
    ]);
    // The site keeps its first kind and its counts are not mixed.
    expect(detail(table, "shared")).toMatchObject({ kind: "sometimes", passCount: 1, failCount: 0 });
    expect(table.assertionViolations()).toEqual([
      'assertAlways("shared") reuses a message first used by assertSometimes: give each assertion its own message (2 calls ignored)',
    ]);
  });

  it("numeric comparisons count as different functions", () => {
    const table = new AssertionTable();
    const { violations } = seeded(table);
    table.numericAssertion("sometimes", "gt", 1, 0, "m");
    table.numericAssertion("sometimes", "lt", 1, 0, "m");
    table.sometimesEach("m", { a: 1 });
    table.endSeed();
    expect(violations).toEqual([
      'assertSometimesLessThan("m") reuses a message first used by assertSometimesGreaterThan: give each assertion its own message',
      'assertSometimesEach("m") reuses a message first used by assertSometimesGreaterThan: give each assertion its own message',
    ]);
  });
});

describe("coverage gate and plateau signal", () => {
  it("needs at least one boolean sometimes/reachable site and every observed one reached", () => {
    const table = new AssertionTable();
    seeded(table);
    table.booleanAssertion("always", true, "safety only");
    table.numericAssertion("sometimes", "gt", 0, 5, "numeric guidance");
    expect(table.allSometimesReached()).toBe(false); // no boolean coverage site yet
    table.booleanAssertion("sometimes", false, "s1");
    table.booleanAssertion("reachable", true, "r1");
    expect(table.sometimesCoverage()).toEqual({ total: 2, hit: 1, booleanTotal: 2, unreached: ["s1"] });
    expect(table.reachedSometimesCount()).toBe(1);
    expect(table.allSometimesReached()).toBe(false);
    table.booleanAssertion("sometimes", true, "s1");
    expect(table.reachedSometimesCount()).toBe(2);
    expect(table.allSometimesReached()).toBe(true);
    table.sometimesAll("all", { a: true, b: false });
    expect(table.allSometimesReached()).toBe(false);
    table.sometimesAll("all", { a: true, b: true });
    expect(table.allSometimesReached()).toBe(true);
    expect(table.reachedSometimesCount()).toBe(3);
    table.endSeed();
  });
});

describe("seed lifecycle", () => {
  it("records outside a seed without discoveries or callbacks", () => {
    const table = new AssertionTable();
    table.booleanAssertion("sometimes", true, "s");
    table.booleanAssertion("always", false, "a");
    expect(table.takeDiscoveries()).toEqual([]);
    expect(detail(table, "a")!.firstFailure!.seed).toBeNull();
    // The latch is set: a seed passing later is not a new discovery.
    seeded(table);
    table.booleanAssertion("sometimes", true, "s");
    expect(table.endSeed()).toEqual([]);
  });

  it("refuses to begin a seed while another is active", () => {
    const table = new AssertionTable();
    table.beginSeed(1, new FakeStream());
    expect(() => table.beginSeed(2, new FakeStream())).toThrow(/endSeed/);
    table.endSeed();
  });

  it("bounds the discoveries of one seed and counts the rest", () => {
    const table = new AssertionTable({ maxSeedDiscoveries: 3 });
    seeded(table);
    for (let i = 0; i < 10; i++) table.numericAssertion("sometimes", "gt", i, 100, "growing");
    expect(table.endSeed()).toHaveLength(3);
    expect(table.overflow().droppedDiscoveries).toBe(7);
  });

  it("passes the caller's stack to the violation callback", () => {
    const table = new AssertionTable();
    let stack: string | undefined;
    table.beginSeed(1, new FakeStream(), (_text, s) => (stack = s?.()));
    table.booleanAssertion("always", false, "with stack");
    table.endSeed();
    expect(stack).toContain("assertions.test.ts");
    expect(stack).not.toMatch(/chaos[\\/]assertions[\\/]/);
  });
});
