/**
 * `SimulationBuilder`: the fluent configuration of a campaign. Mistakes that can be seen at the
 * call (a bad count, tags before processes) throw `InvalidConfiguration` right there; mistakes
 * of combination throw from `run()` before any seed starts.
 */
import { checkIsolationMode, type IsolationMode } from "./isolation.ts";
import { InvalidConfiguration, type TraceLevel } from "@moonpool/core";
import { DEFAULT_MAX_STEPS_PER_INSTANT, type SteppingMode } from "../engine/engine.ts";
import { GUARDED_GLOBALS } from "../engine/escape-guard.ts";
import { resolveExplorationConfig, type ExplorationConfig } from "../explore/config.ts";
import { checkSimulationSource, type SimulationSource } from "./simulation-source.ts";
import { checkRecipe, parseRecipe, type Recipe } from "../engine/recipe.ts";
import { NO_OVERRIDES, parseOverrides, withOverrides, type TimelineOverrides } from "./shrink/overrides.ts";
import { checkDeterminism, type DeterminismOptions, type DeterminismReport } from "./determinism.ts";
import type { TraceQuery } from "../world/trace-log.ts";
import type { NodeFsOptions } from "../world/node-fs/index.ts";
import { checkNodeFsSettings, withNodeRuntime, type NodeFsSettings } from "./node-fs-settings.ts";
import { Campaign } from "./campaign.ts";
import { checkLivenessProperty, type LivenessProperty } from "./liveness.ts";
import { PROCESS_ERROR_MODES, type ProcessErrorMode } from "./process-errors.ts";
import { seedsForCheck } from "./seed-plan.ts";
import { applyChaosEntries, NO_CHAOS, type Chaos, type ChaosPlan } from "../chaos/chaos.ts";
import type { NetworkFaultsSetting } from "../chaos/network-chaos.ts";
import type { ClockFaultsSetting } from "../chaos/clock-chaos.ts";
import { checkDnsOptions, dnsConfigFields, NO_DNS_SETTING, type DnsOptions, type DnsSetting } from "./dns-options.ts";
import type { ClockConfig } from "../world/clock-config.ts";
import type { StorageConfig } from "../world/storage/config.ts";
import type { NetworkConfig } from "../world/network/config.ts";
import type { FaultInjector } from "./fault-context.ts";
import {
  checkLinkLatency,
  DEFAULT_LINK_LATENCY,
  localityCountRange,
  type LinkLatencyConfig,
  type LocalityConfig,
} from "./locality.ts";
import {
  DEFAULT_ITERATION_CONTROL,
  DEFAULT_RUN_TIME_BUDGET_MS,
  type IterationControl,
  type ProcessGroupSpec,
  type SimulationConfig,
  type WorkloadSpec,
} from "./config.ts";
import type { SimulationReport } from "./report.ts";
import { WorkloadCount, type Invariant, type Process, type ProcessCount, type Workload } from "./user-interfaces.ts";
import {
  checkChaosDuration,
  checkClockFaultsSetting,
  checkCombination,
  checkFaultFactory,
  checkInvariant,
  checkNetworkFaultsSetting,
  checkNewGroup,
  checkProcess,
  checkProcessCount,
  checkSeed,
  checkStorageFaultsSetting,
  checkWorkload,
  checkWorkloadCount,
  MAX_PROCESSES_PER_GROUP,
  positiveInteger,
  checkTraceLevel,
} from "./builder-checks.ts";

export { MAX_PROCESSES_PER_GROUP, MAX_PROCESS_GROUPS, MAX_WORKLOADS } from "./builder-checks.ts";

