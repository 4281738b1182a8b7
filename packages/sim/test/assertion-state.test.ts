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
});
