/**
 * `SimulationBuilder`: the fluent configuration of a campaign. Mistakes that can be seen at the
 * call (a bad count, tags before processes) throw `InvalidConfiguration` right there; mistakes
 * of combination throw from `run()` before any seed starts.
 */
import { InvalidConfiguration, TRACE_LEVEL_ORDER, type TraceLevel } from "@moonpool/core";
import { DEFAULT_MAX_STEPS_PER_INSTANT, type SteppingMode } from "../engine/engine.ts";
import { GUARDED_GLOBALS } from "../engine/escape-guard.ts";
import { assertSeed, deriveSeed } from "../engine/rng.ts";
import { resolveExplorationConfig, type ExplorationConfig } from "./exploration-config.ts";
import { checkSimulationSource, type SimulationSource } from "./simulation-source.ts";
import { checkRecipe, parseRecipe, type Recipe } from "../engine/recipe.ts";
import { checkDeterminism, type DeterminismReport } from "./determinism.ts";
import type { TraceQuery } from "../world/trace-log.ts";
import { Campaign } from "./campaign.ts";
import { applyChaosEntries, chaosPlanErrors, NO_CHAOS, type Chaos, type ChaosPlan } from "../chaos/chaos.ts";
import { attritionErrors } from "../chaos/attrition.ts";
import type { NetworkFaultsSetting } from "../chaos/network-chaos.ts";
import type { ClockFaultsSetting } from "../chaos/clock-chaos.ts";
import { clockConfigErrors, type ClockConfig } from "../world/clock-config.ts";
import { validateStorageConfig, type StorageConfig } from "../world/storage/config.ts";
import { networkConfigErrors, type NetworkConfig } from "../world/network/config.ts";
import type { FaultInjector } from "./fault-context.ts";
import { checkLinkLatency, DEFAULT_LINK_LATENCY, localityCountRange, type LinkLatencyConfig, type LocalityConfig } from "./locality.ts";
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

/** Addresses are `10.0.{group}.{index + 1}`: at most 254 processes per group, 255 groups. */
export const MAX_PROCESSES_PER_GROUP = 254;
export const MAX_PROCESS_GROUPS = 255;
export const MAX_WORKLOADS = 254;

function positiveInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidConfiguration(`${what} must be a positive integer, got ${String(value)}`);
  }
}

function checkProcess(p: unknown, where: string): Process {
  const proc = p as Partial<Process> | null;
  if (proc === null || typeof proc !== "object" || typeof proc.name !== "string" || proc.name.length === 0 || typeof proc.run !== "function") {
    throw new InvalidConfiguration(`${where} must return an object with a non-empty 'name' and an async 'run(ctx)' method`);
  }
  if (!/^[A-Za-z0-9_.-]+$/.test(proc.name)) {
    throw new InvalidConfiguration(`process name '${proc.name}' (${where}) may only contain letters, digits, '_', '.' and '-': it names the group and its actors`);
  }
  return proc as Process;
}

function checkWorkload(w: unknown, where: string): Workload {
  const wl = w as Partial<Workload> | null;
  if (wl === null || typeof wl !== "object" || typeof wl.name !== "string" || wl.name.length === 0 || typeof wl.run !== "function") {
    throw new InvalidConfiguration(`${where} must be an object with a non-empty 'name' and an async 'run(ctx)' method`);
  }
  return wl as Workload;
}

