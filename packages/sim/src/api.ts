/**
 * `@moonpool/sim`: what a simulation is written with. The builder and its contexts, assertions
 * (and everything else of @moonpool/core), chaos, the report, and the `moonpool` command's file
 * API. Tuning constants and fault tables are in `@moonpool/sim/tuning`; the engine, world and
 * explorer in `@moonpool/sim/internal`. `index.ts` is this repository's barrel of all of them.
 */
export * from "@moonpool/core";
export { SimulationBuilder } from "./runner/builder.ts";
export type { NodeFsSettings } from "./runner/node-fs-settings.ts";
export {
  WorkloadCount,
  type Process,
  type Workload,
  type Invariant,
  type SimContext,
  type ProcessCount,
} from "./runner/user-interfaces.ts";
export { Topology } from "./runner/topology.ts";
export { StateBoard } from "./runner/state-board.ts";
export { SimulationReport, SimulationFailed, type SaturationReport, type ReportIsolation } from "./runner/report.ts";
export { formatDuration, formatCount } from "./runner/report-format.ts";
export type { SeedResult, SeedFailure, SeedFailureKind, Discovery } from "./runner/seed-result.ts";
export {
  TraceCursor,
  TraceEvent,
  SIM_FAULT_EVENT_NAME,
  CONSOLE_EVENT_NAME,
  type TraceQuery,
} from "./world/trace-log.ts";
export type { GuardedGlobal } from "./engine/escape-guard.ts";
export type { SteppingMode } from "./engine/engine.ts";
export { Http2TlsInSimulation } from "./world/node-net/http2.ts";
export { FetchTlsInSimulation } from "./world/node-net/undici-errors.ts";
export type { ExplorationConfig, ExplorationSettings } from "./explore/config.ts";
export type { SimulationSource } from "./runner/simulation-source.ts";
export type { BugRecipe, ExplorationReport, RootExploration } from "./explore/index.ts";
export { formatRecipe, parseRecipe, childSeed, RecipeParseError, type Recipe } from "./engine/recipe.ts";
export type { DeterminismReport, SeedDivergence, DrawSite } from "./runner/determinism.ts";
export type { DeterminismOptions, RecordedHashMismatch, RecordedRun } from "./runner/determinism.ts";
export { Chaos, type ChaosMode, type ChaosPlan } from "./chaos/chaos.ts";
export {
  shrinkTimeline,
  NothingToShrink,
  type ShrinkOptions,
  type ShrinkProgress,
  type ShrinkResult,
} from "./runner/shrink/shrinker.ts";
export type { RunSize } from "./runner/shrink/measure.ts";
export {
  explainFailure,
  ExplainError,
  type ExplainCurve,
  type ExplainCut,
  type ExplainOptions,
  type ExplainResult,
  type WindowEvent,
} from "./runner/explain.ts";
export type { DoomConflict, DoomCurve, DoomCutPoint, TimedCutPoint } from "./runner/doom.ts";
export { LIVENESS_CONVERGED_EVENT, type LivenessProperty } from "./runner/liveness.ts";
export { IsolatedRuns, type IsolatedOutcome } from "./runner/shrink/isolated-runs.ts";
export {
  parseOverrides,
  formatOverrides,
  OverridesParseError,
  type TimelineOverrides,
} from "./runner/shrink/overrides.ts";
export type { NetworkChaosRecord, NetworkFaultsSetting, SwarmNetworkFamily } from "./chaos/network-chaos.ts";
export type {
  NetworkConfig,
  LatencyDistribution,
  NetworkLatencyShapes,
  ConnectFailureMode,
  PartitionStrategy,
  RangeUs,
} from "./world/network/config.ts";
export { markConnectionStable } from "./world/network/index.ts";
export type { FaultInjector, FaultContext } from "./runner/fault-context.ts";
export type { SeedChaosRecord } from "./runner/seed-chaos.ts";
export type { RebootKind, RebootCause, RebootStats, DelayRangeMs } from "./runner/process-lifecycle.ts";
export {
  AttritionVictims,
  type AttritionConfig,
  type AttritionScope,
  type AttritionPlan,
  type AttritionChaosRecord,
  type AttritionSwarmMask,
} from "./chaos/attrition.ts";
export type { StorageChaosRecord, SwarmStorageFamily } from "./chaos/storage-config.ts";
export type { StorageConfig } from "./world/storage/index.ts";
export type {
  DomainLevel,
  Locality,
  LocalityConfig,
  LinkLatencyConfig,
  LinkDistance,
  RangeMs,
} from "./runner/locality.ts";
export {
  defineSimulation,
  defineConfig,
  isSimulationDefinition,
  type SimulationDefinition,
  type SimulationSpec,
  type MoonpoolConfig,
  type ReporterName,
} from "./cli/define.ts";
// Histories and the linearizability checker.
export * from "./linearizability/index.ts";
// Simulated metrics: the query API and ASCII time-series graphs.
export {
  MetricQuery,
  renderAsciiGraph,
  type Aggregation,
  type RangeOptions,
  type SampledSeries,
  type SeriesMatch,
  type AsciiGraphOptions,
  type GraphMark,
  type GraphSeries,
  type SeriesSamples,
} from "./world/metrics/index.ts";
export type { SeedAttachment } from "./runner/seed-result.ts";
// Per-process clocks and the chaos window.
export type { ChaosWindowView } from "./runner/seed-chaos.ts";
export type { ClockChaosRecord, ClockFaultsSetting, SwarmClockFamily } from "./chaos/clock-chaos.ts";
export type { DnsChaosRecord, DnsFaultsSetting, SwarmDnsFamily } from "./chaos/dns-chaos.ts";
export type { DnsFaultConfig } from "./world/node-net/dns-table.ts";
export type { DnsOptions } from "./runner/dns-options.ts";
export type { ClockConfig } from "./world/clock-config.ts";