export class SimulationBuilder {
  private readonly groups: ProcessGroupSpec[] = [];
  private readonly workloadSpecs: WorkloadSpec[] = [];
  private readonly invariants: Invariant[] = [];
  private readonly livenessProperties: LivenessProperty[] = [];
  private iteration: IterationControl = DEFAULT_ITERATION_CONTROL;
  private debugSeeds: number[] = [];
  private baseSeed: number | undefined;
  private runBudgetMs = DEFAULT_RUN_TIME_BUDGET_MS;
  private level: TraceLevel = "info";
  private tracePrinting: SimulationConfig["printTrace"] = null;
  private taskFailuresFail = true;
  private readonly beforeHooks: (() => void)[] = [];
  private swarmOps = false;
  private mode: SteppingMode = "fast";
  private readonly allowed = new Set<string>();
  private consoleCapture = true;
  private virtualRuntime = false;
  private fsOptions: NodeFsOptions | null = null;
  private isolationMode: IsolationMode | undefined = undefined;
  private processErrorMode: ProcessErrorMode = "failSeed";
  private maxStepsAtInstant = DEFAULT_MAX_STEPS_PER_INSTANT;
  private exploration: ExplorationConfig | null = null;
  private replay: { seed: number; recipe: Recipe; overrides: TimelineOverrides } | null = null;
  private chaosPlan: ChaosPlan = NO_CHAOS;
  private networkFaultsSetting: NetworkFaultsSetting = "baseline";
  private clockFaultsSetting: ClockFaultsSetting = "baseline";
  private dnsSetting: DnsSetting = NO_DNS_SETTING;
  private storageFaultsSetting: StorageConfig | null = null;
  private chaosDurationMs: number | null = null;
  private injectorFactory: (() => FaultInjector) | null = null;
  private linkLatencyConfig: LinkLatencyConfig | null = null;
  private source: SimulationSource | null = null;

  /**
   * Registers one role: `count` processes (or `[min, max]` drawn per seed) built by `factory`
   * on every boot. The group is named after the process's `name` and gets `10.0.{n}.x` addresses
   * (n = 1 for the first call). Call once per role.
   */
  processes(count: ProcessCount, factory: () => Process): this {
    if (typeof factory !== "function")
      throw new InvalidConfiguration("processes(count, factory): factory must be a function returning a new Process");
    checkProcessCount(count);
    // The factory runs once now to learn the group's name.
    const name = checkProcess(factory(), "processes(count, factory): factory").name;
    checkNewGroup(
      this.groups,
      name,
      "processes()",
      "call processes() once per role (or give the roles different names)",
    );
    const checkedFactory = () => checkProcess(factory(), `the factory of process group '${name}'`);
    this.groups.push({
      name,
      count: typeof count === "number" ? count : [count[0], count[1]],
      factory: checkedFactory,
      tags: {},
    });
    return this;
  }

  /**
   * Registers one role laid out as a cluster: `config` gives datacenters, zones per datacenter, machines per zone and
   * processes per machine, each fixed or `[min, max]` drawn per seed; the group's size is their product. It is an
   * ordinary group otherwise (named after the process, `10.0.{n}.x` addresses, `.tags()` applies to it), and only its
   * processes have a locality (`ctx.topology.myLocality`, `ipsInDomain`, ...). Other `.processes()` groups can sit
   * beside it; one cluster per simulation.
   */
  cluster(config: LocalityConfig, factory: () => Process): this {
    if (typeof factory !== "function")
      throw new InvalidConfiguration("cluster(config, factory): factory must be a function returning a new Process");
    if (this.groups.some((g) => g.locality !== undefined)) {
      throw new InvalidConfiguration(
        "cluster(): a cluster is already registered; lay out every located process in one cluster(config, factory) and add other roles with processes()",
      );
    }
    const [min, max] = localityCountRange(config, MAX_PROCESSES_PER_GROUP);
    const name = checkProcess(factory(), "cluster(config, factory): factory").name;
    checkNewGroup(this.groups, name, "cluster()", "give the cluster's process another name");
    const checkedFactory = () => checkProcess(factory(), `the factory of cluster group '${name}'`);
    this.groups.push({
      name,
      count: min === max ? min : [min, max],
      factory: checkedFactory,
      tags: {},
      locality: Object.freeze({ ...config }),
    });
    return this;
  }