export class SimulationBuilder {
  private readonly groups: ProcessGroupSpec[] = [];
  private readonly workloadSpecs: WorkloadSpec[] = [];
  private readonly invariants: Invariant[] = [];
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
  private maxStepsAtInstant = DEFAULT_MAX_STEPS_PER_INSTANT;
  private exploration: ExplorationConfig | null = null;
  private replay: { seed: number; recipe: Recipe } | null = null;
  private chaosPlan: ChaosPlan = NO_CHAOS;
  private networkFaultsSetting: NetworkFaultsSetting = "baseline";
  private clockFaultsSetting: ClockFaultsSetting = "none";
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
    if (typeof factory !== "function") throw new InvalidConfiguration("processes(count, factory): factory must be a function returning a new Process");
    if (typeof count === "number") {
      positiveInteger(count, "processes(count): count");
      if (count > MAX_PROCESSES_PER_GROUP) throw new InvalidConfiguration(`processes(count): at most ${MAX_PROCESSES_PER_GROUP} processes per group, got ${count}`);
    } else {
      const [min, max] = count;
      positiveInteger(min, "processes([min, max]): min");
      positiveInteger(max, "processes([min, max]): max");
      if (min > max) throw new InvalidConfiguration(`processes([min, max]): min ${min} is greater than max ${max}`);
      if (max > MAX_PROCESSES_PER_GROUP) throw new InvalidConfiguration(`processes([min, max]): at most ${MAX_PROCESSES_PER_GROUP} processes per group, got max ${max}`);
    }
    // The factory runs once now to learn the group's name.
    const name = checkProcess(factory(), "processes(count, factory): factory").name;
    if (this.groups.some((g) => g.name === name)) {
      throw new InvalidConfiguration(`processes(): a group named '${name}' is already registered; call processes() once per role (or give the roles different names)`);
    }
    if (this.groups.length >= MAX_PROCESS_GROUPS) throw new InvalidConfiguration(`at most ${MAX_PROCESS_GROUPS} process groups`);
    const checkedFactory = () => checkProcess(factory(), `the factory of process group '${name}'`);
    this.groups.push({ name, count: typeof count === "number" ? count : [count[0], count[1]], factory: checkedFactory, tags: {} });
    return this;
  }

  /**
   * Registers one role laid out as a cluster: `config` gives datacenters, zones
   * per datacenter, machines per zone and processes per machine, each fixed or `[min, max]` drawn
   * per seed; the group's size is their product. It is an ordinary group otherwise (named after
   * the process, `10.0.{n}.x` addresses, `.tags()` applies to it), and only its processes have a
   * locality (`ctx.topology.myLocality`, `ipsInDomain`, ...). Other `.processes()` groups can sit
   * beside it; one cluster per simulation.
   */
  cluster(config: LocalityConfig, factory: () => Process): this {
    if (typeof factory !== "function") throw new InvalidConfiguration("cluster(config, factory): factory must be a function returning a new Process");
    if (this.groups.some((g) => g.locality !== undefined)) {
      throw new InvalidConfiguration("cluster(): a cluster is already registered; lay out every located process in one cluster(config, factory) and add other roles with processes()");
    }
    const [min, max] = localityCountRange(config, MAX_PROCESSES_PER_GROUP);
    const name = checkProcess(factory(), "cluster(config, factory): factory").name;
    if (this.groups.some((g) => g.name === name)) {
      throw new InvalidConfiguration(`cluster(): a group named '${name}' is already registered; give the cluster's process another name`);
    }
    if (this.groups.length >= MAX_PROCESS_GROUPS) throw new InvalidConfiguration(`at most ${MAX_PROCESS_GROUPS} process groups`);
    const checkedFactory = () => checkProcess(factory(), `the factory of cluster group '${name}'`);
    this.groups.push({ name, count: min === max ? min : [min, max], factory: checkedFactory, tags: {}, locality: Object.freeze({ ...config }) });
    return this;
  }

  /**
   * Latency that grows with distance between the cluster's processes: every connect and chunk
   * between two located processes gets a draw from the range of their distance (same machine <
   * same zone < same datacenter < across datacenters), on top of the network's own latency.
   * Without arguments: `DEFAULT_LINK_LATENCY`. Needs `.cluster(...)`.
   */
  linkLatency(config: LinkLatencyConfig = DEFAULT_LINK_LATENCY): this {
    this.linkLatencyConfig = checkLinkLatency(config);
    return this;
  }

  /**
   * Chaos surfaces, e.g. `[Chaos.network("swarm"), Chaos.buggifyKnobs()]`. Entries accumulate over
   * calls; a later entry overrides an earlier one for the same surface. Without a network entry
   * every seed runs the baseline network faults (see `networkFaults`); without a storage
   * entry (`Chaos.storage(mode)`) storage faults are off; without `Chaos.attrition(config, mode)`
   * no process is rebooted (except by a fault injector). Attrition entries are kept one per victim
   * pool (a later entry for the same victims replaces the earlier one).
   */
  enableChaos(entries: readonly Chaos[]): this {
    this.chaosPlan = applyChaosEntries(this.chaosPlan, entries);
    return this;
  }

  /**
   * The chaos window: `durationMs` of simulated time from the start of the run phase. At its end
   * the world enters recovery mode: no new fault of any configuration-driven family, every
   * partition healed, fault injectors stopped; damage already done stays. Leave the workload a
   * recovery segment after it. Without it, configuration faults last the whole run and fault
   * injectors never run.
   */
  chaosDuration(durationMs: number): this {
    if (typeof durationMs !== "number" || !(durationMs > 0) || !Number.isFinite(durationMs)) {
      throw new InvalidConfiguration(`chaosDuration(ms): ms must be a positive number of simulated milliseconds, got ${String(durationMs)}`);
    }
    this.chaosDurationMs = durationMs;
    return this;
  }

  /** A fresh fault injector per seed, run only inside the chaos window (needs `chaosDuration`). */
  faultFactory(factory: () => FaultInjector): this {
    if (typeof factory !== "function") throw new InvalidConfiguration("faultFactory(factory): factory must be a function returning a new FaultInjector { name, inject(ctx) }");
    this.injectorFactory = factory;
    return this;
  }

  /**
   * The network configuration when there is no `Chaos.network` entry: "baseline" (the default,
   * see docs/fault-catalogue.md: timing variation, connect failures, partial I/O, rare corruption and close,
   * clock drift, buggified sleep delay), "none" (baseline timing, no fault at all: for tests of
   * the engine rather than of the system), or a full `NetworkConfig` (e.g. one family on).
   */
  networkFaults(setting: "baseline" | "none" | NetworkConfig): this {
    if (setting === "baseline" || setting === "none") {
      this.networkFaultsSetting = setting;
      return this;
    }
    if (setting === null || typeof setting !== "object") {
      throw new InvalidConfiguration(`networkFaults(setting): setting must be "baseline", "none" or a NetworkConfig object, got ${JSON.stringify(setting) ?? String(setting)}`);
    }
    const errors = networkConfigErrors(setting);
    if (errors.length > 0) throw new InvalidConfiguration(`networkFaults(config): ${errors.join("; ")}`);
    this.networkFaultsSetting = Object.freeze({ ...setting });
    return this;
  }

  /**
   * Clock faults when there is no `Chaos.clock` entry: "none" (the default: every wall clock
   * exact) or a fixed `ClockConfig` every seed runs with (per-process offsets, rate errors and
   * steps are still drawn per seed within it). See `world/clock-config.ts` for what each clock
   * promises.
   */
  clockFaults(setting: "none" | ClockConfig): this {
    if (setting === "none") {
      this.clockFaultsSetting = setting;
      return this;
    }
    if (setting === null || typeof setting !== "object") {
      throw new InvalidConfiguration(`clockFaults(setting): setting must be "none" or a ClockConfig object, got ${JSON.stringify(setting) ?? String(setting)}`);
    }
    const errors = clockConfigErrors(setting);
    if (errors.length > 0) throw new InvalidConfiguration(`clockFaults(config): ${errors.join("; ")}`);
    this.clockFaultsSetting = Object.freeze({ ...setting });
    return this;
  }

  /**
   * A fixed storage configuration when there is no `Chaos.storage` entry (the default, "none":
   * realistic timing, every storage fault off). Start from `DEFAULT_STORAGE_CONFIG` and raise
   * the families to test, e.g. `{ ...DEFAULT_STORAGE_CONFIG, crashFaultProbability: 0.5 }`.
   */
  storageFaults(setting: "none" | StorageConfig): this {
    if (setting === "none") {
      this.storageFaultsSetting = null;
      return this;
    }
    if (setting === null || typeof setting !== "object") {
      throw new InvalidConfiguration(`storageFaults(setting): setting must be "none" or a StorageConfig object, got ${JSON.stringify(setting) ?? String(setting)}`);
    }
    try {
      validateStorageConfig(setting);
    } catch (error) {
      throw new InvalidConfiguration(`storageFaults(config): ${error instanceof Error ? error.message : String(error)}`);
    }
    this.storageFaultsSetting = Object.freeze({ ...setting });
    return this;
  }

  /** Tags for the last registered group: process i gets `values[i % values.length]` per key. */
  tags(dimensions: Readonly<Record<string, readonly string[]>>): this {
    const group = this.groups[this.groups.length - 1];
    if (group === undefined) throw new InvalidConfiguration("tags() must be called after processes(): it tags the last registered group");
    for (const [key, values] of Object.entries(dimensions)) {
      if (!Array.isArray(values) || values.length === 0) throw new InvalidConfiguration(`tags(): dimension '${key}' needs at least one value`);
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
    if (typeof factory !== "function") throw new InvalidConfiguration("workloadFactory(factory): factory must be a function returning a new Workload");
    this.workloadSpecs.push({ kind: "factory", count: WorkloadCount.fixed(1), create: () => checkWorkload(factory(), "workloadFactory(factory): factory()") });
    return this;
  }

  /** `count` fresh workloads per seed; `factory(i)` gets the instance index. */
  workloads(count: WorkloadCount, factory: (index: number) => Workload): this {
    if (!(count instanceof WorkloadCount)) throw new InvalidConfiguration("workloads(count, factory): count must be WorkloadCount.fixed(n) or WorkloadCount.random(lo, hi)");
    if (!Number.isSafeInteger(count.min) || count.min < 0 || !Number.isSafeInteger(count.maxExclusive) || count.maxExclusive <= count.min) {
      throw new InvalidConfiguration(`workloads(): invalid count ${count.describe()}: fixed(n) needs n >= 0, random(lo, hi) needs 0 <= lo < hi`);
    }
    if (count.maxExclusive - 1 > MAX_WORKLOADS) throw new InvalidConfiguration(`workloads(): at most ${MAX_WORKLOADS} workloads, got ${count.describe()}`);
    if (typeof factory !== "function") throw new InvalidConfiguration("workloads(count, factory): factory must be a function (index) => Workload");
    this.workloadSpecs.push({ kind: "factory", count, create: (i) => checkWorkload(factory(i), "workloads(count, factory): factory(i)") });
    return this;
  }

  invariant(invariant: Invariant): this {
    if (invariant === null || typeof invariant !== "object" || typeof invariant.observe !== "function" || typeof invariant.name !== "string") {
      throw new InvalidConfiguration("invariant(i): i must have a 'name' and an 'observe(query, simTimeMs)' method");
    }
    this.invariants.push(invariant);
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
    for (const seed of seeds) {
      try {
        assertSeed(seed, "setDebugSeeds: each seed");
      } catch (error) {
        throw new InvalidConfiguration((error as Error).message);
      }
    }
    this.debugSeeds = seeds.slice();
    return this;
  }

  /** Seeds after the debug seeds derive from this base (default: the wall clock). */
  setBaseSeed(seed: number): this {
    try {
      assertSeed(seed, "setBaseSeed(seed)");
    } catch (error) {
      throw new InvalidConfiguration((error as Error).message);
    }
    this.baseSeed = seed;
    return this;
  }

  /**
   * Run seeds until `quietSeeds` consecutive seeds reach no new sometimes/reachable assertion and
   * every one reached so far has passed, at most `maxSeeds` (the default: 10 and 1,000).
   */
  untilCoverageStable(quietSeeds: number, maxSeeds: number, options: { readonly minSeeds?: number } = {}): this {
    positiveInteger(quietSeeds, "untilCoverageStable(quietSeeds, maxSeeds): quietSeeds");
    positiveInteger(maxSeeds, "untilCoverageStable(quietSeeds, maxSeeds): maxSeeds");
    const minSeeds = options.minSeeds ?? 0;
    if (!Number.isSafeInteger(minSeeds) || minSeeds < 0 || minSeeds > maxSeeds) {
      throw new InvalidConfiguration(`untilCoverageStable(quietSeeds, maxSeeds, { minSeeds }): minSeeds must be a whole number from 0 to maxSeeds (${maxSeeds}), got ${String(minSeeds)}`);
    }
    this.iteration = { kind: "untilCoverageStable", quietSeeds, maxSeeds, ...(minSeeds > 0 ? { minSeeds } : {}) };
    return this;
  }

  /** Simulated time the setup and run phases may take before the seed fails (default 1 hour). */
  runTimeBudget(budgetMs: number): this {
    if (!(budgetMs > 0) || !Number.isFinite(budgetMs)) throw new InvalidConfiguration(`runTimeBudget(ms): ms must be a positive number, got ${String(budgetMs)}`);
    this.runBudgetMs = budgetMs;
    return this;
  }

  /** Lowest trace level captured (default "info"; "debug" to debug one seed). */
  traceLevel(level: TraceLevel): this {
    if (!(level in TRACE_LEVEL_ORDER)) throw new InvalidConfiguration(`traceLevel(level): level must be one of ${Object.keys(TRACE_LEVEL_ORDER).join(", ")}, got ${String(level)}`);
    this.level = level;
    return this;
  }

  /** Prints each seed's trace from `level` up once it ran (to `sink`, default stderr), capturing down to `level`. */
  printTrace(level: TraceLevel, sink?: (line: string) => void): this {
    const floor = this.level;
    this.traceLevel(level).tracePrinting = { level, sink: sink ?? null }; // checks the level
    if (TRACE_LEVEL_ORDER[floor] < TRACE_LEVEL_ORDER[level]) this.level = floor;
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
    if (mode !== "fast" && mode !== "paranoid") throw new InvalidConfiguration(`steppingMode(mode): mode must be "fast" or "paranoid", got ${String(mode)}`);
    this.mode = mode;
    return this;
  }

  /**
   * Lets simulated code call one guarded global (e.g. "Date" for a library that formats dates) or
   * one real-I/O module ("fs", "net", "http", "fetch", "dns", ...: see GUARDED_GLOBALS). The result
   * is real and unreplayable, and real I/O completes outside simulated time: allow only what
   * cannot affect behaviour (a debug log file, say).
   */
  allowGlobal(name: string): this {
    if (!(GUARDED_GLOBALS as readonly string[]).includes(name)) {
      throw new InvalidConfiguration(`allowGlobal(name): unknown guarded global '${name}'; valid names: ${GUARDED_GLOBALS.join(", ")}`);
    }
    this.allowed.add(name);
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
   * Explore each root seed in depth: branch timelines at assertion discoveries (see
   * explore/frontier.ts for the policy). Needs factory-built workloads.
   *
   * `workers` (default 0): 0 runs every continuation in this thread; N > 0 runs the continuations
   * of each frontier entry in a pool of N worker threads (one per core is the sweet spot:
   * `os.availableParallelism()`). The outcome (bugs, recipes, statistics) is the same for every
   * N: each batch of continuations is a round that starts from one table snapshot and is merged
   * in child order. Workers rebuild the simulation themselves, so they need `simulationSource`.
   */
  enableExploration(config: Partial<ExplorationConfig> = {}): this {
    this.exploration = resolveExplorationConfig(config);
    return this;
  }

  /**
   * Where worker threads rebuild this simulation from (closures cannot cross threads): the
   * module (absolute path or `file:` URL; `import.meta.url` inside it) and the name of its export
   * that builds exactly this simulation — a function returning this SimulationBuilder (called
   * without arguments), a `defineSimulation({ name, build })`, or the builder instance itself.
   * Settings added to the builder after that export are not seen by the workers: `run()` compares
   * the two configurations and refuses a mismatch. Needed by `enableExploration({ workers: N })`.
   */
  simulationSource(module: string, exportName: string): this {
    this.source = checkSimulationSource(module, exportName, "simulationSource(module, exportName)");
    return this;
  }

  /**
   * Replays one timeline: the root `seed` with the exploration `recipe` (text like
   * `"151@8837201 -> 80@1293847"` from a bug report, or its parsed form). `run()` then runs
   * exactly that timeline.
   */
  replayTimeline(seed: number, recipe: string | Recipe = ""): this {
    try {
      assertSeed(seed, "replayTimeline(seed, recipe): seed");
    } catch (error) {
      throw new InvalidConfiguration((error as Error).message);
    }
    this.replay = { seed, recipe: typeof recipe === "string" ? parseRecipe(recipe) : checkRecipe(recipe) };
    return this;
  }

  /**
   * Runs every seed of the configured campaign twice and compares them draw by draw; returns the
   * first divergence found (with the stacks of the diverging draw), or null when all seeds match.
   */
  async checkDeterminism(): Promise<DeterminismReport> {
    const config = this.build();
    return checkDeterminism(config, this.seedsForCheck(config));
  }

  private seedsForCheck(config: SimulationConfig): number[] {
    if (this.replay !== null) return [this.replay.seed];
    const count = config.iteration.kind === "fixed" ? config.iteration.iterations : Math.max(config.debugSeeds.length, 1);
    const base = config.baseSeed ?? 0;
    return Array.from({ length: count }, (_, i) => (i < config.debugSeeds.length ? config.debugSeeds[i]! : deriveSeed(base, i)));
  }

  /** The validated configuration (used by `run()` and by the explorer). */
  build(): SimulationConfig {
    if (this.workloadSpecs.length === 0) {
      throw new InvalidConfiguration("no workloads: add .workloadFactory(() => new MyWorkload()) (or .workloads(count, factory)); a workload drives the system and ends the seed");
    }
    if (this.exploration !== null && this.workloadSpecs.some((w) => w.kind === "instance")) {
      throw new InvalidConfiguration(
        "exploration replays every timeline from the start and needs fresh workloads: replace .workload(instance) with .workloadFactory(() => new MyWorkload())",
      );
    }
    if (this.replay === null && this.exploration !== null && this.exploration.workers > 0 && this.source === null) {
      throw new InvalidConfiguration(
        `enableExploration({ workers: ${this.exploration.workers} }) runs continuations in worker threads, which cannot receive this builder's closures: ` +
          `add .simulationSource(import.meta.url, "exportName") naming the export of your module that builds this simulation ` +
          `(a function returning the SimulationBuilder, a defineSimulation(...), or the builder itself), or use workers: 0`,
      );
    }
    const fixedWorkloads = this.workloadSpecs.reduce((n, s) => n + (s.count.maxExclusive - 1), 0);
    if (fixedWorkloads > MAX_WORKLOADS) throw new InvalidConfiguration(`at most ${MAX_WORKLOADS} workloads in total, the registrations allow ${fixedWorkloads}`);
    this.checkChaos();
    return {
      groups: this.groups.slice(),
      workloads: this.workloadSpecs.slice(),
      invariants: this.invariants.slice(),
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
      storageFaults: this.storageFaultsSetting,
      chaosDurationMs: this.chaosDurationMs,
      faultFactory: this.injectorFactory,
      linkLatency: this.linkLatencyConfig,
      source: this.source,
      taskFailuresFailSeed: this.taskFailuresFail,
    };
  }

  /** Combination mistakes of the chaos settings. */
  private checkChaos(): void {
    const errors = chaosPlanErrors(this.chaosPlan);
    if (this.injectorFactory !== null && this.chaosDurationMs === null) {
      errors.push("faultFactory(...) needs a chaos window: add .chaosDuration(ms); fault injectors run only between the start of the run phase and the cutoff");
    }
    if (this.chaosPlan.network !== null && this.networkFaultsSetting !== "baseline") {
      errors.push(`networkFaults(${typeof this.networkFaultsSetting === "string" ? `"${this.networkFaultsSetting}"` : "config"}) contradicts Chaos.network("${this.chaosPlan.network}"): keep one of them`);
    }
    if (this.chaosPlan.clock !== undefined && this.clockFaultsSetting !== "none") {
      errors.push(`clockFaults(config) contradicts Chaos.clock("${this.chaosPlan.clock}"): keep one of them`);
    }
    if (this.chaosPlan.storage !== undefined && this.storageFaultsSetting !== null) {
      errors.push(`storageFaults(config) contradicts Chaos.storage("${this.chaosPlan.storage}"): keep one of them`);
    }
    if (this.linkLatencyConfig !== null && !this.groups.some((g) => g.locality !== undefined)) {
      errors.push("linkLatency(...) needs localities: lay the processes out with .cluster(config, factory)");
    }
    const groups = this.groups.map((g) => ({ name: g.name, tags: g.tags, cluster: g.locality !== undefined }));
    errors.push(...attritionErrors(this.chaosPlan.attrition ?? [], groups, this.chaosDurationMs));
    if (errors.length > 0) throw new InvalidConfiguration(errors.join("; "));
  }

  /** Runs the campaign and returns its report. Never throws for a failing seed: read the report. */
  async run(): Promise<SimulationReport> {
    const config = this.build();
    if (this.replay !== null) return new Campaign(config).run({ seeds: [this.replay.seed], breakpoints: this.replay.recipe });
    return new Campaign(config).run();
  }
}
