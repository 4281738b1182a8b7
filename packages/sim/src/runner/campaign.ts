/**
 * A campaign: many seeds of one configuration, with the iteration control deciding when to stop.
 * Owns everything that is realm-wide for the duration of `run()`: the simulation hook, the escape
 * guard, the `process.nextTick` counter and the process-level error listeners.
 */
import { settleUndiciParser } from "../world/node-net/fetch.ts";
import { resolveIsolation } from "./isolation.ts";
import { InvalidConfiguration, installSimulationHook, uninstallSimulationHook } from "@moonpool/core";
import { EscapeGuard } from "../engine/escape-guard.ts";
import { natives } from "../engine/natives.ts";
import type { Breakpoint } from "../engine/rng.ts";
import { AssertionTable } from "../chaos/assertions/index.ts";
import type { SimulationConfig } from "./config.ts";
import { IN_THREAD_ISOLATION, SimulationReport } from "./report.ts";
import { CoverageStopRule } from "./coverage-stop-rule.ts";
import type { AssertionTableState } from "../chaos/assertions/index.ts";
import type { TraceEvent } from "../world/trace-log.ts";
import type { SeedFailure, SeedResult } from "./seed-result.ts";
import { SeedSession, type SeedOptions } from "./seed-runner.ts";
import { formatStacks } from "./failure-stack.ts";
import {
  Explorer,
  mergeExplorationReports,
  sequentialBatchRunner,
  type BatchRunner,
  type ExplorationReport,
  type TimelineRunner,
} from "../explore/index.ts";
import type { ExplorationConfig } from "../explore/config.ts";
import { CampaignHook } from "./simulation-hook.ts";
import { printSeedTrace } from "./trace-printing.ts";
import { WorkerPool } from "./pool/worker-pool.ts";
import { checkWorkerConfiguration } from "./pool/worker-check.ts";
import { checkSourceHere, DeferredPool } from "./pool/deferred-pool.ts";
import { lostSeedResult, runPoolCampaign } from "./pool/pool-campaign.ts";
import { DEFAULT_HANG_TIMEOUT_MS } from "./pool/progress-watchdog.ts";
import { RootSharing, Superseded, type SharedRootOutcome } from "./pool/root-sharing.ts";
import { exploreInRounds } from "./root-rounds.ts";
import { configSeedPlan, planSize, seedAt, type SeedPlan } from "./seed-plan.ts";
import { describeSource } from "./simulation-source.ts";
import { thrownFields as errorFields } from "./thrown.ts";
import { interceptProcessErrors } from "./seed-errors.ts";
import { installProcessErrorEvents } from "../world/node-runtime/process-events.ts";

export interface CampaignPlan {
  /** Run exactly these seeds (replay, explorer); otherwise the iteration control decides. */
  readonly seeds?: readonly number[];
  /** Recipe for every seed of `seeds` (replay of one timeline). */
  readonly breakpoints?: readonly Breakpoint[];
  /** Observes every sim draw of every seed (determinism checks). */
  readonly drawObserver?: SeedOptions["drawObserver"];
  /**
   * Worker threads for plain seeds (0 or absent: this thread). Each seed runs in a worker and the
   * tables are absorbed in seed order, so every seed's result and the report's table are those of
   * an in-thread run, for any number of workers. Needs `simulationSource`.
   */
  readonly workers?: number;
  /**
   * With `workers`: a seed fails as hung, alone, when no engine step of it starts for this long,
   * in ms of wall clock (default 60 s; a seed that keeps stepping is never stopped).
   */
  readonly hangTimeoutMs?: number;
}