  /**
   * Latency that grows with distance between the cluster's processes: every connect and chunk between two located
   * processes gets a draw from the range of their distance (same machine < same zone < same datacenter < across
   * datacenters), on top of the network's own latency. Without arguments: `DEFAULT_LINK_LATENCY`. Needs
   * `.cluster(...)`.
   */
  linkLatency(config: LinkLatencyConfig = DEFAULT_LINK_LATENCY): this {
    this.linkLatencyConfig = checkLinkLatency(config);
    return this;
  }

  /**
   * Chaos surfaces, e.g. `[Chaos.network("swarm"), Chaos.buggifyKnobs()]`. Entries accumulate over calls; a later entry
   * overrides an earlier one for the same surface. Without a network entry every seed runs the baseline network faults
   * (see `networkFaults`); without a storage entry (`Chaos.storage(mode)`) storage faults are off; without
   * `Chaos.attrition(config, mode)` no process is rebooted (except by a fault injector). Attrition entries are kept one
   * per victim pool (a later entry for the same victims replaces the earlier one).
   */
  enableChaos(entries: readonly Chaos[]): this {
    this.chaosPlan = applyChaosEntries(this.chaosPlan, entries);
    return this;
  }

  /**
   * The chaos window: `durationMs` of simulated time from the start of the run phase. At its end the world enters
   * recovery mode: no new fault of any configuration-driven family, every partition healed, fault injectors stopped;
   * damage already done stays. Leave the workload a recovery segment after it. Without it, configuration faults last
   * the whole run and fault injectors never run.
   */
  chaosDuration(durationMs: number): this {
    this.chaosDurationMs = checkChaosDuration(durationMs);
    return this;
  }

  /** A fresh fault injector per seed, run only inside the chaos window (needs `chaosDuration`). */
  faultFactory(factory: () => FaultInjector): this {
    this.injectorFactory = checkFaultFactory(factory);
    return this;
  }

  /**
   * The network configuration when there is no `Chaos.network` entry: "baseline" (the default,
   * see docs/fault-catalogue.md: timing variation, connect failures, partial I/O, rare corruption and close,
   * clock drift, buggified sleep delay), "none" (baseline timing, no fault at all: for tests of
   * the engine rather than of the system), or a full `NetworkConfig` (e.g. one family on).
   */
  networkFaults(setting: "baseline" | "none" | NetworkConfig): this {
    this.networkFaultsSetting = checkNetworkFaultsSetting(setting);
    return this;
  }

  /**
   * Clock faults when there is no `Chaos.clock` entry: "baseline" (the default: `BASELINE_CLOCK_CONFIG`, per-process
   * offsets up to ±100 ms and rate errors up to ±0.1 %), "none" (every clock exact) or a fixed `ClockConfig` every seed
   * runs with (per-process offsets, rate errors and steps are still drawn per seed within it). See
   * `world/clock-config.ts` for what each clock promises.
   */
  clockFaults(setting: "baseline" | "none" | ClockConfig): this {
    this.clockFaultsSetting = checkClockFaultsSetting(setting);
    return this;
  }

  /** Host aliases (`{ db: "postgres-0" }`) and DNS faults without `Chaos.dns` (docs/node-runtime.md, "Host names"). */
  dns(options: DnsOptions): this {
    this.dnsSetting = checkDnsOptions(options, this.dnsSetting);
    return this;
  }

  /**
   * A fixed storage configuration when there is no `Chaos.storage` entry (the default, "none":
   * realistic timing, every storage fault off). Start from `DEFAULT_STORAGE_CONFIG` and raise
   * the families to test, e.g. `{ ...DEFAULT_STORAGE_CONFIG, crashFaultProbability: 0.5 }`.
   */
  storageFaults(setting: "none" | StorageConfig): this {
    this.storageFaultsSetting = checkStorageFaultsSetting(setting);
    return this;
  }

