/**
 * The shrinker's stall rule (runner/shrink/shrinker.ts): the hunt tries no further draw sequence
 * once max(SHRINK_STALL_MIN_RUNS, h) runs (h: the runs spent when it began) found no smaller
 * failure; a search that keeps finding smaller runs, even far apart, is not stopped by it. The
 * rule counts runs, so the same seed shrinks to the same result.
 */
import { describe, expect, it } from "vitest";
import { shrinkTimeline, type ShrinkResult } from "../src/index.ts";
import type { ShrinkProgress } from "../src/runner/shrink/shrinker.ts";
import { SHRINK_STALL_MIN_RUNS, stallRuns } from "../src/runner/shrink/stall-rule.ts";
import { leaderElectionSimulation } from "../../../examples/leader-election/simulation.ts";
import { failsAtTick100 } from "./fixtures/fixed-failure.ts";

const withoutWallTime = ({ wallMs: _, ...rest }: ShrinkResult) => rest;

describe("the shrinker's stall rule", () => {
  it("K grows with the runs spent before the hunt, never below the minimum", () => {
    expect(stallRuns(1)).toBe(SHRINK_STALL_MIN_RUNS);
    expect(stallRuns(SHRINK_STALL_MIN_RUNS * 3)).toBe(SHRINK_STALL_MIN_RUNS * 3);
  });

  it("stops a search whose best came early, long before the run budget; twice the same", async () => {
    const progress: ShrinkProgress[] = [];
    const result = await shrinkTimeline(failsAtTick100(), { seed: 1, onProgress: (p) => progress.push(p) });
    expect(result.stoppedBy).toBe("stalled");
    expect(result.bestAtRun).toBeLessThan(10);
    expect(result.stallRuns).toBe(SHRINK_STALL_MIN_RUNS);
    // The hunt began after the search on the seed's own draws; it gives up K runs after that
    // (checked between draw sequences, so a hit shrunk on its own may run a little past it).
    const huntStart = progress.find((p) => p.stallAtRun !== null)!;
    expect(huntStart.stallAtRun).toBe(huntStart.runs - 1 + SHRINK_STALL_MIN_RUNS);
    expect(result.runs).toBeGreaterThanOrEqual(huntStart.stallAtRun!);
    expect(result.runs).toBeLessThan(result.bestAtRun + 2 * SHRINK_STALL_MIN_RUNS);
    // Nothing after the failure is kept, and no other draw sequence fails sooner.
    expect(result.after.events * 2).toBeGreaterThan(result.before.events);
    // Every progress report carries the smallest failure so far and where it was found.
    const last = progress.at(-1)!;
    expect(last.smallest).toEqual(result.after);
    expect(last.bestAtRun).toBe(result.bestAtRun);

    const again = await shrinkTimeline(failsAtTick100(), { seed: 1 });
    expect(withoutWallTime(again)).toEqual(withoutWallTime(result));
  });

  it("without it the same search spends its whole run budget", async () => {
    const maxRuns = SHRINK_STALL_MIN_RUNS + 50;
    const result = await shrinkTimeline(failsAtTick100(), { seed: 1, maxRuns, stopOnStall: false });
    expect(result.stoppedBy).toBe("runs");
    expect(result.runs).toBe(maxRuns);
  });

  it("does not stop a search that keeps finding smaller runs, even 200 runs apart", async () => {
    const buggy = () => leaderElectionSimulation({ bug: "vote-twice" });
    const report = await buggy().setBaseSeed(1).setIterations(20).run();
    // Its second failing seed: the search finds a smaller run more than 200 runs after the one before.
    const seed = report.seeds.filter((s) => !s.ok)[1]!.seed;
    const improvements: number[] = [];
    const result = await shrinkTimeline(buggy(), {
      seed,
      onProgress: (p) => {
        if (improvements.at(-1) !== p.bestAtRun) improvements.push(p.bestAtRun);
      },
    });
    expect(result.stoppedBy).toBe("fixpoint");
    const gaps = improvements.slice(1).map((run, i) => run - improvements[i]!);
    expect(Math.max(...gaps)).toBeGreaterThan(200);
    expect(result.bestAtRun).toBe(improvements.at(-1));
  });
});