/** Options of `Campaign.runSingleSeed`. */
export interface SingleSeedOptions {
  /** The assertion table the seed starts from (a snapshot); absent or null: an empty table. */
  readonly baseTable?: AssertionTableState | null;
  /** A recipe of reseed points (replay of one timeline); a seed with a recipe is never explored. */
  readonly breakpoints?: readonly Breakpoint[];
  /** Explore the root seed when the configuration enables exploration (default true). */
  readonly explore?: boolean;
  /**
   * Receives every trace event of each timeline once it has run (replay prints them), from
   * `keepLevel` up when it is set.
   */
  readonly onTrace?: (events: readonly TraceEvent[]) => void;
  /**
   * Also hand `onTrace` the events from this level up when it is below the simulation's trace
   * level: they are kept aside (sequence number -1), so the seed runs and hashes exactly as in a run.
   */
  readonly keepLevel?: SeedOptions["keepLevel"];
  /** Receives the root seed's chaos as soon as it is drawn (a pool worker posts it ahead of a possible hang). */
  readonly onChaos?: SeedOptions["onChaos"];
  /** Sees every sim draw of the root seed's timeline (replay checks that a recipe's reseed points were reached). */
  readonly drawObserver?: SeedOptions["drawObserver"];
}

/** What `Campaign.runSingleSeed` returns: plain data, safe to post between threads. */
export interface SingleSeedOutcome {
  readonly result: SeedResult;
  /** The seed's table afterwards: the base table plus everything the seed (and its exploration) added. */
  readonly table: AssertionTableState;
  /** The exploration of this root seed, or null when it was not explored. */
  readonly exploration: ExplorationReport | null;
}

export class Campaign {
  private readonly table = new AssertionTable();
  private readonly hook: CampaignHook;
  private session: SeedSession | null = null;
  /** Whether Node tells this realm at once of a rejection with no handler (runner/seed-errors.ts). */
  private seesRejections = true;

  constructor(private readonly config: SimulationConfig) {
    this.hook = new CampaignHook(config.swarmOperations);
  }

  async run(plan: CampaignPlan = {}): Promise<SimulationReport> {
    const seeds: SeedPlan =
      plan.seeds !== undefined ? { kind: "list", seeds: plan.seeds } : configSeedPlan(this.config);
    if (plan.workers !== undefined && plan.workers !== 0 && plan.breakpoints === undefined)
      return this.runOnWorkers(seeds, plan.workers, plan.hangTimeoutMs ?? DEFAULT_HANG_TIMEOUT_MS);
    const exploration = plan.breakpoints === undefined ? this.config.exploration : null;
    if (exploration !== null) return this.explore(seeds, exploration, plan.drawObserver);
    const wallStart = natives.performanceNow();
    const results: SeedResult[] = [];
    const stopRule = CoverageStopRule.forPlan(seeds);
    await this.inRealm(async (guard) => {
      for (let i = 0; i < planSize(seeds); i++) {
        const seed = seedAt(seeds, i);
        const options = { breakpoints: plan.breakpoints ?? [], drawObserver: plan.drawObserver };
        const result = await this.runSeed(seed, guard, options, this.table);
        // The result stays in the report: its stacks are formatted now (a stack not yet
        // formatted holds on to the frames of its seed).
        formatStacks(result);
        results.push(result);
        if (stopRule !== null && stopRule.afterSeed(this.table, i + 1)) break;
      }
    });
    return this.report(results, stopRule, wallStart, null);
  }

  /** The report of a campaign run in this thread (plain or exploring) since `wallStart`. */
  private report(
    results: SeedResult[],
    stopRule: CoverageStopRule | null,
    wallStart: number,
    exploration: ExplorationReport | null,
  ): SimulationReport {
    return new SimulationReport({
      results,
      table: this.table,
      convergenceTimeout: stopRule?.convergenceTimeout ?? false,
      saturation: stopRule?.saturation ?? null,
      wallTimeMs: natives.performanceNow() - wallStart,
      steppingMode: this.config.steppingMode,
      exploration,
      isolation: IN_THREAD_ISOLATION,
    });
  }

