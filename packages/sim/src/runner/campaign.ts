/**
 * A campaign: many seeds of one configuration, with the iteration control deciding when to stop.
 * Owns everything that is realm-wide for the duration of `run()`: the simulation hook, the escape
 * guard, the `process.nextTick` counter and the process-level error listeners.
 */
import { InvalidConfiguration, installSimulationHook, uninstallSimulationHook } from "@moonpool/core";
import { EscapeGuard } from "../engine/escape-guard.ts";
import { natives } from "../engine/natives.ts";
import { deriveSeed, MAX_SEED, type Breakpoint } from "../engine/rng.ts";
import { AssertionTable } from "../chaos/assertions.ts";
import type { SimulationConfig } from "./config.ts";
import { SimulationReport, type SaturationReport } from "./report.ts";
import type { SeedFailure, SeedResult } from "./seed-result.ts";
import { SeedSession, type SeedOptions } from "./seed-runner.ts";
import { explorationStrategy, type RootSeedStrategy } from "./exploration.ts";
import { CampaignHook } from "./simulation-hook.ts";

export interface CampaignPlan {
  /** Run exactly these seeds (replay, explorer); otherwise the iteration control decides. */
  readonly seeds?: readonly number[];
  /** Recipe for every seed of `seeds` (replay of one timeline). */
  readonly breakpoints?: readonly Breakpoint[];
  /** Observes every sim draw of every seed (determinism checks). */
  readonly drawObserver?: SeedOptions["drawObserver"];
}

const PROCESS_EVENTS = ["unhandledRejection", "rejectionHandled", "uncaughtException"] as const;

function errorFields(error: unknown): { message: string; stack?: string } {
  if (error instanceof Error) return { message: `${error.name}: ${error.message}`, stack: error.stack };
  return { message: String(error) };
}

function wallClockBaseSeed(): number {
  return Math.floor(natives.dateNow() * 1000 + natives.performanceNow() * 1000) % MAX_SEED;
}

export class Campaign {
  private readonly table = new AssertionTable();
  private readonly hook: CampaignHook;
  private session: SeedSession | null = null;
  private readonly unhandled = new Map<Promise<unknown>, unknown>();
  private uncaught: unknown[] = [];

  constructor(private readonly config: SimulationConfig) {
    this.hook = new CampaignHook(config.swarmOperations);
  }

  async run(plan: CampaignPlan = {}): Promise<SimulationReport> {
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
    const savedListeners = PROCESS_EVENTS.map((name) => [name, process.rawListeners(name)] as const);
    const onUnhandled = (reason: unknown, promise: Promise<unknown>) => this.unhandled.set(promise, reason);
    const onHandled = (promise: Promise<unknown>) => this.unhandled.delete(promise);
    const onUncaught = (error: unknown) => this.uncaught.push(error);
    const wallStart = natives.performanceNow();
    const results: SeedResult[] = [];
    let saturation: SaturationReport | null = null;
    let convergenceTimeout = false;
    let explorer: RootSeedStrategy | null = null;
    try {
      for (const name of PROCESS_EVENTS) process.removeAllListeners(name);
      process.on("unhandledRejection", onUnhandled);
      process.on("rejectionHandled", onHandled);
      process.on("uncaughtException", onUncaught);
      guard.install();
      const runTimeline = (seed: number, recipe: readonly Breakpoint[], table?: AssertionTable) =>
        this.runSeed(seed, guard, { breakpoints: recipe, drawObserver: plan.drawObserver }, table ?? this.table);
      if (this.config.exploration !== null && plan.breakpoints === undefined) {
        explorer = explorationStrategy()(this.config.exploration, this.table, runTimeline);
      }

      const control = this.config.iteration;
      const explicit = plan.seeds;
      const maxSeeds = explicit !== undefined ? explicit.length : control.kind === "fixed" ? control.iterations : control.maxSeeds;
      const baseSeed = this.config.baseSeed ?? wallClockBaseSeed();
      let previousSignal = -1;
      let quietSeeds = 0;
      for (let i = 0; i < maxSeeds; i++) {
        const seed = explicit !== undefined ? explicit[i]! : i < this.config.debugSeeds.length ? this.config.debugSeeds[i]! : deriveSeed(baseSeed, i);
        results.push(explorer !== null ? await explorer.exploreRoot(seed) : await runTimeline(seed, plan.breakpoints ?? []));
        if (explicit === undefined && control.kind === "untilCoverageStable") {
          const signal = this.table.reachedSometimesCount();
          quietSeeds = signal === previousSignal ? quietSeeds + 1 : 0;
          previousSignal = signal;
          const saturated = quietSeeds >= control.quietSeeds && this.table.allSometimesReached();
          const { hit, total } = this.table.sometimesCoverage();
          saturation = { signal: "assertionCoverage", saturated, sometimesHit: hit, sometimesTotal: total, plateauSeeds: quietSeeds, requiredQuietSeeds: control.quietSeeds };
          if (saturated) break;
          if (i === maxSeeds - 1) convergenceTimeout = true;
        }
      }
    } finally {
      guard.uninstall();
      for (const name of PROCESS_EVENTS) process.removeAllListeners(name);
      for (const [name, listeners] of savedListeners) for (const l of listeners) process.on(name, l as (...args: any[]) => void);
      uninstallSimulationHook(this.hook);
    }
    return new SimulationReport({
      results,
      table: this.table,
      convergenceTimeout,
      saturation,
      wallTimeMs: natives.performanceNow() - wallStart,
      steppingMode: this.config.steppingMode,
      exploration: explorer === null ? null : explorer.report(),
    });
  }

  private async runSeed(seed: number, guard: EscapeGuard, options: SeedOptions, table: AssertionTable): Promise<SeedResult> {
    const session = new SeedSession(this.config, seed, table, options);
    const lateFailures: SeedFailure[] = [];
    for (const hook of this.config.beforeIteration) {
      try {
        hook();
      } catch (error) {
        lateFailures.push({ kind: "setup", message: `beforeIteration hook threw: ${errorFields(error).message}`, timeMs: 0, stack: errorFields(error).stack });
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
    this.session = session;
    this.hook.session = session;
    this.unhandled.clear();
    this.uncaught = [];
    engine.installTickCounter();
    guard.armed = true;
    let result: SeedResult;
    try {
      result = await session.run();
    } finally {
      guard.armed = false;
      engine.uninstallTickCounter();
      this.hook.session = null;
      this.session = null;
    }
    for (const reason of this.unhandled.values()) {
      const { message, stack } = errorFields(reason);
      lateFailures.push({ kind: "unhandledRejection", message: `unhandled promise rejection in simulated code: ${message}`, timeMs: result.simulatedTimeMs, stack });
    }
    for (const error of this.uncaught) {
      const { message, stack } = errorFields(error);
      lateFailures.push({ kind: "uncaughtException", message: `uncaught exception in simulated code: ${message}`, timeMs: result.simulatedTimeMs, stack });
    }
    this.unhandled.clear();
    this.uncaught = [];
    if (lateFailures.length === 0) return result;
    return { ...result, ok: false, failures: [...result.failures, ...lateFailures] };
  }
}
