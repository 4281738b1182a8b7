/**
 * The replay check's bookkeeping (runner/pool/replay-check.ts) on a stand-in pool that answers
 * replay-check tasks with given hashes and draw trails: a timeline that hashes as in the campaign
 * keeps its replay command; one that does not is marked with the first diverging draw and its
 * stack; a seed that ran first in a fresh realm is not run again; past the budget, seeds are
 * counted as unchecked.
 */
import { describe, expect, it } from "vitest";
import type { DrawTrail } from "../src/runner/draw-trail.ts";
import type { PoolTask, ReplayCheckResult } from "../src/runner/pool/messages.ts";
import { ReplayChecker } from "../src/runner/pool/replay-check.ts";
import type { WorkerPool } from "../src/runner/pool/worker-pool.ts";
import { NO_CHAOS_DRAWN } from "../src/runner/seed-chaos.ts";
import type { SeedResult } from "../src/runner/seed-result.ts";

const trail = (times: number[]): DrawTrail => ({
  actors: ["node@10.0.1.1"],
  actorIds: times.map(() => 0),
  timesUs: times,
  steps: times.map((_, i) => i),
});

function failing(seed: number, traceHash: string): SeedResult {
  return {
    seed,
    ok: false,
    failures: [{ kind: "assertion", message: "boom", timeMs: 5 }],
    simulatedTimeMs: 10,
    eventsProcessed: 3,
    wallTimeMs: 1,
    traceHash,
    simDraws: 3,
    discoveries: [],
    chaos: NO_CHAOS_DRAWN,
  };
}

/** Answers replay checks with `alone` (and the stack of any asked-for draw); records the tasks. */
function standInPool(alone: ReplayCheckResult): { pool: WorkerPool; tasks: PoolTask[] } {
  const tasks: PoolTask[] = [];
  const pool = {
    run: async (task: PoolTask) => {
      tasks.push(task);
      const stackAt = task.kind === "replayCheck" ? task.stackAtDraw : null;
      return {
        kind: "done",
        outcome: stackAt === null ? alone : { ...alone, stack: `at step ${stackAt} (user.ts:7:3)` },
      };
    },
  } as unknown as WorkerPool;
  return { pool, tasks };
}

/** The result a checked outcome carries. */
const resultOf = (outcome: { kind: string }): SeedResult =>
  (outcome as unknown as { outcome: { result: SeedResult } }).outcome.result;

const target = { source: { module: "file:///sim.ts", export: "sim" }, overrides: { explore: false }, batch: {} };
const done = (result: SeedResult, draws?: DrawTrail) =>
  ({
    kind: "done",
    outcome: { result, table: { entries: [] }, exploration: null, ...(draws ? { draws } : {}) },
  }) as any;

describe("the replay check", () => {
  it("keeps a failure that hashes the same alone, and marks one that does not with the diverging draw", async () => {
    const same = standInPool({ traceHash: "aaaa0001", ok: false, draws: trail([0, 1000, 2000]) });
    const keeps = new ReplayChecker(same.pool, target, false);
    const kept = await keeps.check(done(failing(7, "aaaa0001"), trail([0, 1000, 2000])));
    expect(resultOf(kept).failures[0]!.notReplaying).toBeUndefined();
    expect(same.tasks).toEqual([
      expect.objectContaining({ kind: "replayCheck", seed: 7, recipe: "", stackAtDraw: null }),
    ]);
    expect(keeps.counts()).toEqual({ seedsChecked: 1, notReplaying: 0, seedsUnchecked: 0 });

    const other = standInPool({ traceHash: "bbbb0002", ok: true, draws: trail([0, 1000, 3000]) });
    const marks = new ReplayChecker(other.pool, target, false);
    const marked = await marks.check(done(failing(7, "aaaa0001"), trail([0, 1000, 2000])));
    const note = resultOf(marked).failures[0]!.notReplaying!;
    expect(note).toContain("seed 7 passes with trace hash bbbb0002, not aaaa0001 as in the campaign");
    expect(note).toContain("the runs part at sim draw #2 (3 draws in the campaign, 3 alone)");
    expect(note).toContain("in the campaign: draw by node@10.0.1.1 at 2.000 ms, step 2");
    expect(note).toContain("alone: draw by node@10.0.1.1 at 3.000 ms, step 2");
    expect(note).toContain("at step 2 (user.ts:7:3)");
    expect(other.tasks.map((t) => (t as { stackAtDraw: number | null }).stackAtDraw)).toEqual([null, 2]);
    expect(marks.counts()).toEqual({ seedsChecked: 1, notReplaying: 1, seedsUnchecked: 0 });
  });

  it("does not run a root again that ran first in a fresh realm, and counts seeds past its budget", async () => {
    const alone = standInPool({ traceHash: "aaaa0001", ok: false, draws: trail([]) });
    const isolated = new ReplayChecker(alone.pool, target, true);
    await isolated.check(done(failing(1, "aaaa0001")));
    expect(alone.tasks).toEqual([]);
    expect(isolated.counts()).toEqual({ seedsChecked: 1, notReplaying: 0, seedsUnchecked: 0 });

    const budget = new ReplayChecker(alone.pool, target, false, 1);
    await budget.check(done(failing(1, "aaaa0001")));
    const past = await budget.check(done(failing(2, "cccc0003")));
    expect(resultOf(past).failures[0]!.notReplaying).toBeUndefined();
    expect(alone.tasks).toHaveLength(1);
    expect(budget.counts()).toEqual({ seedsChecked: 1, notReplaying: 0, seedsUnchecked: 1 });
  });
});