  /**
   * An exploring campaign: root seeds in rounds (root-rounds.ts), each root explored from its
   * round's base table and absorbed in seed order. With `exploration.workers`, whole roots of a
   * round are shared with a pool started once the machine has a spare core (pool/root-sharing.ts,
   * pool/deferred-pool.ts); the outcome is the same for any number of workers.
   */
  private async explore(
    seeds: SeedPlan,
    exploration: ExplorationConfig,
    drawObserver: SeedOptions["drawObserver"],
  ): Promise<SimulationReport> {
    const wallStart = natives.performanceNow();
    const results: SeedResult[] = [];
    const explorations: ExplorationReport[] = [];
    const stopRule = CoverageStopRule.forPlan(seeds);
    const source = this.config.source;
    let timelinesHere = 0;
    let sharing: RootSharing | null = null;
    // Work the workers could take: the roots not started yet, at this thread's pace so far.
    const workLeftMs = (): number => {
      if (timelinesHere === 0) return Number.POSITIVE_INFINITY;
      const msPerTimeline = (natives.performanceNow() - wallStart) / timelinesHere;
      const rootsLeft = planSize(seeds) - (sharing?.rootsStarted ?? 0);
      return msPerTimeline * exploration.maxRunsPerSeed * rootsLeft;
    };
    // The source is checked here first, so a bad one is refused whether the pool starts or not;
    // the workers check it again when it does.
    const pool =
      exploration.workers > 0 && source !== null
        ? new DeferredPool(exploration.workers, source, this.config, workLeftMs)
        : null;
    if (pool !== null) await checkSourceHere(source!, this.config);
    try {
      await this.inRealm(async (guard) => {
        const runTimeline = async (seed: number, recipe: readonly Breakpoint[], table: AssertionTable) => {
          timelinesHere++;
          return this.runSeed(seed, guard, { breakpoints: recipe, drawObserver }, table);
        };
        const shared = new RootSharing(
          pool,
          (index, base, superseded) =>
            this.exploreRoot(seedAt(seeds, index), base, exploration, runTimeline, () => {
              shared.offer();
              if (superseded()) throw new Superseded();
            }),
          (index, base) => ({
            kind: "rootSeed",
            source: source!,
            overrides: { explore: false },
            seed: seedAt(seeds, index),
            baseTable: base,
            exploration,
          }),
          (index, outcome) => lostSeedResult(seedAt(seeds, index), outcome),
        );
        sharing = shared;
        try {
          await exploreInRounds<SharedRootOutcome>({
            range: { start: 0, end: planSize(seeds) },
            snapshot: () => this.table.snapshot(),
            startRound: (indexes, base) => shared.startRound(indexes, base),
            absorb: (_index, outcome, base) => {
              if (outcome.table !== null) this.table.absorb(outcome.table, base);
              if (outcome.exploration !== null) explorations.push(outcome.exploration);
              results.push(outcome.result);
              return stopRule === null || !stopRule.afterSeed(this.table, results.length);
            },
          });
        } finally {
          // A root this thread still explores (past a stop rule) ends before the realm closes.
          await shared.stop();
        }
      });
      pool?.verdict();
    } finally {
      await pool?.close();
    }
    return this.report(results, stopRule, wallStart, mergeExplorationReports(explorations));
  }

  /**
   * Plain seeds on a pool of worker threads started for this run: the pipeline of `moonpool run`,
   * with its seed-order absorb and stop rule. The workers rebuild the simulation from its source,
   * checked first to build this very configuration.
   */
  private async runOnWorkers(seeds: SeedPlan, workers: number, hangTimeoutMs: number): Promise<SimulationReport> {
    const source = this.config.source;
    if (!Number.isSafeInteger(workers) || workers < 1) {
      throw new InvalidConfiguration(
        `run({ workers }): workers must be a whole number of threads (0 runs in this thread), got ${String(workers)}`,
      );
    }
    if (!Number.isSafeInteger(hangTimeoutMs) || hangTimeoutMs < 1)
      throw new InvalidConfiguration(
        `run({ hangTimeoutMs }): a positive whole number of milliseconds, e.g. 120_000, got ${String(hangTimeoutMs)}`,
      );
    if (source === null) {
      throw new InvalidConfiguration(
        `run({ workers: ${workers} }) runs seeds in worker threads, which cannot receive this builder's closures: ` +
          `add .simulationSource(import.meta.url, "exportName") naming the export that builds this simulation, or run without workers`,
      );
    }
    if (this.config.exploration !== null) {
      throw new InvalidConfiguration(
        `run({ workers: ${workers} }) runs plain seeds; an exploring simulation shares its root seeds with ` +
          `workers through enableExploration({ workers: ${workers} }) instead`,
      );
    }
    const pool = new WorkerPool(Math.max(1, Math.min(workers, planSize(seeds))));
    try {
      await checkWorkerConfiguration(pool, source, this.config);
      const { report } = await runPoolCampaign(pool, {
        name: describeSource(source),
        source,
        overrides: { explore: false },
        plan: seeds,
        range: { start: 0, end: planSize(seeds) },
        explore: false,
        steppingMode: this.config.steppingMode,
        bail: false,
        hangTimeoutMs,
        isolation: resolveIsolation(this.config).mode,
        signal: new AbortController().signal,
      });
      return report;
    } finally {
      await pool.close();
    }
  }

