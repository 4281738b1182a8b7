/** The validated configuration a `SimulationBuilder` produces; read by the seed runner. */
import type { LivenessProperty } from "./liveness.ts";
import type { IsolationMode } from "./isolation.ts";
import type { TracePrinting } from "./trace-printing.ts";
import type { TraceLevel } from "@moonpool/core";
import type { SteppingMode } from "../engine/engine.ts";
import type { Invariant, Process, ProcessCount, Workload } from "./user-interfaces.ts";
import type { WorkloadCount } from "./user-interfaces.ts";
import type { ExplorationConfig } from "../explore/config.ts";
import type { ChaosPlan } from "../chaos/chaos.ts";
import type { NetworkFaultsSetting } from "../chaos/network-chaos.ts";
import type { ClockFaultsSetting } from "../chaos/clock-chaos.ts";
import type { DnsFaultsSetting } from "../chaos/dns-chaos.ts";
import type { StorageConfig } from "../world/storage/config.ts";
import type { NodeFsOptions } from "../world/node-fs/index.ts";
import type { FaultInjector } from "./fault-context.ts";
import type { LinkLatencyConfig, LocalityConfig } from "./locality.ts";
import type { SimulationSource } from "./simulation-source.ts";
import type { TimelineOverrides } from "./shrink/overrides.ts";
import type { ProcessErrorMode } from "./process-errors.ts";

export interface ProcessGroupSpec {
  /** The group name: the process's `name`. */
  readonly name: string;
  readonly count: ProcessCount;
  readonly factory: () => Process;
  /** Tag dimensions: each process i gets `values[i % values.length]` per key. */
  readonly tags: Readonly<Record<string, readonly string[]>>;
  /** Set for the `.cluster(...)` group: its count is the product of the locality counts drawn per seed. */
  readonly locality?: LocalityConfig;
}

export interface WorkloadSpec {
  /** "instance": one object reused by every seed; otherwise a factory builds fresh ones. */
  readonly kind: "instance" | "factory";
  readonly count: WorkloadCount;
  readonly create: (index: number) => Workload;
}

export type IterationControl =
  | { readonly kind: "fixed"; readonly iterations: number }
  | {
      readonly kind: "untilCoverageStable";
      readonly quietSeeds: number;
      readonly maxSeeds: number;
      /** Seeds spent before coverage may stop the campaign (absent: none). */
      readonly minSeeds?: number;
    }
  /** One budget of timelines, split adaptively between fresh seeds and continuations (`campaignBudget`). */
  | { readonly kind: "adaptive"; readonly timelines: number };

/**
 * The default campaign budget in timelines: random seeds alone miss a bug that fails 0.5 % of them
 * with probability 0.995^1000 = 0.7 %, and the adaptive split keeps nearly all of the budget on
 * fresh seeds where exploration does not pay (docs/decisions.md D27). Under `moonpool run` every
 * fresh root seed gets a fresh realm (D21), about 0.3 to 0.6 s of CPU each: the budget is also a
 * bound on that cost.
 */
export const DEFAULT_CAMPAIGN_TIMELINES = 1000;

/** Default iteration control: the adaptive campaign with `DEFAULT_CAMPAIGN_TIMELINES`. */
export const DEFAULT_ITERATION_CONTROL: IterationControl = {
  kind: "adaptive",
  timelines: DEFAULT_CAMPAIGN_TIMELINES,
};

/** The stop rule `untilCoverageStable` and `moonpool run --quick` default to: 10 quiet seeds, at most 1,000 seeds. */
export const DEFAULT_STOP_RULE = {
  kind: "untilCoverageStable",
  quietSeeds: 10,
  maxSeeds: 1000,
} as const satisfies IterationControl;
/** Default run-time budget: one simulated hour. */
export const DEFAULT_RUN_TIME_BUDGET_MS = 3_600_000;
/** Settling after processes stop may take at most five simulated minutes. */
export const SETTLE_BUDGET_MS = 300_000;

export interface SimulationConfig {
  readonly groups: readonly ProcessGroupSpec[];
  readonly workloads: readonly WorkloadSpec[];
  readonly invariants: readonly Invariant[];
  readonly iteration: IterationControl;
  readonly debugSeeds: readonly number[];
  /** Seeds after the debug seeds derive from this; undefined = from the wall clock. */
  readonly baseSeed: number | undefined;
  readonly runTimeBudgetMs: number;
  readonly traceLevel: TraceLevel;
  /** `printTrace(level)`: print each seed's trace; absent or null: do not. */
  readonly printTrace?: TracePrinting | null;
  readonly beforeIteration: readonly (() => void)[];
  readonly swarmOperations: boolean;
  readonly steppingMode: SteppingMode;
  readonly allowedGlobals: ReadonlySet<string>;
  readonly captureConsole: boolean;
  readonly maxStepsPerInstant: number;
  /** Null when exploration is off. */
  readonly exploration: ExplorationConfig | null;
  /** The `enableChaos([...])` surfaces. */
  readonly chaos: ChaosPlan;
  /** The network configuration without a `Chaos.network` entry (default: the baseline). */
  readonly networkFaults: NetworkFaultsSetting;
  /** Clock faults without a `Chaos.clock` entry (default "baseline": `BASELINE_CLOCK_CONFIG`). */
  readonly clockFaults?: ClockFaultsSetting;
  /** DNS faults without a `Chaos.dns` entry (default "none"). */
  readonly dnsFaults?: DnsFaultsSetting;
  /** Extra host names (`hostAlias(name, target)`): alias to a process, group or alias name or an IPv4 address. */
  readonly hostAliases?: Readonly<Record<string, string>>;
  /** A fixed storage configuration without a `Chaos.storage` entry (default: storage faults off). */
  readonly storageFaults?: StorageConfig | null;
  /** The chaos window after the run phase starts, or null (faults for the whole run, no injectors). */
  readonly chaosDurationMs: number | null;
  /** Builds a fresh fault injector per seed; runs only inside the chaos window. */
  readonly faultFactory: (() => FaultInjector) | null;
  /** Distance latency between the cluster's processes, or null. */
  readonly linkLatency: LinkLatencyConfig | null;
  /** Where worker threads rebuild this simulation from (`simulationSource`), or null. */
  readonly source: SimulationSource | null;
  /** A spawned task that fails fails its seed (default true; `allowTaskFailures()` turns it off). */
  readonly taskFailuresFailSeed?: boolean;
  /** Simulated code's timers, clocks and randomness are virtual instead of escapes (`nodeRuntime()`). */
  readonly nodeRuntime?: boolean;
  /** Simulated code's `node:fs` runs on the simulated disk (`nodeFs()`), or null. */
  readonly nodeFs?: NodeFsOptions | null;
  /**
   * Where seeds run on workers (`isolation()`): "seed", a fresh realm per seed (per root seed
   * when exploring); "shared", realms reused across seeds. Absent: "seed" (runner/isolation.ts).
   */
  readonly isolation?: IsolationMode;

  /** What an uncaught exception or unhandled rejection of a process does (`processErrors(mode)`; default "failSeed"). */
  readonly processErrors?: ProcessErrorMode;
  /** Liveness properties judged over the recovery tail (`liveness(...)`); absent: none. */
  readonly liveness?: readonly LivenessProperty[];
  /** A shrunk run's departures from the seed's own chaos and sizes (`runner/shrink/overrides.ts`); absent: none. */
  readonly overrides?: TimelineOverrides;
}
