import { describe, expect, it } from "vitest";
import { AssertionTable } from "../src/chaos/assertions/index.ts";

const stream = { segment: 0, calls: 0 };

function exercise(table: AssertionTable, seed: number, values: number[]): void {
  table.beginSeed(seed, stream, () => {});
  for (const v of values) {
    table.booleanAssertion("always", v < 8, "small", { v });
    table.booleanAssertion("sometimes", v > 5, "big sometimes");
    table.numericAssertion("sometimes", "gt", v, 3, "max watermark");
    table.numericAssertion("sometimes", "lt", v, 2, "min watermark");
    table.sometimesAll("pair", { odd: v % 2 === 1, high: v > 4 });
    table.sometimesEach("bucket", { parity: v % 2 }, { size: v });
  }
  table.endSeed();
}

function view(table: AssertionTable) {
  return {
    details: table.details(),
    buckets: table.bucketSummaries(),
    results: table.results(),
    violations: table.assertionViolations(),
    coverage: table.coverageViolations(),
    overflow: table.overflow(),
    coverageGate: table.sometimesCoverage(),
  };
}

describe("assertion table snapshots", () => {
  it("round-trips through a plain-data snapshot (and structured clone)", () => {
    const table = new AssertionTable();
    exercise(table, 1, [1, 6, 9, 4]);
    const copy = AssertionTable.fromSnapshot(structuredClone(table.snapshot()));
    expect(view(copy)).toEqual(view(table));
    expect(JSON.parse(JSON.stringify(table.snapshot()))).toEqual(JSON.parse(JSON.stringify(copy.snapshot())));
  });

  it("absorbing children run from one base equals running them one after the other (counts), whatever the run order", () => {
    const base = new AssertionTable();
    exercise(base, 1, [2, 3]);
    const baseState = base.snapshot();

    const sequential = AssertionTable.fromSnapshot(baseState);
    exercise(sequential, 2, [7, 1]);
    exercise(sequential, 3, [9, 0, 5]);

    const childA = AssertionTable.fromSnapshot(baseState);
    exercise(childA, 2, [7, 1]);
    const childB = AssertionTable.fromSnapshot(baseState);
    exercise(childB, 3, [9, 0, 5]);
    const merged = AssertionTable.fromSnapshot(baseState);
    merged.absorb(childA.snapshot(), baseState);
    merged.absorb(childB.snapshot(), baseState);

    const a = view(merged);
    const b = view(sequential);
    expect(a.results).toEqual(b.results);
    expect(a.violations).toEqual(b.violations);
    expect(a.coverage).toEqual(b.coverage);
    expect(a.buckets).toEqual(b.buckets);
    expect(a.details.map((d) => [d.message, d.passCount, d.failCount, d.watermark, d.frontier, d.status])).toEqual(
      b.details.map((d) => [d.message, d.passCount, d.failCount, d.watermark, d.frontier, d.status]),
    );
    expect(merged.visits("big sometimes")).toBe(sequential.visits("big sometimes"));
  });

  it("a fork records on top of its parent without changing it, and its delta merges like a full copy's", () => {
    const base = new AssertionTable({ maxEachBuckets: 5 });
    exercise(base, 1, [2, 3]);
    const baseState = base.snapshot();
    const copies = [AssertionTable.fromSnapshot(baseState), AssertionTable.fromSnapshot(baseState)];
    const forks = [base.fork(), base.fork()];
    const runs = [
      [7, 1, 10, 12, 14],
      [9, 0, 5, 8],
    ];
    runs.forEach((values, i) => {
      exercise(copies[i]!, i + 2, values);
      exercise(forks[i]!, i + 2, values);
      copies[i]!.sometimesEach("more", { n: i });
      forks[i]!.sometimesEach("more", { n: i });
    });
    expect(base.snapshot()).toEqual(baseState);
    expect(forks[0]!.snapshot()).toEqual(copies[0]!.snapshot());
    expect(forks[0]!.bucketCount).toBe(copies[0]!.bucketCount);
    expect(forks[0]!.visits("big sometimes")).toBe(copies[0]!.visits("big sometimes"));

    const byCopies = AssertionTable.fromSnapshot(baseState);
    for (const copy of copies) byCopies.absorb(copy.snapshot(), baseState);
    for (const fork of forks) base.absorb(fork.delta(), null);
    expect(base.snapshot()).toEqual(byCopies.snapshot());
    expect(view(base)).toEqual(view(byCopies));
    // The delta holds what the timeline touched, not the whole table.
    const quiet = base.fork();
    quiet.beginSeed(9, stream);
    quiet.booleanAssertion("sometimes", true, "big sometimes");
    quiet.endSeed();
    expect(quiet.delta().sites.map((s) => [s.message, s.passCount])).toEqual([["big sometimes", 1]]);
    expect(quiet.delta().buckets).toEqual([]);
  });

  it("a fork cannot be forked again, and only a fork has a delta", () => {
    const table = new AssertionTable();
    expect(() => table.delta()).toThrow(/fork\(\)/);
    expect(() => table.fork().fork()).toThrow(/cannot be forked again/);
  });
});
