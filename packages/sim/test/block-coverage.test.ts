/**
 * Block coverage in V8's offsets: the innermost reported range decides whether a position ran,
 * unions are order-free (seeds merged by any worker count or shard split agree), and the stop rule
 * takes covered code as a second plateau signal.
 */
import { describe, expect, it } from "vitest";
import type { Profiler } from "node:inspector";
import { AssertionTable } from "../src/chaos/assertions/index.ts";
import { CoverageStopRule } from "../src/runner/coverage-stop-rule.ts";
import {
  blockCoverageTotals,
  EMPTY_BLOCK_COVERAGE,
  fileCoverageFromV8,
  isCovered,
  unionBlockCoverage,
  type BlockCoverage,
} from "../src/runner/coverage/block-coverage.ts";
import { UserCodeFilter } from "../src/runner/coverage/user-code.ts";

const fn = (functionName: string, ...ranges: [number, number, number][]): Profiler.FunctionCoverage => ({
  functionName,
  isBlockCoverage: ranges.length > 1,
  ranges: ranges.map(([startOffset, endOffset, count]) => ({ startOffset, endOffset, count })),
});

describe("fileCoverageFromV8", () => {
  it("marks a position covered when the innermost range around it ran", () => {
    // f ran, its `else` block [20, 30) did not; g (nested in f) never ran; h ran inside g's range.
    const file = fileCoverageFromV8([fn("f", [0, 100, 1], [20, 30, 0]), fn("g", [40, 80, 0]), fn("h", [50, 60, 2])]);
    expect(file.covered).toEqual([0, 20, 30, 40, 50, 60, 80, 100]);
    expect(file.blocks).toEqual([20, 30]);
    expect(file.functions.map((f) => f.name)).toEqual(["f", "g", "h"]);
    expect([5, 25, 45, 55, 90].map((o) => isCovered(file, o))).toEqual([true, false, false, true, true]);
  });

  it("leaves out positions no reported range holds (V8 omits functions that did not run)", () => {
    expect(fileCoverageFromV8([fn("f", [10, 20, 1])]).covered).toEqual([10, 20]);
    expect(fileCoverageFromV8([]).covered).toEqual([]);
  });
});

describe("unionBlockCoverage", () => {
  const seeds: BlockCoverage[] = [
    { "a.ts": fileCoverageFromV8([fn("f", [0, 100, 1], [20, 30, 0])]) },
    {
      "a.ts": fileCoverageFromV8([fn("f", [0, 100, 1], [40, 50, 0])]),
      "b.ts": fileCoverageFromV8([fn("g", [0, 10, 1])]),
    },
    { "b.ts": fileCoverageFromV8([fn("g", [0, 10, 1], [3, 5, 0])]) },
  ];
  const fold = (list: readonly BlockCoverage[]) =>
    list.reduce((all, c) => unionBlockCoverage(all, c), EMPTY_BLOCK_COVERAGE);

  it("unites covered ranges, functions and blocks", () => {
    const all = fold(seeds);
    expect(all["a.ts"]!.covered).toEqual([0, 100]);
    expect(all["a.ts"]!.blocks).toEqual([20, 30, 40, 50]);
    expect(blockCoverageTotals(all)).toEqual({ files: 2, coveredChars: 110, blocksCovered: 5, blocksTotal: 5 });
  });

  it("gives the same result in any order and grouping", () => {
    const whole = fold(seeds);
    expect(fold([...seeds].reverse())).toEqual(whole);
    expect(unionBlockCoverage(fold(seeds.slice(0, 1)), fold(seeds.slice(1)))).toEqual(whole);
    expect(JSON.stringify(fold([seeds[2]!, seeds[0]!, seeds[1]!]))).toBe(JSON.stringify(whole));
  });
});

describe("UserCodeFilter", () => {
  it("keeps files under the root, outside node_modules and this project's packages", () => {
    const root = new URL("../../../", import.meta.url);
    const filter = new UserCodeFilter(root.pathname);
    expect(filter.includes(new URL("examples/paxos/node.ts", root).href)).toBe(true);
    expect(filter.includes(new URL("packages/sim/src/runner/builder.ts", root).href)).toBe(false);
    expect(filter.includes(new URL("packages/core/src/index.ts", root).href)).toBe(false);
    expect(filter.includes(new URL("node_modules/tsx/dist/esm/index.mjs", root).href)).toBe(false);
    expect(filter.includes("node:internal/timers")).toBe(false);
    expect(filter.includes("file:///elsewhere/app.ts")).toBe(false);
  });
});

describe("CoverageStopRule with code coverage", () => {
  const table = new AssertionTable();

  it("counts new code as progress and says which plateau stopped the campaign", () => {
    const rule = new CoverageStopRule(3, 100);
    const covered = [10, 20, 30, 30, 30, 30];
    const stops = covered.map((chars, i) => rule.afterSeed(table, i + 1, chars));
    expect(stops).toEqual([false, false, false, false, false, true]);
    expect(rule.saturation).toMatchObject({
      signal: "codeCoverage",
      signals: ["codeCoverage", "assertionCoverage"],
      codeCoveredChars: 30,
      codePlateauSeeds: 3,
      stoppedBy: ["codeCoverage"],
    });
  });

  it("without code coverage: assertion slots only, and no signal at all runs to the cap", () => {
    const rule = new CoverageStopRule(3, 6);
    expect([1, 2, 3, 4, 5, 6].map((n) => rule.afterSeed(table, n))).toEqual([false, false, false, false, false, false]);
    expect(rule.convergenceTimeout).toBe(true);
    expect(rule.saturation!.signals).toEqual(["assertionCoverage"]);
    expect(rule.saturation!.codeCoveredChars).toBeUndefined();
  });
});