  /** Tags for the last registered group: process i gets `values[i % values.length]` per key. */
  tags(dimensions: Readonly<Record<string, readonly string[]>>): this {
    const group = this.groups[this.groups.length - 1];
    if (group === undefined)
      throw new InvalidConfiguration("tags() must be called after processes(): it tags the last registered group");
    for (const [key, values] of Object.entries(dimensions)) {
      if (!Array.isArray(values) || values.length === 0)
        throw new InvalidConfiguration(`tags(): dimension '${key}' needs at least one value`);
    }
    this.groups[this.groups.length - 1] = { ...group, tags: { ...group.tags, ...dimensions } };
    return this;
  }

  /**
   * One workload object reused by every seed (client id 0). Its state carries over between
   * seeds; prefer `workloadFactory` (and exploration requires it).
   */
  workload(instance: Workload): this {
    checkWorkload(instance, "workload(instance)");
    this.workloadSpecs.push({ kind: "instance", count: WorkloadCount.fixed(1), create: () => instance });
    return this;
  }

  /** A fresh workload per seed. */
  workloadFactory(factory: () => Workload): this {
    if (typeof factory !== "function")
      throw new InvalidConfiguration("workloadFactory(factory): factory must be a function returning a new Workload");
    this.workloadSpecs.push({
      kind: "factory",
      count: WorkloadCount.fixed(1),
      create: () => checkWorkload(factory(), "workloadFactory(factory): factory()"),
    });
    return this;
  }

  /** `count` fresh workloads per seed; `factory(i)` gets the instance index. */
  workloads(count: WorkloadCount, factory: (index: number) => Workload): this {
    checkWorkloadCount(count);
    if (typeof factory !== "function")
      throw new InvalidConfiguration("workloads(count, factory): factory must be a function (index) => Workload");
    this.workloadSpecs.push({
      kind: "factory",
      count,
      create: (i) => checkWorkload(factory(i), "workloads(count, factory): factory(i)"),
    });
    return this;
  }

  invariant(invariant: Invariant): this {
    this.invariants.push(checkInvariant(invariant));
    return this;
  }

  /**
   * A liveness property: `converged` must hold within `withinMs` after the chaos window's end
   * (needs `chaosDuration`); otherwise the seed fails as "liveness", apart from safety violations.
   */
  liveness(property: LivenessProperty): this {
    this.livenessProperties.push(checkLivenessProperty(property));
    return this;
  }

  /** An invariant from a function (no per-seed state of its own). */
  invariantFn(name: string, observe: (query: TraceQuery, simTimeMs: number) => void): this {
    if (typeof observe !== "function") throw new InvalidConfiguration("invariantFn(name, fn): fn must be a function");
    return this.invariant({ name, observe });
  }

  setIterations(iterations: number): this {
    positiveInteger(iterations, "setIterations(n): n");
    this.iteration = { kind: "fixed", iterations };
    return this;
  }

  /** Seeds to run first, in order. Does not change the number of iterations. */
  setDebugSeeds(seeds: readonly number[]): this {
    for (const seed of seeds) checkSeed(seed, "setDebugSeeds: each seed");
    this.debugSeeds = seeds.slice();
    return this;
  }

  /** Seeds after the debug seeds derive from this base (default: the wall clock). */
  setBaseSeed(seed: number): this {
    checkSeed(seed, "setBaseSeed(seed)");
    this.baseSeed = seed;
    return this;
  }

  /** One budget of `timelines`, split by yield between fresh seeds and continuations (the default; D27). */
  campaignBudget(timelines: number): this {
    positiveInteger(timelines, "campaignBudget(timelines): timelines");
    this.iteration = { kind: "adaptive", timelines };
    return this;
  }

