/**
 * The explorer's continuations on a worker pool (docs/decisions.md D15). A batch is cut into
 * contiguous chunks (the jobs of a chunk run in one realm and carry one base snapshot: for
 * sub-millisecond timelines like the maze's, a task per job would cost more in messaging and
 * realm setup than the timeline itself). The outcomes are put back in job order, whichever thread
 * ran each chunk: the explorer merges them in that order, so the campaign's outcome does not
 * depend on the number of workers (nor on how the batch was cut or who ran what).
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { AssertionTable, AssertionTableState } from "../../chaos/assertions/index.ts";
import { natives } from "../../engine/natives.ts";
import { formatRecipe } from "../../engine/recipe.ts";
import type { SimulationConfig } from "../config.ts";
import { type ConfigFingerprint, configFingerprint, fingerprintDifferences } from "../config-fingerprint.ts";
import type { BatchRunner, TimelineJob, TimelineOutcome } from "../../explore/index.ts";
import type { SeedResult } from "../seed-result.ts";
import { describeSource, type SimulationSource } from "../simulation-source.ts";
import type { PoolTask, PoolTaskResults, TaskOutcome } from "./messages.ts";
import type { WorkerPool } from "./worker-pool.ts";

/** What the batch runner needs of a pool: its idle workers, and a way to give one a chunk. */
export interface TimelinePool {
  readonly available: number;
  run(task: Extract<PoolTask, { kind: "timelines" }>): Promise<TaskOutcome<PoolTaskResults["timelines"]>>;
}

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
  refuseDifferentSimulation(source, config, fingerprints[0]!);
}

/** Throws when the source's fingerprint is not this configuration's, naming the differences. */
export function refuseDifferentSimulation(
  source: SimulationSource,
  config: SimulationConfig,
  built: ConfigFingerprint,
): void {
  const differences = fingerprintDifferences(configFingerprint(config), built);
  if (differences.length > 0) {
    throw new InvalidConfiguration(
      `${describeSource(source)} builds a different simulation than this builder (this builder vs the source's): ${differences.join("; ")}. ` +
        "Workers only see what the export builds: move these settings into it, or export a function that builds exactly this simulation",
    );
  }
}

/**
 * Cuts `jobs` into contiguous chunks of at most `size` jobs that each hold jobs of one base table
 * (a chunk is what one message to a worker carries).
 */
export function splitIntoChunks(jobs: readonly TimelineJob[], size: number): TimelineJob[][] {
  const chunks: TimelineJob[][] = [];
  for (let start = 0; start < jobs.length; ) {
    let end = start + 1;
    while (end < jobs.length && end - start < size && jobs[end]!.base === jobs[start]!.base) end++;
    chunks.push(jobs.slice(start, end));
    start = end;
  }
  return chunks;
}

/**
 * Chunks per batch for every thread taking part: enough for the faster threads to take more
 * chunks than the slower ones, few enough that a chunk's work outweighs its message.
 */
export const CHUNKS_PER_THREAD = 2;

/**
 * When sending work to the workers is worth it. A shared batch lost when the workers contributed
 * no chunk (this thread ran every chunk itself before their results arrived), or when it took
 * longer than running it all here would have (this thread's recent time per timeline times the
 * batch: waiting for a reply on a busy machine can cost more than the timelines). A loss keeps
 * the next batches in this thread, twice as many after each further loss (up to
 * MAX_BATCHES_IN_THREAD); a win halves that. Batches whose work is shorter than a round trip thus
 * stay here, and a pool that keeps up is used.
 */
export class WorkerUse {
  /** Batches to keep in this thread before trying the workers again. */
  private skip = 0;
  private penalty = 0;
  batchesOnWorkers = 0;
  batchesInThread = 0;
  /** Chunks whose outcomes came from a worker, and chunks this thread ran (its own or a worker's late one). */
  chunksFromWorkers = 0;
  chunksInThread = 0;
  /** This thread's recent time per timeline (0 until measured): how long a chunk would take here. */
  hereMsPerJob = 0;

  /** Notes `jobs` timelines that took `ms` in this thread. */
  ranHere(ms: number, jobs: number): void {
    const perJob = ms / jobs;
    this.hereMsPerJob = this.hereMsPerJob === 0 ? perJob : this.hereMsPerJob * 0.8 + perJob * 0.2;
  }

  wanted(): boolean {
    if (this.skip > 0) {
      this.skip--;
      return false;
    }
    return true;
  }

  /**
   * A batch of `jobs` timelines shared with the workers took `batchMs`; `fromWorkers` of its
   * `chunks` came back from them in time.
   */
  record(fromWorkers: number, chunks: number, batchMs: number, jobs: number): void {
    this.chunksFromWorkers += fromWorkers;
    this.chunksInThread += chunks - fromWorkers;
    if (fromWorkers === 0 || batchMs > this.hereMsPerJob * jobs) {
      this.penalty = Math.min(MAX_BATCHES_IN_THREAD, this.penalty === 0 ? 1 : this.penalty * 2);
      this.skip = this.penalty;
    } else {
      this.penalty = Math.floor(this.penalty / 2);
    }
  }
}

