/**
 * The checks behind `SimulationBuilder`'s methods: each throws `InvalidConfiguration` with a
 * message naming the call and what to change, or returns the value the builder keeps.
 */
import { InvalidConfiguration, TRACE_LEVEL_ORDER, type TraceLevel } from "@moonpool/core";
import { attritionErrors } from "../chaos/attrition.ts";
import { chaosPlanErrors, type ChaosPlan } from "../chaos/chaos.ts";
import type { ClockFaultsSetting } from "../chaos/clock-chaos.ts";
import type { NetworkFaultsSetting } from "../chaos/network-chaos.ts";
import { assertSeed } from "../engine/rng.ts";
import { clockConfigErrors, type ClockConfig } from "../world/clock-config.ts";
import { networkConfigErrors, type NetworkConfig } from "../world/network/config.ts";
import { validateStorageConfig, type StorageConfig } from "../world/storage/config.ts";
import type { ProcessGroupSpec } from "./config.ts";
import type { ExplorationConfig } from "../explore/config.ts";
import { WorkloadCount, type Invariant, type Process, type ProcessCount, type Workload } from "./user-interfaces.ts";

/** Addresses are `10.0.{group}.{index + 1}`: at most 254 processes per group, 255 groups. */
export const MAX_PROCESSES_PER_GROUP = 254;
export const MAX_PROCESS_GROUPS = 255;
export const MAX_WORKLOADS = 254;

export function positiveInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidConfiguration(`${what} must be a positive integer, got ${String(value)}`);
  }
}

/** `assertSeed` with the builder's error type. */
export function checkSeed(seed: number, what: string): void {
  try {
    assertSeed(seed, what);
  } catch (error) {
    throw new InvalidConfiguration((error as Error).message);
  }
}

export function checkProcess(p: unknown, where: string): Process {
  const proc = p as Partial<Process> | null;
  if (
    proc === null ||
    typeof proc !== "object" ||
    typeof proc.name !== "string" ||
    proc.name.length === 0 ||
    typeof proc.run !== "function"
  ) {
    throw new InvalidConfiguration(
      `${where} must return an object with a non-empty 'name' and an async 'run(ctx)' method`,
    );
  }
  if (!/^[A-Za-z0-9_.-]+$/.test(proc.name)) {
    throw new InvalidConfiguration(
      `process name '${proc.name}' (${where}) may only contain letters, digits, '_', '.' and '-': it names the group and its actors`,
    );
  }
  return proc as Process;
}

export function checkWorkload(w: unknown, where: string): Workload {
  const wl = w as Partial<Workload> | null;
  if (
    wl === null ||
    typeof wl !== "object" ||
    typeof wl.name !== "string" ||
    wl.name.length === 0 ||
    typeof wl.run !== "function"
  ) {
    throw new InvalidConfiguration(`${where} must be an object with a non-empty 'name' and an async 'run(ctx)' method`);
  }
  return wl as Workload;
}

/** The count of `processes(count, factory)`: a fixed count or a `[min, max]` range. */
export function checkProcessCount(count: ProcessCount): void {
  if (typeof count === "number") {
    positiveInteger(count, "processes(count): count");
    if (count > MAX_PROCESSES_PER_GROUP)
      throw new InvalidConfiguration(
        `processes(count): at most ${MAX_PROCESSES_PER_GROUP} processes per group, got ${count}`,
      );
    return;
  }
  const [min, max] = count;
  positiveInteger(min, "processes([min, max]): min");
  positiveInteger(max, "processes([min, max]): max");
  if (min > max) throw new InvalidConfiguration(`processes([min, max]): min ${min} is greater than max ${max}`);
  if (max > MAX_PROCESSES_PER_GROUP)
    throw new InvalidConfiguration(
      `processes([min, max]): at most ${MAX_PROCESSES_PER_GROUP} processes per group, got max ${max}`,
    );
}

/** A new group's name must be free and the group count within bounds; `call` names the method. */
export function checkNewGroup(groups: readonly ProcessGroupSpec[], name: string, call: string, hint: string): void {
  if (groups.some((g) => g.name === name))
    throw new InvalidConfiguration(`${call}: a group named '${name}' is already registered; ${hint}`);
  if (groups.length >= MAX_PROCESS_GROUPS)
    throw new InvalidConfiguration(`at most ${MAX_PROCESS_GROUPS} process groups`);
}