  /** Seeds until `quietSeeds` in a row reach no new sometimes-style signal and all seen are reached; at most `maxSeeds`. */
  untilCoverageStable(quietSeeds: number, maxSeeds: number, options: { readonly minSeeds?: number } = {}): this {
    positiveInteger(quietSeeds, "untilCoverageStable(quietSeeds, maxSeeds): quietSeeds");
    positiveInteger(maxSeeds, "untilCoverageStable(quietSeeds, maxSeeds): maxSeeds");
    const minSeeds = options.minSeeds ?? 0;
    if (!Number.isSafeInteger(minSeeds) || minSeeds < 0 || minSeeds > maxSeeds) {
      throw new InvalidConfiguration(
        `untilCoverageStable(quietSeeds, maxSeeds, { minSeeds }): minSeeds must be a whole number from 0 to maxSeeds (${maxSeeds}), got ${String(minSeeds)}`,
      );
    }
    this.iteration = { kind: "untilCoverageStable", quietSeeds, maxSeeds, ...(minSeeds > 0 ? { minSeeds } : {}) };
    return this;
  }

  /** Simulated time the setup and run phases may take before the seed fails (default 1 hour). */
  runTimeBudget(budgetMs: number): this {
    if (!(budgetMs > 0) || !Number.isFinite(budgetMs))
      throw new InvalidConfiguration(`runTimeBudget(ms): ms must be a positive number, got ${String(budgetMs)}`);
    this.runBudgetMs = budgetMs;
    return this;
  }

  /** Lowest trace level captured (default "info"; "debug" to debug one seed). */
  traceLevel(level: TraceLevel): this {
    this.level = checkTraceLevel(level, "traceLevel(level)");
    return this;
  }

  /**
   * Prints each seed's trace from `level` up once it ran (to `sink`, default stderr). Events below
   * the capture level (`traceLevel`) are printed only: the seed's trace, queries and hash stay the same.
   */
  printTrace(level: TraceLevel, sink?: (line: string) => void): this {
    this.tracePrinting = { level: checkTraceLevel(level, "printTrace(level)"), sink: sink ?? null };
    return this;
  }

  /**
   * Lets spawned tasks fail without failing the seed (their failure stays a `task_failed` warning
   * in the trace). By default a task that throws fails its seed, as an unhandled rejection would
   * crash a Node process; to allow it for one task only, catch inside that task's body.
   */
  allowTaskFailures(): this {
    this.taskFailuresFail = false;
    return this;
  }

  /** Runs before every seed (outside the simulation). */
  beforeIteration(hook: () => void): this {
    if (typeof hook !== "function") throw new InvalidConfiguration("beforeIteration(fn): fn must be a function");
    this.beforeHooks.push(hook);
    return this;
  }

  /** Enables the per-seed swarm of the operation alphabet (`swarmOpEnabled(opId)`). */
  swarmOperations(): this {
    this.swarmOps = true;
    return this;
  }

  /** "fast" (default) or "paranoid" (a macrotask per step; for differential testing). */
  steppingMode(mode: SteppingMode): this {
    if (mode !== "fast" && mode !== "paranoid")
      throw new InvalidConfiguration(`steppingMode(mode): mode must be "fast" or "paranoid", got ${String(mode)}`);
    this.mode = mode;
    return this;
  }

  /**
   * Lets simulated code call one guarded global or real-I/O module (GUARDED_GLOBALS). Its result is
   * real and unreplayable: allow only what cannot affect behaviour (a debug log file, say).
   */
  allowGlobal(name: string): this {
    if (!(GUARDED_GLOBALS as readonly string[]).includes(name)) {
      throw new InvalidConfiguration(
        `allowGlobal(name): unknown guarded global '${name}'; valid names: ${GUARDED_GLOBALS.join(", ")}`,
      );
    }
    this.allowed.add(name);
    return this;
  }

  /**
   * Runs unmodified Node code: timers, Date, performance.now, process.hrtime, Math.random and crypto randomness of
   * simulated code answer from the calling process's virtual clock, timers and random stream, and `fetch`, undici and
   * `dns` from the simulated network and host names, instead of failing the seed (docs/node-runtime.md).
   */
  nodeRuntime(enabled = true): this {
    this.virtualRuntime = enabled;
    return this;
  }

  /** Simulated processes' `node:fs` runs on their machine's simulated disk (needs nodeRuntime(); docs/node-runtime.md). */
  nodeFs(settings: NodeFsSettings = {}): this {
    this.fsOptions = checkNodeFsSettings(settings);
    return this;
  }