/** The longest run of batches kept in this thread between two tries of the workers. */
export const MAX_BATCHES_IN_THREAD = 256;

/** Lets worker replies (message events) in: a batch in this thread runs without giving way. */
const giveWay = () => new Promise<void>((resolve) => natives.setImmediate(resolve));

/** Identifies a base table's snapshot across messages, so a worker can reuse the copy it built. */
let nextBaseId = 1;

/**
 * Runs a batch on this thread and the workers that are started and idle. The batch is cut into
 * chunks; idle workers take chunks from the end, one at a time, while this thread runs chunks
 * from the start, giving way between chunks so replies come in. Once every chunk is taken, this
 * thread runs the chunks still out itself, the latest posted first, keeping whichever outcome
 * comes first: it never waits for a worker, so a slow, cold or starved worker costs it nothing
 * but the messages (the workers run at low priority: a chunk they lose cost only CPU this thread
 * left). With no worker available (still starting, or `usable()` false) the whole batch runs here.
 * Wherever a chunk ran, its outcomes are the same.
 */
export function poolBatchRunner(
  pool: TimelinePool,
  source: SimulationSource,
  inThread: BatchRunner<SeedResult>,
  usable: () => boolean = () => true,
  use: WorkerUse = new WorkerUse(),
): BatchRunner<SeedResult> {
  const runHere = async (seed: number, jobs: readonly TimelineJob[]) => {
    const startMs = natives.performanceNow();
    const outcomes = await inThread(seed, jobs);
    use.ranHere(natives.performanceNow() - startMs, jobs.length);
    return outcomes;
  };
  return async (seed, jobs) => {
    const workers = usable() && use.wanted() ? Math.min(pool.available, jobs.length - 1) : 0;
    if (workers <= 0) {
      use.batchesInThread++;
      return runHere(seed, jobs);
    }
    use.batchesOnWorkers++;
    const batchStartMs = natives.performanceNow();
    const chunks = splitIntoChunks(jobs, Math.ceil(jobs.length / ((workers + 1) * CHUNKS_PER_THREAD)));
    const outcomes: (TimelineOutcome<SeedResult>[] | undefined)[] = new Array(chunks.length);
    // One snapshot per base table (a batch has one), posted with each chunk of it.
    const snapshots = new Map<AssertionTable, { readonly id: number; readonly state: AssertionTableState }>();
    const snapshotOf = (base: AssertionTable) => {
      let snapshot = snapshots.get(base);
      if (snapshot === undefined) snapshots.set(base, (snapshot = { id: nextBaseId++, state: base.snapshot() }));
      return snapshot;
    };
    let failure: Error | undefined;
    let fromWorkers = 0;
    /** Chunks posted to workers, latest last. */
    const posted: number[] = [];
    const post = (index: number) => {
      const share = chunks[index]!;
      const snapshot = snapshotOf(share[0]!.base);
      posted.push(index);
      void pool
        .run({
          kind: "timelines",
          source,
          seed,
          recipes: share.map((job) => job.recipe),
          baseId: snapshot.id,
          baseTable: snapshot.state,
        })
        .then((outcome) => {
          if (outcomes[index] !== undefined || outcome.kind === "cancelled") return;
          const recipes = share.map((job) => `"${formatRecipe(job.recipe)}"`).join(", ");
          const what = `timelines of seed ${seed} (recipes ${recipes})`;
          try {
            const values = valueOf(outcome, what);
            if (values.length !== share.length)
              throw new Error(`${what}: the worker returned ${values.length} outcomes for ${share.length} recipes`);
            outcomes[index] = values;
            fromWorkers++;
          } catch (error) {
            failure ??= error as Error;
          }
        });
    };
    let front = 0; // chunks [front, back) are not taken yet
    let back = chunks.length;
    for (;;) {
      if (failure !== undefined) throw failure;
      while (front < back && pool.available > 0) post(--back);
      if (front < back) {
        const index = front++;
        outcomes[index] = await runHere(seed, chunks[index]!);
        await giveWay();
        continue;
      }
      // Every chunk is taken: run the latest posted one still out here (the earlier ones have had
      // longer to come back).
      let out: number | undefined;
      for (const p of posted) if (outcomes[p] === undefined) out = p;
      if (out === undefined) break;
      const here = await runHere(seed, chunks[out]!);
      outcomes[out] ??= here;
      await giveWay();
    }
    use.record(fromWorkers, chunks.length, natives.performanceNow() - batchStartMs, jobs.length);
    return outcomes.flatMap((chunk) => chunk!);
  };
}
