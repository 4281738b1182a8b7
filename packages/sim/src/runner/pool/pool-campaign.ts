/**
 * One simulation's campaign on the worker pool (`moonpool run`, and `SimulationBuilder.run({ workers })`),
 * with results that do not depend on the number of workers:
 *
 * - Plain seeds: each seed runs in a worker with a fresh assertion table; the main thread absorbs
 *   the returned tables in SEED ORDER (`AssertionTable.absorb(child, null)`), which gives exactly
 *   the table of running the seeds one after the other. Up to `SPECULATION_WINDOW_PER_WORKER`
 *   seeds per worker run ahead of the next seed to absorb.
 * - Stop rules (`untilStable`, `--bail`) are evaluated in seed order on the main thread, after
 *   each absorb; seeds that ran speculatively past the stop point are discarded.
 * - Exploration (`--explore`): root seeds are explored in rounds (`runner/root-rounds.ts`, the
 *   same rounds as an in-thread campaign): every root seed of a round starts from the table
 *   merged up to the start of its round, and the round's tables are absorbed in seed order, so
 *   `--workers 1` and `--workers 8` explore identically. With a shard, rounds count from the
 *   shard's first seed and the first round starts from an empty table: sharded exploration
 *   depends on the shard count (not on the worker count).
 * - Isolation (`isolation`, runner/isolation.ts): with "seed", every task gets a fresh realm
 *   from the pool's warm workers. Every failing seed is re-run alone before it is absorbed
 *   (replay-check.ts), so no failure is reported with a replay command that does not reproduce.
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { SteppingMode } from "../../engine/engine.ts";
import { AssertionTable, type AssertionTableState } from "../../chaos/assertions/index.ts";
import { mergeExplorationReports, type ExplorationReport } from "../../explore/index.ts";
import { CoverageStopRule, type StopRuleWait } from "../coverage-stop-rule.ts";
import { exploreInRounds } from "../root-rounds.ts";
import {
  blockCoverageTotals,
  EMPTY_BLOCK_COVERAGE,
  unionBlockCoverage,
  type BlockCoverage,
} from "../coverage/block-coverage.ts";
import { SimulationReport } from "../report.ts";
import type { SeedFailure, SeedResult } from "../seed-result.ts";
import { NO_CHAOS_DRAWN } from "../seed-chaos.ts";
import { seedAt, type IndexRange, type SeedPlan } from "../seed-plan.ts";
import type { BuildOverrides, SimulationSource } from "../simulation-source.ts";
import type { IsolationMode } from "../isolation.ts";
import type { PoolTaskResults, TaskOutcome } from "./messages.ts";
import { formatHang } from "./progress-watchdog.ts";
import { ReplayChecker, type ReplayCheckCounts } from "./replay-check.ts";
import type { WorkerPool } from "./worker-pool.ts";

export { EXPLORE_ROUND_ROOT_SEEDS } from "../root-rounds.ts";
/** Seeds queued per worker ahead of the next one to absorb: keeps workers busy, bounds waste after a stop. */
export const SPECULATION_WINDOW_PER_WORKER = 4;

export interface CampaignProgress {
  /** Seeds absorbed (in seed order). */
  readonly done: number;
  readonly failing: number;
  readonly sometimesHit: number;
  readonly sometimesTotal: number;
  /** Exploration bug recipes, or failing seeds without exploration. */
  readonly bugs: number;
  /** With exploration: timelines run by the absorbed root seeds. */
  readonly timelines?: number;
  /** Until coverage is stable: what the stop rule still waits for. */
  readonly stopRule?: StopRuleWait;
}

export type StopReason = "bail" | "interrupted";

export interface PoolCampaignOptions {
  readonly name: string;
  /** What the workers import: the simulation file and the export holding its definition. */
  readonly source: SimulationSource;
  readonly overrides: BuildOverrides;
  readonly plan: SeedPlan;
  readonly range: IndexRange;
  readonly explore: boolean;
  readonly steppingMode: SteppingMode;
  readonly bail: boolean;
  /** With `bail`: stop once this many seeds failed (default 1). */
  readonly bailAfter?: number;
  /**
   * Hang limit of one seed: it fails as hung when no engine step of it starts for this long
   * (progress-watchdog.ts); null for none. However long a seed that keeps stepping runs (an
   * explored root is bounded by its timeline budget), it is never stopped. A hung seed has its
   * worker terminated and fails alone; the campaign goes on with a fresh worker.
   */
  readonly hangTimeoutMs: number | null;
  /** Aborted on SIGINT: stop at once and report the seeds absorbed so far. */
  readonly signal: AbortSignal;
  readonly onProgress?: (progress: CampaignProgress) => void;
  /** A failing seed, as soon as it is absorbed. */
  readonly onFailure?: (result: SeedResult, index: number) => void;
  /** The error thrown when a worker cannot run the simulation at all (default: `InvalidConfiguration`). */
  readonly loadError?: (message: string) => Error;
  /** Collect block coverage of the user's code under this project root (`--coverage`). */
  readonly coverageRoot?: string;
  /** "seed": a fresh realm per seed (per root seed when exploring); "shared": realms reused. Default "seed". */
  readonly isolation?: IsolationMode;
  /** Re-run every failing timeline alone before it is reported (default true). */
  readonly replayCheck?: boolean;
}