  /**
   * Runs one root seed in a table of its own, starting from `options.baseTable` (empty when
   * absent), and returns its result with everything the table holds afterwards. The worker pool
   * runs seeds this way and absorbs the tables in seed order (`AssertionTable.absorb(table,
   * baseTable)`), which gives exactly the table of running the seeds one after the other.
   * With exploration enabled (and no recipe) the root seed is explored in depth in that table,
   * always in this thread (`exploration.workers` is ignored: callers of this method, like the
   * CLI's pool, already run one seed per thread).
   */
  async runSingleSeed(seed: number, options: SingleSeedOptions = {}): Promise<SingleSeedOutcome> {
    const explore = (options.explore ?? true) && this.config.exploration !== null && options.breakpoints === undefined;
    return this.inRealm(async (guard) => {
      const table = options.baseTable != null ? AssertionTable.fromSnapshot(options.baseTable) : new AssertionTable();
      const runTimeline = async (timelineSeed: number, recipe: readonly Breakpoint[], timelineTable?: AssertionTable) =>
        this.runSeed(
          timelineSeed,
          guard,
          {
            breakpoints: recipe,
            onChaos: timelineSeed === seed ? options.onChaos : undefined,
            drawObserver: timelineSeed === seed && !explore ? options.drawObserver : undefined,
            keepLevel: options.keepLevel,
          },
          timelineTable ?? table,
          options.onTrace,
        );
      if (explore) return this.exploreRoot(seed, options.baseTable ?? null, this.config.exploration!, runTimeline);
      const result = await runTimeline(seed, options.breakpoints ?? []);
      formatStacks(result);
      return { result, table: table.snapshot(), exploration: null };
    });
  }

  /**
   * Explores root seed `seed` in a table of its own starting from `base` (null: empty), in this
   * realm; `beforeBatch` runs before each batch of continuations (it may end the exploration by
   * throwing). The root's discoveries steered its exploration and are dropped from the result, as
   * a worker drops them.
   */
  private async exploreRoot(
    seed: number,
    base: AssertionTableState | null,
    exploration: ExplorationConfig,
    runTimeline: (seed: number, recipe: readonly Breakpoint[], table: AssertionTable) => Promise<SeedResult>,
    beforeBatch?: () => void,
  ): Promise<SingleSeedOutcome> {
    const table = base !== null ? AssertionTable.fromSnapshot(base) : new AssertionTable();
    const timeline: TimelineRunner<SeedResult> = (s, recipe, t) => runTimeline(s, recipe, t ?? table);
    const inThread = sequentialBatchRunner(timeline);
    const runBatch: BatchRunner<SeedResult> =
      beforeBatch === undefined
        ? inThread
        : (root, jobs) => {
            beforeBatch();
            return inThread(root, jobs);
          };
    const explorer = new Explorer(exploration, table, timeline, runBatch);
    const result = await explorer.exploreRoot(seed);
    // The result stays in the report: its stacks are formatted now (a stack not yet formatted
    // holds on to the frames of its seed).
    formatStacks(result);
    return { result: { ...result, discoveries: [] }, table: table.snapshot(), exploration: explorer.report() };
  }