  /**
   * How seeds on workers are kept apart: "seed" (default) runs each in a fresh realm, so no module
   * state carries over; "shared" reuses realms (faster, replays not guaranteed). In-thread `run()`
   * always shares this realm, and its report says so (docs/decisions.md D21).
   */
  isolation(mode: IsolationMode): this {
    this.isolationMode = checkIsolationMode(mode, "isolation(mode)");
    return this;
  }

  /**
   * What an uncaught exception or an unhandled rejection in a process's code does. Either way the
   * process ends at that instant, as a Node process would (unless it listens with
   * `process.on('uncaughtException' | 'unhandledRejection')`). "failSeed" (default): the seed fails
   * too. "crashProcess": only the process crashes (a `process_crashed` trace event, and a `run()`
   * that rejects crashes it too), so workloads and invariants judge the effect and reboots bring it back.
   */
  processErrors(mode: ProcessErrorMode): this {
    if (!PROCESS_ERROR_MODES.includes(mode)) {
      throw new InvalidConfiguration(
        `processErrors(mode): mode must be ${PROCESS_ERROR_MODES.map((m) => `"${m}"`).join(" or ")}, got ${JSON.stringify(mode)}`,
      );
    }
    this.processErrorMode = mode;
    return this;
  }

  /** Whether console.* from simulated code becomes trace events (default true). */
  captureConsole(enabled: boolean): this {
    this.consoleCapture = enabled;
    return this;
  }

  /** Steps at one simulated instant before the seed fails as a busy loop (default 1,000,000). */
  maxStepsPerInstant(steps: number): this {
    positiveInteger(steps, "maxStepsPerInstant(n): n");
    this.maxStepsAtInstant = steps;
    return this;
  }

  /**
   * Explore in depth: branch timelines at assertion discoveries (explore/frontier.ts). With a
   * fixed or until-stable plan each root seed is explored for `maxRunsPerSeed` timelines, in
   * rounds of 8 roots merged in seed order; under the adaptive budget (the default) the settings
   * steer its frontier. `workers` N > 0 shares the work with N worker threads (needs
   * `simulationSource`); the outcome is the same for every N. Needs factory-built workloads.
   */
  enableExploration(config: Partial<ExplorationConfig> = {}): this {
    this.exploration = resolveExplorationConfig(config);
    return this;
  }

  /**
   * Where worker threads rebuild this simulation from (closures cannot cross threads): the module (absolute path or
   * `file:` URL; `import.meta.url` inside it) and the name of its export that builds exactly this simulation — a
   * function returning this SimulationBuilder (called without arguments), a `defineSimulation({ name, build })`, or
   * the builder instance itself. Settings added to the builder after that export are not seen by the workers:
   * `run()` compares the two configurations and refuses a mismatch. Needed by `enableExploration({ workers: N })`.
   */
  simulationSource(module: string, exportName: string): this {
    this.source = checkSimulationSource(module, exportName, "simulationSource(module, exportName)");
    return this;
  }

  /**
   * Replays one timeline: the root `seed` with the exploration `recipe` (text like
   * `"151@8837201 -> 80@1293847"` from a bug report, or its parsed form). `run()` then runs
   * exactly that timeline. `overrides` (text like `"injector=off,window=750"` from `moonpool shrink`,
   * or the shrinker's object; fields left out override nothing) replays a shrunk run.
   */
  replayTimeline(
    seed: number,
    recipe: string | Recipe = "",
    overrides: string | Partial<TimelineOverrides> = "",
  ): this {
    checkSeed(seed, "replayTimeline(seed, recipe): seed");
    const parsedRecipe = typeof recipe === "string" ? parseRecipe(recipe) : checkRecipe(recipe);
    const parsedOverrides =
      typeof overrides === "string" ? parseOverrides(overrides) : { ...NO_OVERRIDES, ...overrides };
    this.replay = { seed, recipe: parsedRecipe, overrides: parsedOverrides };
    return this;
  }

