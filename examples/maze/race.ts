/**
 * The race: an exploration benchmark with a planted bug in the order of same-instant events.
 *
 * Three spawned tasks each take three steps, awaiting `ctx.task.yieldNow()` between them, and
 * log each step. Nothing draws from the `sim` stream: which task runs next is decided only by
 * the `schedule` stream (the order of same-instant events). The bug is one 3-step ordering: task
 * `c` finishes, then `b`, then `a` takes its last step, although `a` has the fewest yields in
 * front of it. Random seeds hit it about once in 125 (0.8 %). The partial orders on the way are
 * reported as `sometimes` signals when they happen, so an explorer that branches on the schedule
 * stream can build on a timeline that got part of the way there.
 */
import {
  assertAlways,
  assertSometimesEach,
  SimulationBuilder,
  type SimContext,
  type TaskScope,
  type Workload,
} from "@moonpool/sim";

/** Yields before each step of each task: `a` is quickest, `c` slowest. */
export const RACE_YIELDS: Readonly<Record<string, number>> = { a: 1, b: 2, c: 3 };
/** Steps per task. */
export const RACE_STEPS = 3;
/** The step of `a` that `c` and `b` must both finish before (its last). */
export const RACE_ANCHOR_STEP = 3;

/** The race workload: one log of `task:step` entries per seed. */
export class RaceWorkload implements Workload {
  readonly name = "race";
  /** The last run's step log (for tests). */
  log: string[] = [];

  async run(ctx: SimContext): Promise<void> {
    const log = new Set<string>();
    const steps = { a: 0, b: 0, c: 0 };
    this.log = [];
    const record = (entry: string): void => {
      log.add(entry);
      steps[entry[0] as keyof typeof steps]++;
      this.log.push(entry);
      // Progress is reported when it happens, so a branch point sits right after it: every
      // combination of steps taken while the bug is still possible is a state worth reaching.
      const open = !log.has(`a:${RACE_ANCHOR_STEP}`) && !log.has("b:3");
      if (open) assertSometimesEach("race: a and b not finished", { a: steps.a, b: steps.b, c: steps.c });
      if (entry === "b:3")
        assertAlways(!(log.has("c:3") && !log.has(`a:${RACE_ANCHOR_STEP}`)), "race bug: c and b finished before a");
    };
    const run = async (scope: TaskScope, task: string): Promise<void> => {
      for (let s = 1; s <= RACE_STEPS; s++) {
        for (let y = 0; y < RACE_YIELDS[task]!; y++) await scope.task.yieldNow();
        record(`${task}:${s}`);
      }
    };
    const handles = ["a", "b", "c"].map((task) => ctx.task.spawn(task, (scope) => run(scope, task)));
    for (const handle of handles) await handle;
  }
}

/** The race simulation: one fresh workload per seed. */
export function raceSimulation(): SimulationBuilder {
  return new SimulationBuilder().workloadFactory(() => new RaceWorkload());
}