  /**
   * Owns the realm for the duration of `body`: the simulation hook (one simulation per realm), the
   * escape guard and the process-level error listeners, restored afterwards whatever happens.
   */
  private async inRealm<T>(body: (guard: EscapeGuard) => Promise<T>): Promise<T> {
    if (!installSimulationHook(this.hook)) {
      throw new InvalidConfiguration(
        "another simulation is already running in this realm: await the first run() before starting the next (for parallel seeds use worker threads)",
      );
    }
    const guard = new EscapeGuard(
      {
        currentActor: () => this.session?.world.engine.currentActor ?? "runner",
        escaped: (error) => this.session?.escaped(error),
        console: (level, text) => this.session?.console(level, text),
      },
      this.config.allowedGlobals,
      this.config.captureConsole,
    );
    // Node reports a seed's errors through `process.emit`; they go to the seed, never to the host's
    // listeners (a test runner's), which stay installed and keep seeing the host's own errors.
    const seedErrors = interceptProcessErrors(
      () => this.session,
      () => {
        guard.passNextSetImmediate = true;
      },
    );
    this.seesRejections = seedErrors.seesRejections;
    const restoreListeners = installProcessErrorEvents();
    try {
      guard.install();
      return await body(guard);
    } finally {
      guard.uninstall();
      restoreListeners();
      seedErrors.restore();
      uninstallSimulationHook(this.hook);
    }
  }

  private async runSeed(
    seed: number,
    guard: EscapeGuard,
    options: SeedOptions,
    table: AssertionTable,
    onTrace?: (events: readonly TraceEvent[]) => void,
  ): Promise<SeedResult> {
    if (this.config.nodeRuntime === true) await settleUndiciParser();
    const session = new SeedSession(this.config, seed, table, options);
    const lateFailures: SeedFailure[] = [];
    for (const hook of this.config.beforeIteration) {
      try {
        hook();
      } catch (error) {
        lateFailures.push({
          kind: "setup",
          message: `beforeIteration hook threw: ${errorFields(error).message}`,
          timeMs: 0,
          stack: errorFields(error).stack,
        });
      }
    }
    const engine = session.world.engine;
    engine.boundary = {
      leaveSimulation: () => {
        guard.armed = false;
      },
      enterSimulation: () => {
        guard.armed = true;
      },
    };
    // Through a local: a function literal assigned straight to a property is allocated in the old
    // generation, where it keeps this seed alive until the next full GC.
    const adoptBetweenSteps = () => {
      const owner = engine.ownerBetweenSteps?.() ?? null;
      if (owner === null) return null;
      const previous = engine.currentOwner;
      engine.currentOwner = owner;
      guard.armed = true;
      return () => {
        guard.armed = false;
        engine.currentOwner = previous;
      };
    };
    guard.adoptBetweenSteps = adoptBetweenSteps;
    // Without the rejection signal, a turn of the real loop after every step lets Node report them.
    if (!this.seesRejections) engine.yieldEveryStep = true;
    this.session = session;
    this.hook.session = session;
    engine.installTickCounter();
    guard.startSeed();
    guard.virtual = session.nodeRuntime;
    guard.armed = true;
    let result: SeedResult;
    try {
      result = await session.run();
      onTrace?.(session.world.trace.printable ?? session.world.trace.all);
      if (this.config.printTrace != null)
        printSeedTrace(this.config.printTrace, seed, session.world.trace.printable ?? session.world.trace.all);
    } finally {
      guard.armed = false;
      guard.virtual = null;
      guard.adoptBetweenSteps = null;
      engine.uninstallTickCounter();
      this.hook.session = null;
      this.session = null;
    }
    // Anything Node reported after the last step (the seed's final turn of the real loop).
    const before = session.failures.length;
    session.processErrors.handlePending();
    lateFailures.push(...session.failures.slice(before));
    if (lateFailures.length === 0) return result;
    return { ...result, ok: false, failures: [...result.failures, ...lateFailures] };
  }
}
