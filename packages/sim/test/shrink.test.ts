/**
 * The shrinker (runner/shrink/shrinker.ts) on the leader-election planted bug: the shrunk run
 * violates the same property, replays on a fresh builder to the same trace hash, and has at most
 * half the events and injected faults; the search is deterministic and bounded, and refuses a
 * passing seed. The failing seed is found by scanning, not pinned.
 */
import { describe, expect, it } from "vitest";
import { NothingToShrink, shrinkTimeline, type ShrinkResult } from "../src/index.ts";
import { failureProperty } from "../src/runner/shrink/measure.ts";
import { leaderElectionSimulation } from "../../../examples/leader-election/simulation.ts";

const buggy = () => leaderElectionSimulation({ bug: "vote-twice" });

let scanned: Promise<number[]> | null = null;

/** The failing seeds among 20 seeds of base seed 1 (scanned once for the whole file). */
async function failingSeeds(count: number): Promise<number[]> {
  scanned ??= buggy()
    .setBaseSeed(1)
    .setIterations(20)
    .run()
    .then((report) => report.seeds.filter((s) => !s.ok).map((s) => s.seed));
  const seeds = await scanned;
  expect(seeds.length).toBeGreaterThanOrEqual(count);
  return seeds.slice(0, count);
}

const withoutWallTime = ({ wallMs: _, ...rest }: ShrinkResult) => rest;

describe("shrinking the leader-election vote-twice bug", () => {
  it("keeps the property, replays to the same hash on a fresh builder, halves events and faults, twice the same", async () => {
    const [seed] = await failingSeeds(1);
    const progress: boolean[] = [];
    const result = await shrinkTimeline(buggy(), {
      seed: seed!,
      maxRuns: 200,
      onProgress: (p) => progress.push(p.kept),
    });
    expect(result.property).toBe("one leader per term");
    expect(result.after.events * 2).toBeLessThanOrEqual(result.before.events);
    expect(result.after.faults * 2).toBeLessThanOrEqual(result.before.faults);
    // The run ends at its failure: nothing after the violation is kept.
    expect(result.overrides).toContain("stop=failure");
    expect(result.after.simulatedTimeMs).toBeLessThan(result.before.simulatedTimeMs);
    expect(progress.length).toBe(result.runs - 1);
    expect(progress.filter(Boolean).length).toBeGreaterThan(0);

    const replay = await buggy().replayTimeline(result.seed, result.recipe, result.overrides).run();
    const replayed = replay.seeds[0]!;
    expect(replayed.traceHash).toBe(result.after.traceHash);
    expect(failureProperty(replayed.failures[0]!)).toBe(result.property);
    expect(replayed.eventsProcessed).toBe(result.after.events);

    const again = await shrinkTimeline(buggy(), { seed: seed!, maxRuns: 200 });
    expect(withoutWallTime(again)).toEqual(withoutWallTime(result));
  });

  it("two failing seeds shrink to different runs", async () => {
    const [a, b] = await failingSeeds(2);
    const first = await shrinkTimeline(buggy(), { seed: a!, maxRuns: 40 });
    const second = await shrinkTimeline(buggy(), { seed: b!, maxRuns: 40 });
    expect(second.after.traceHash).not.toBe(first.after.traceHash);
  });

  it("stops at the run budget or an abort with the best run so far, which still reproduces", async () => {
    const [seed] = await failingSeeds(1);
    const budget = await shrinkTimeline(buggy(), { seed: seed!, maxRuns: 8 });
    expect(budget.runs).toBe(8);
    expect(budget.stoppedBy).toBe("runs");
    const replay = await buggy().replayTimeline(budget.seed, budget.recipe, budget.overrides).run();
    expect(replay.seeds[0]!.traceHash).toBe(budget.after.traceHash);

    const controller = new AbortController();
    controller.abort();
    const interrupted = await shrinkTimeline(buggy(), { seed: seed!, signal: controller.signal });
    expect(interrupted.stoppedBy).toBe("interrupted");
    expect(interrupted.runs).toBe(1);
    expect(interrupted.overrides).toBe("");
    expect(interrupted.after).toEqual(interrupted.before);
  });

  it("refuses a seed that passes: there is nothing to shrink", async () => {
    await expect(shrinkTimeline(leaderElectionSimulation(), { seed: 1 })).rejects.toThrow(NothingToShrink);
    await expect(shrinkTimeline(leaderElectionSimulation(), { seed: 1 })).rejects.toThrow(
      "passes: there is no failure to shrink",
    );
  });
});