export function checkWorkloadCount(count: WorkloadCount): void {
  if (!(count instanceof WorkloadCount))
    throw new InvalidConfiguration(
      "workloads(count, factory): count must be WorkloadCount.fixed(n) or WorkloadCount.random(lo, hi)",
    );
  if (
    !Number.isSafeInteger(count.min) ||
    count.min < 0 ||
    !Number.isSafeInteger(count.maxExclusive) ||
    count.maxExclusive <= count.min
  ) {
    throw new InvalidConfiguration(
      `workloads(): invalid count ${count.describe()}: fixed(n) needs n >= 0, random(lo, hi) needs 0 <= lo < hi`,
    );
  }
  if (count.maxExclusive - 1 > MAX_WORKLOADS)
    throw new InvalidConfiguration(`workloads(): at most ${MAX_WORKLOADS} workloads, got ${count.describe()}`);
}

/** `networkFaults(setting)`: a preset name, or a checked and frozen `NetworkConfig`. */
export function checkNetworkFaultsSetting(setting: "baseline" | "none" | NetworkConfig): NetworkFaultsSetting {
  if (setting === "baseline" || setting === "none") return setting;
  if (setting === null || typeof setting !== "object") {
    throw new InvalidConfiguration(
      `networkFaults(setting): setting must be "baseline", "none" or a NetworkConfig object, got ${JSON.stringify(setting) ?? String(setting)}`,
    );
  }
  const errors = networkConfigErrors(setting);
  if (errors.length > 0) throw new InvalidConfiguration(`networkFaults(config): ${errors.join("; ")}`);
  return Object.freeze({ ...setting });
}

/** `clockFaults(setting)`: "baseline", "none", or a checked and frozen `ClockConfig`. */
export function checkClockFaultsSetting(setting: "baseline" | "none" | ClockConfig): ClockFaultsSetting {
  if (setting === "baseline" || setting === "none") return setting;
  if (setting === null || typeof setting !== "object") {
    throw new InvalidConfiguration(
      `clockFaults(setting): setting must be "baseline", "none" or a ClockConfig object, got ${JSON.stringify(setting) ?? String(setting)}`,
    );
  }
  const errors = clockConfigErrors(setting);
  if (errors.length > 0) throw new InvalidConfiguration(`clockFaults(config): ${errors.join("; ")}`);
  return Object.freeze({ ...setting });
}

/** `storageFaults(setting)`: null for "none", or a checked and frozen `StorageConfig`. */
export function checkStorageFaultsSetting(setting: "none" | StorageConfig): StorageConfig | null {
  if (setting === "none") return null;
  if (setting === null || typeof setting !== "object") {
    throw new InvalidConfiguration(
      `storageFaults(setting): setting must be "none" or a StorageConfig object, got ${JSON.stringify(setting) ?? String(setting)}`,
    );
  }
  try {
    validateStorageConfig(setting);
  } catch (error) {
    throw new InvalidConfiguration(`storageFaults(config): ${error instanceof Error ? error.message : String(error)}`);
  }
  return Object.freeze({ ...setting });
}

/** What `build()` checks across settings, before any seed runs. */
export interface BuilderSettings {
  readonly groups: readonly ProcessGroupSpec[];
  readonly workloadKinds: readonly ("instance" | "factory")[];
  readonly fixedWorkloads: number;
  readonly exploration: ExplorationConfig | null;
  readonly replaying: boolean;
  readonly hasSource: boolean;
  readonly chaosPlan: ChaosPlan;
  readonly networkFaults: NetworkFaultsSetting;
  readonly clockFaults: ClockFaultsSetting;
  readonly storageFaults: StorageConfig | null;
  readonly chaosDurationMs: number | null;
  readonly hasFaultFactory: boolean;
  readonly hasLinkLatency: boolean;
  readonly hasLiveness: boolean;
}

/** Checks the chaos window's length given to `builder.chaosDuration(ms)`. */
export function checkChaosDuration(durationMs: number): number {
  if (typeof durationMs !== "number" || !(durationMs > 0) || !Number.isFinite(durationMs)) {
    throw new InvalidConfiguration(
      `chaosDuration(ms): ms must be a positive number of simulated milliseconds, got ${String(durationMs)}`,
    );
  }
  return durationMs;
}

/** Checks the factory given to `builder.faultFactory(factory)`. */
export function checkFaultFactory<F>(factory: F): F {
  if (typeof factory !== "function")
    throw new InvalidConfiguration(
      "faultFactory(factory): factory must be a function returning a new FaultInjector { name, inject(ctx) }",
    );
  return factory;
}

