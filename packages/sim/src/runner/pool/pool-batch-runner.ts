/**
 * The explorer's continuations on a worker pool. A batch is cut into one contiguous share per
 * worker (jobs of a share run in one realm and their common base snapshot is posted once: for
 * sub-millisecond timelines like the maze's, a task per job would cost more in messaging and
 * realm setup than the timeline itself). The outcomes come back in job order, whichever worker
 * finished first: the explorer merges them in that order, so the campaign's outcome does not
 * depend on the number of workers (nor on how the batch was cut).
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { AssertionTable, AssertionTableState } from "../../chaos/assertions/index.ts";
import { natives } from "../../engine/natives.ts";
import { formatRecipe } from "../../engine/recipe.ts";
import type { SimulationConfig } from "../config.ts";
import { configFingerprint, fingerprintDifferences } from "../config-fingerprint.ts";
import type { BatchRunner, TimelineJob } from "../../explore/index.ts";
import type { SeedResult } from "../seed-result.ts";
import { describeSource, type SimulationSource } from "../simulation-source.ts";
import type { TaskOutcome } from "./messages.ts";
import type { WorkerPool } from "./worker-pool.ts";

/** The value of a finished task, or the task's failure as an exception (a bad source stays an InvalidConfiguration). */
function valueOf<T>(outcome: TaskOutcome<T>, what: string): T {
  switch (outcome.kind) {
    case "done":
      return outcome.outcome;
    case "error":
      if (outcome.name === "InvalidConfiguration") throw new InvalidConfiguration(outcome.message);
      throw new Error(
        `${what} failed in a worker thread: ${outcome.name}: ${outcome.message}${outcome.stack !== undefined ? `\n--- worker stack ---\n${outcome.stack}` : ""}`,
      );
    case "crashed":
      throw new Error(`${what} crashed its worker thread: ${outcome.cause}`);
    case "timeout":
      throw new Error(`${what} timed out in a worker thread after ${Math.round(outcome.wallTimeMs)} ms`);
    case "cancelled":
      throw new Error(`${what} was cancelled: the worker pool closed`);
  }
}

/**
 * Loads the source in every worker (in parallel: the first batch then finds them warm) and
 * refuses to go on when the configuration it builds there is not this one (settings added after
 * the source's export are invisible to the workers).
 */
export async function checkWorkerConfiguration(
  pool: WorkerPool,
  source: SimulationSource,
  config: SimulationConfig,
): Promise<void> {
  const probes = Array.from({ length: pool.size }, () => pool.run({ kind: "fingerprint", source }));
  const fingerprints = (await Promise.all(probes)).map((outcome) =>
    valueOf(outcome, `loading ${describeSource(source)}`),
  );
  const differences = fingerprintDifferences(configFingerprint(config), fingerprints[0]!);
  if (differences.length > 0) {
    throw new InvalidConfiguration(
      `${describeSource(source)} builds a different simulation than this builder (this builder vs the source's): ${differences.join("; ")}. ` +
        "Workers only see what the export builds: move these settings into it, or export a function that builds exactly this simulation",
    );
  }
}

/**
 * Cuts `jobs` into contiguous shares that each hold jobs of one base snapshot: every run of jobs
 * sharing a base is cut into at most `parts` shares whose sizes differ by at most one.
 */
export function splitIntoShares(jobs: readonly TimelineJob[], parts: number): TimelineJob[][] {
  const shares: TimelineJob[][] = [];
  for (let start = 0; start < jobs.length; ) {
    let end = start + 1;
    while (end < jobs.length && jobs[end]!.base === jobs[start]!.base) end++;
    const count = end - start;
    const pieces = Math.min(parts, count);
    for (let i = 0, at = start; i < pieces; i++) {
      const size = Math.floor(count / pieces) + (i < count % pieces ? 1 : 0);
      shares.push(jobs.slice(at, at + size));
      at += size;
    }
    start = end;
  }
  return shares;
}

/**
 * When sending work to the workers is worth it. A hybrid batch costs this thread's share plus the
 * wait for the workers' shares; had it stayed here, it would have cost this thread's time per
 * job times the batch. A batch that lost keeps the next ones in this thread, twice as many after
 * each further loss (up to MAX_BATCHES_IN_THREAD); a batch that won halves that (one lucky round
 * trip does not undo a run of slow ones). Short timelines (where a round trip to a worker costs
 * more than the timeline) thus run here, long ones spread.
 */
export class WorkerUse {
  /** Batches to keep in this thread before trying the workers again. */
  private skip = 0;
  private penalty = 0;
  batchesOnWorkers = 0;
  batchesInThread = 0;

  wanted(): boolean {
    if (this.skip > 0) {
      this.skip--;
      return false;
    }
    return true;
  }

  /** A hybrid batch: `hereMs` for `hereJobs` jobs in this thread, then `waitedMs` for the workers. */
  record(hereMs: number, hereJobs: number, waitedMs: number, jobs: number): void {
    const inThreadMs = (hereMs / hereJobs) * jobs;
    if (hereMs + waitedMs > inThreadMs) {
      this.penalty = Math.min(MAX_BATCHES_IN_THREAD, this.penalty === 0 ? 1 : this.penalty * 2);
      this.skip = this.penalty;
    } else {
      this.penalty = Math.floor(this.penalty / 2);
    }
  }
}

/** The longest run of batches kept in this thread between two tries of the workers. */
export const MAX_BATCHES_IN_THREAD = 256;

/**
 * Runs a batch on the workers that are started and idle, one share each, and the first share in
 * this thread, which would otherwise only wait; with no worker available (still starting, or
 * `usable()` false) the whole batch runs in this thread. A run therefore never waits for the
 * pool's start-up, and the outcome is the same wherever each job ran.
 */
export function poolBatchRunner(
  pool: WorkerPool,
  source: SimulationSource,
  inThread: BatchRunner<SeedResult>,
  usable: () => boolean = () => true,
  use: WorkerUse = new WorkerUse(),
): BatchRunner<SeedResult> {
  return async (seed, jobs) => {
    const workers = usable() && use.wanted() ? Math.min(pool.available, jobs.length - 1) : 0;
    if (workers <= 0) {
      use.batchesInThread++;
      return inThread(seed, jobs);
    }
    use.batchesOnWorkers++;
    const [local, ...shares] = splitIntoShares(jobs, workers + 1);
    // One snapshot per base table (a batch has one): it is what the workers fork their jobs from.
    const snapshots = new Map<AssertionTable, AssertionTableState>();
    for (const share of shares)
      if (!snapshots.has(share[0]!.base)) snapshots.set(share[0]!.base, share[0]!.base.snapshot());
    const pending = shares.map((share) =>
      pool.run({
        kind: "timelines",
        source,
        seed,
        recipes: share.map((job) => job.recipe),
        baseTable: snapshots.get(share[0]!.base)!,
      }),
    );
    const startMs = natives.performanceNow();
    const here = await inThread(seed, local!);
    const hereMs = natives.performanceNow() - startMs;
    const outcomes = await Promise.all(pending);
    use.record(hereMs, local!.length, natives.performanceNow() - startMs - hereMs, jobs.length);
    return here.concat(
      outcomes.flatMap((outcome, i) => {
        const share = shares[i]!;
        const what = `timelines of seed ${seed} (recipes ${share.map((job) => `"${formatRecipe(job.recipe)}"`).join(", ")})`;
        const values = valueOf(outcome, what);
        if (values.length !== share.length)
          throw new Error(`${what}: the worker returned ${values.length} outcomes for ${share.length} recipes`);
        return values;
      }),
    );
  };
}