  /**
   * Runs every seed of the configured campaign twice and compares them draw by draw; returns the first divergence
   * found (with the stacks of the diverging draw), or null when all seeds match. With `{ against: report }` (an
   * earlier run) it checks that run's seeds instead: it warns first when the run was made with another Node or V8,
   * then compares each seed's hash with the recorded one.
   */
  async checkDeterminism(options: DeterminismOptions = {}): Promise<DeterminismReport> {
    const config = this.build();
    return checkDeterminism(config, seedsForCheck(config, this.replay?.seed ?? null), options);
  }

  /** The validated configuration (used by `run()` and by the explorer). */
  build(): SimulationConfig {
    checkCombination({
      groups: this.groups,
      workloadKinds: this.workloadSpecs.map((w) => w.kind),
      fixedWorkloads: this.workloadSpecs.reduce((n, s) => n + (s.count.maxExclusive - 1), 0),
      exploration: this.exploration,
      replaying: this.replay !== null,
      hasSource: this.source !== null,
      chaosPlan: this.chaosPlan,
      networkFaults: this.networkFaultsSetting,
      clockFaults: this.clockFaultsSetting,
      storageFaults: this.storageFaultsSetting,
      chaosDurationMs: this.chaosDurationMs,
      hasFaultFactory: this.injectorFactory !== null,
      hasLinkLatency: this.linkLatencyConfig !== null,
      hasLiveness: this.livenessProperties.length > 0,
    });
    return withOverrides(
      {
        groups: this.groups.slice(),
        workloads: this.workloadSpecs.slice(),
        invariants: this.invariants.slice(),
        ...(this.livenessProperties.length === 0 ? {} : { liveness: this.livenessProperties.slice() }),
        iteration: this.iteration,
        debugSeeds: this.debugSeeds.slice(),
        baseSeed: this.baseSeed,
        runTimeBudgetMs: this.runBudgetMs,
        traceLevel: this.level,
        printTrace: this.tracePrinting,
        beforeIteration: this.beforeHooks.slice(),
        swarmOperations: this.swarmOps,
        steppingMode: this.mode,
        allowedGlobals: new Set(this.allowed),
        captureConsole: this.consoleCapture,
        maxStepsPerInstant: this.maxStepsAtInstant,
        exploration: this.replay !== null ? null : this.exploration,
        chaos: this.chaosPlan,
        networkFaults: this.networkFaultsSetting,
        clockFaults: this.clockFaultsSetting,
        ...dnsConfigFields(this.dnsSetting),
        storageFaults: this.storageFaultsSetting,
        chaosDurationMs: this.chaosDurationMs,
        faultFactory: this.injectorFactory,
        linkLatency: this.linkLatencyConfig,
        source: this.source,
        taskFailuresFailSeed: this.taskFailuresFail,
        nodeRuntime: this.virtualRuntime,
        nodeFs: withNodeRuntime(this.fsOptions, this.virtualRuntime),
        ...(this.isolationMode === undefined ? {} : { isolation: this.isolationMode }),
        processErrors: this.processErrorMode,
      },
      this.replay?.overrides ?? NO_OVERRIDES,
    );
  }

  /**
   * Runs the campaign and returns its report. Never throws for a failing seed: read the report. `workers` (default
   * 0): N > 0 runs the seeds in a pool of N worker threads started for this run (needs `simulationSource`; not with
   * exploration, which has its own `workers`). Every seed's result, hash included, is the same as in this thread.
   * `hangTimeoutMs` (default 60 s): with workers, a seed fails, alone, as hung when no engine step of it starts.
   */
  async run(options: { readonly workers?: number; readonly hangTimeoutMs?: number } = {}): Promise<SimulationReport> {
    const config = this.build();
    if (this.replay !== null)
      return new Campaign(config).run({ seeds: [this.replay.seed], breakpoints: this.replay.recipe });
    return new Campaign(config).run({ ...options, workers: options.workers ?? 0 });
  }
}