/** Checks an invariant given to `builder.invariant(...)`. */
export function checkInvariant(invariant: Invariant): Invariant {
  if (
    invariant === null ||
    typeof invariant !== "object" ||
    typeof invariant.observe !== "function" ||
    typeof invariant.name !== "string"
  ) {
    throw new InvalidConfiguration("invariant(i): i must have a 'name' and an 'observe(query, simTimeMs)' method");
  }
  return invariant;
}

/** Throws on the first combination mistake of the workloads and exploration, then on all chaos mistakes at once. */
export function checkCombination(s: BuilderSettings): void {
  if (s.workloadKinds.length === 0) {
    throw new InvalidConfiguration(
      "no workloads: add .workloadFactory(() => new MyWorkload()) (or .workloads(count, factory)); a workload drives the system and ends the seed",
    );
  }
  if (s.exploration !== null && s.workloadKinds.includes("instance")) {
    throw new InvalidConfiguration(
      "exploration replays every timeline from the start and needs fresh workloads: replace .workload(instance) with .workloadFactory(() => new MyWorkload())",
    );
  }
  if (!s.replaying && s.exploration !== null && s.exploration.workers > 0 && !s.hasSource) {
    throw new InvalidConfiguration(
      `enableExploration({ workers: ${s.exploration.workers} }) runs continuations in worker threads, which cannot receive this builder's closures: ` +
        `add .simulationSource(import.meta.url, "exportName") naming the export of your module that builds this simulation ` +
        `(a function returning the SimulationBuilder, a defineSimulation(...), or the builder itself), or use workers: 0`,
    );
  }
  if (s.fixedWorkloads > MAX_WORKLOADS)
    throw new InvalidConfiguration(
      `at most ${MAX_WORKLOADS} workloads in total, the registrations allow ${s.fixedWorkloads}`,
    );
  const errors = chaosErrors(s);
  if (errors.length > 0) throw new InvalidConfiguration(errors.join("; "));
}

/** Combination mistakes of the chaos settings. */
function chaosErrors(s: BuilderSettings): string[] {
  const errors = chaosPlanErrors(s.chaosPlan);
  if (s.hasFaultFactory && s.chaosDurationMs === null) {
    errors.push(
      "faultFactory(...) needs a chaos window: add .chaosDuration(ms); fault injectors run only between the start of the run phase and the cutoff",
    );
  }
  if (s.hasLiveness && s.chaosDurationMs === null) {
    errors.push(
      "liveness(...) needs a chaos window: add .chaosDuration(ms); a liveness property must hold within its time after the window's end",
    );
  }
  if (s.chaosPlan.network !== null && s.networkFaults !== "baseline") {
    errors.push(
      `networkFaults(${typeof s.networkFaults === "string" ? `"${s.networkFaults}"` : "config"}) contradicts Chaos.network("${s.chaosPlan.network}"): keep one of them`,
    );
  }
  if (s.chaosPlan.clock !== undefined && s.clockFaults !== "baseline") {
    errors.push(
      `clockFaults(${typeof s.clockFaults === "string" ? `"${s.clockFaults}"` : "config"}) contradicts Chaos.clock("${s.chaosPlan.clock}"): keep one of them`,
    );
  }
  if (s.chaosPlan.storage !== undefined && s.storageFaults !== null) {
    errors.push(`storageFaults(config) contradicts Chaos.storage("${s.chaosPlan.storage}"): keep one of them`);
  }
  if (s.hasLinkLatency && !s.groups.some((g) => g.locality !== undefined)) {
    errors.push("linkLatency(...) needs localities: lay the processes out with .cluster(config, factory)");
  }
  const groups = s.groups.map((g) => ({ name: g.name, tags: g.tags, cluster: g.locality !== undefined }));
  errors.push(...attritionErrors(s.chaosPlan.attrition ?? [], groups, s.chaosDurationMs));
  return errors;
}

/** `level` when it is a trace level; otherwise an error that names the call and the valid levels. */
export function checkTraceLevel(level: TraceLevel, where: string): TraceLevel {
  if (level in TRACE_LEVEL_ORDER) return level;
  throw new InvalidConfiguration(
    `${where}: level must be one of ${Object.keys(TRACE_LEVEL_ORDER).join(", ")}, got ${String(level)}`,
  );
}