export interface PoolCampaignResult {
  readonly report: SimulationReport;
  readonly stoppedBy: StopReason | null;
  /** When each sometimes-family signal was first reached, in the order reached. */
  readonly sometimesFirstReached: readonly FirstReached[];
  /** The absorbed seeds' block coverage, merged in seed order; null without `coverageRoot`. */
  readonly coverage: BlockCoverage | null;
  /** Failing seeds re-run alone, and those past the check's budget (null without `replayCheck`). */
  readonly replayCheck: ReplayCheckCounts | null;
}

/** By seed index, then message: the same order for a whole run and for merged shards. */
export function sortFirstReached(list: FirstReached[]): FirstReached[] {
  return list.sort((a, b) => a.seedIndex - b.seedIndex || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
}

/** A sometimes, reachable or sometimes-all assertion and the seed (campaign position) that first reached it. */
export interface FirstReached {
  readonly message: string;
  readonly kind: string;
  readonly seedIndex: number;
}

/**
 * The result of a seed whose worker was lost (hung: no step for the hang limit, or the thread
 * died): a failed seed with the cause, so the report lists it with its replay command.
 */
export function lostSeedResult(
  seed: number,
  outcome: Extract<TaskOutcome<unknown>, { kind: "hung" | "crashed" }>,
): SeedResult {
  const failure: SeedFailure =
    outcome.kind === "hung"
      ? {
          kind: "hung",
          message:
            `${formatHang(outcome.hang)}: seed ${seed} was stopped (its worker was terminated); ` +
            "it is stuck in synchronous code or an endless microtask or nextTick chain inside one step. " +
            "Raise the limit with --hang-timeout if a single step is only that slow",
          timeMs: outcome.hang.lastStep?.simulatedMs ?? 0,
        }
      : { kind: "workerCrash", message: `seed ${seed} crashed its worker thread: ${outcome.cause}`, timeMs: 0 };
  return {
    seed,
    ok: false,
    failures: [failure],
    simulatedTimeMs: 0,
    eventsProcessed: 0,
    wallTimeMs: outcome.wallTimeMs,
    traceHash: "00000000",
    simDraws: 0,
    discoveries: [],
    chaos: outcome.chaos ?? NO_CHAOS_DRAWN,
  };
}

class Stop extends Error {
  constructor(readonly reason: StopReason) {
    super(reason);
  }
}

export async function runPoolCampaign(pool: WorkerPool, options: PoolCampaignOptions): Promise<PoolCampaignResult> {
  const { plan, range } = options;
  const table = new AssertionTable();
  const results: SeedResult[] = [];
  const indexes: number[] = [];
  const explorations: ExplorationReport[] = [];
  const stopRule = CoverageStopRule.forPlan(plan);
  const batch = {};
  const wallStartMs = performance.now();
  let failing = 0;
  const firstReached = new Map<string, FirstReached>();
  let stoppedBy: StopReason | null = null;
  let coverage: BlockCoverage | null = options.coverageRoot === undefined ? null : EMPTY_BLOCK_COVERAGE;
  const coverageTask = options.coverageRoot === undefined ? {} : { coverageRoot: options.coverageRoot };

  const interrupted = new Promise<"interrupted">((resolve) => {
    if (options.signal.aborted) resolve("interrupted");
    else options.signal.addEventListener("abort", () => resolve("interrupted"), { once: true });
  });
  const isolated = (options.isolation ?? "seed") === "seed";
  const replayCheck = options.replayCheck !== false;
  // Warm realms import the module ahead of coverage, which must see its top level: not with --coverage.
  if (options.coverageRoot === undefined) pool.prepare(options.source.module);
  const submit = (index: number, baseTable: AssertionTableState | null): Promise<SeedOutcome> =>
    pool.run(
      {
        kind: "rootSeed",
        source: options.source,
        overrides: options.overrides,
        seed: seedAt(plan, index),
        baseTable,
        ...coverageTask,
        // A root run first in a fresh realm is its own replay check: no trail needed.
        ...(replayCheck && !isolated ? { recordDraws: true } : {}),
      },
      { hangTimeoutMs: options.hangTimeoutMs, batch, isolated },
    );
  // `moonpool replay` builds the simulation without the command's exploration overrides.
  const checker = replayCheck
    ? new ReplayChecker(pool, { source: options.source, overrides: { explore: false }, batch }, isolated)
    : null;

  /** Waits for a task (and the replay check of a failing seed, in seed order), or throws Stop("interrupted") on SIGINT. */
  const settle = async (pending: Promise<SeedOutcome>): Promise<SeedOutcome> => {
    const outcome = await Promise.race([pending, interrupted]);
    if (outcome === "interrupted") throw new Stop("interrupted");
    if (checker === null) return outcome;
    const checked = await Promise.race([checker.check(outcome), interrupted]);
    if (checked === "interrupted") throw new Stop("interrupted");
    return checked;
  };

  /** Records seed `index` in seed order; throws Stop when the campaign ends here. Returns false when a stop rule says so. */
  const absorb = (index: number, outcome: SeedOutcome, baseTable: AssertionTableState | null): boolean => {
    const seed = seedAt(plan, index);
    if (outcome.kind === "cancelled") throw new Stop("interrupted");
    if (outcome.kind === "error") {
      const message = `simulation '${options.name}', seed ${seed}: ${outcome.name}: ${outcome.message}${outcome.stack !== undefined ? `\n${outcome.stack}` : ""}`;
      throw (options.loadError ?? ((text: string) => new InvalidConfiguration(text)))(message);
    }
    let result: SeedResult;
    if (outcome.kind === "hung" || outcome.kind === "crashed") {
      // Nothing of the seed's table came back: the table stays as if the seed had not run.
      result = lostSeedResult(seed, outcome);
    } else {
      const { table: childTable, exploration } = outcome.outcome;
      result = outcome.outcome.result;
      table.absorb(childTable, baseTable);
      if (coverage !== null) coverage = unionBlockCoverage(coverage, outcome.outcome.coverage ?? EMPTY_BLOCK_COVERAGE);
      if (exploration !== null) explorations.push(exploration);
    }
    results.push(result);
    indexes.push(index);
    if (!result.ok) {
      failing++;
      options.onFailure?.(result, index);
    }
    const { hit, total, unreached } = table.sometimesCoverage();
    if (hit > firstReached.size) {
      for (const d of table.details()) {
        const gated = d.kind === "sometimes" || d.kind === "reachable" || d.kind === "sometimesAll";
        if (gated && !firstReached.has(d.message) && !unreached.includes(d.message)) {
          firstReached.set(d.message, { message: d.message, kind: d.kind, seedIndex: index });
        }
      }
    }
    const bugs = options.explore ? explorations.reduce((n, x) => n + x.bugsFound, 0) : failing;
    const timelines = options.explore ? explorations.reduce((n, x) => n + x.timelines, 0) : undefined;
    const progress: CampaignProgress = {
      done: results.length,
      failing,
      sometimesHit: hit,
      sometimesTotal: total,
      bugs,
      ...(timelines === undefined ? {} : { timelines }),
    };
    if (options.bail && !result.ok && failing >= (options.bailAfter ?? 1)) {
      options.onProgress?.(progress);
      throw new Stop("bail");
    }
    const codeCoveredChars = coverage === null ? null : blockCoverageTotals(coverage).coveredChars;
    const stop = stopRule !== null && stopRule.afterSeed(table, results.length, codeCoveredChars);
    // After the rule has seen the seed: the display says what it still waits for.
    options.onProgress?.(stopRule === null ? progress : { ...progress, stopRule: stopRule.wait() });
    return !stop;
  };

  try {
    if (options.explore) {
      await exploreInRounds({
        range,
        snapshot: () => table.snapshot(),
        startRound: (indexes, base) => indexes.map((index) => submit(index, base)),
        settle,
        absorb,
      });
    } else await runSpeculatively(range, pool.size * SPECULATION_WINDOW_PER_WORKER, submit, settle, absorb);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    stoppedBy = error.reason;
  } finally {
    pool.cancelQueued(batch);
  }

  const report = new SimulationReport({
    results,
    seedIndexes: indexes,
    table,
    convergenceTimeout: stopRule?.convergenceTimeout ?? false,
    saturation: stopRule?.saturation ?? null,
    wallTimeMs: performance.now() - wallStartMs,
    steppingMode: options.steppingMode,
    exploration: options.explore ? mergeExplorationReports(explorations) : null,
  });
  return {
    report,
    stoppedBy,
    sometimesFirstReached: sortFirstReached([...firstReached.values()]),
    coverage,
    replayCheck: checker?.counts() ?? null,
  };
}

type SeedOutcome = TaskOutcome<PoolTaskResults["rootSeed"]>;
type Submit = (index: number, baseTable: AssertionTableState | null) => Promise<SeedOutcome>;
type Settle = (pending: Promise<SeedOutcome>) => Promise<SeedOutcome>;
type Absorb = (index: number, outcome: SeedOutcome, baseTable: AssertionTableState | null) => boolean;

async function runSpeculatively(
  range: IndexRange,
  window: number,
  submit: Submit,
  settle: Settle,
  absorb: Absorb,
): Promise<void> {
  const pending = new Map<number, Promise<SeedOutcome>>();
  let next = range.start;
  for (let index = range.start; index < range.end; index++) {
    while (next < range.end && next - index < window) {
      pending.set(next, submit(next, null));
      next++;
    }
    const outcome = await settle(pending.get(index)!);
    pending.delete(index);
    if (!absorb(index, outcome, null)) return;
  }
}
