// Public API of @moonpool/sim.
export { SimulationBuilder, MAX_PROCESSES_PER_GROUP, MAX_PROCESS_GROUPS, MAX_WORKLOADS } from "./runner/builder.ts";
export { WorkloadCount, type Process, type Workload, type Invariant, type SimContext, type ProcessCount } from "./runner/types.ts";
export { Topology } from "./runner/topology.ts";
export { StateBoard } from "./runner/state-board.ts";
export { SimulationReport, SimulationFailed, REPORT_SCHEMA_VERSION, type SaturationReport } from "./runner/report.ts";
export { formatDuration, formatCount } from "./runner/report-format.ts";
export type { SeedResult, SeedFailure, SeedFailureKind, Discovery } from "./runner/seed-result.ts";
export { DEFAULT_ITERATION_CONTROL, DEFAULT_RUN_TIME_BUDGET_MS, SETTLE_BUDGET_MS } from "./runner/config.ts";
export { TraceCursor, TraceEvent, SIM_FAULT_EVENT_NAME, CONSOLE_EVENT_NAME, type TraceQuery } from "./world/trace-log.ts";
export { GUARDED_GLOBALS, type GuardedGlobal } from "./engine/escape-guard.ts";
export { DEFAULT_MAX_STEPS_PER_INSTANT, YIELD_AFTER_WALL_MS, type SteppingMode } from "./engine/engine.ts";
export { MAX_SEED } from "./engine/rng.ts";
export type { ExplorationConfig, ExplorationSettings } from "./runner/exploration-config.ts";
export { DEFAULT_EXPLORATION } from "./runner/exploration-config.ts";
export type { SimulationSource } from "./runner/simulation-source.ts";
export type { BugRecipe, ExplorationReport, RootExploration } from "./runner/exploration.ts";
export { formatRecipe, parseRecipe, childSeed, RecipeParseError, type Recipe } from "./engine/recipe.ts";
export type { DeterminismReport, SeedDivergence, DrawSite } from "./runner/determinism.ts";
// Loading the explore layer registers the explorer as the runner's exploration strategy.
export { Explorer, Frontier, MAX_UNPRODUCTIVE_BATCHES } from "./explore/index.ts";
// Network chaos, cluster locality, fault injectors.
export { Chaos, CHAOS_MODES, type ChaosMode, type ChaosPlan } from "./chaos/chaos.ts";
export {
  NETWORK_BASELINE,
  RANDOM_NETWORK_RANGES,
  SWARM_NETWORK_FAMILIES,
  SWARM_FAMILY_OFF_PROBABILITY,
  NETWORK_KNOBS,
  describeNetworkChaos,
  type NetworkChaosRecord,
  type NetworkFaultsSetting,
  type SwarmNetworkFamily,
} from "./chaos/network-chaos.ts";
export {
  NETWORK_NO_FAULTS,
  NETWORK_FAULT_KINDS,
  NETWORK_BUGGIFY_IDS,
  BASELINE_LATENCY,
  type NetworkConfig,
  type LatencyDistribution,
  type NetworkLatencyShapes,
  type ConnectFailureMode,
  type PartitionStrategy,
  type RangeUs,
} from "./world/network/config.ts";
export { markConnectionStable, RANDOM_CLOSE_LOCAL_SEND_ABOVE, RANDOM_CLOSE_PEER_RECV_BELOW } from "./world/network/index.ts";
export { DEFAULT_MANUAL_PARTITION_MS, type FaultInjector, type FaultContext } from "./runner/fault-context.ts";
export { CHAOS_ENDED_ASSERTION, describeSeedChaos, type SeedChaosRecord } from "./runner/seed-chaos.ts";
// Process reboots and attrition.
export {
  REBOOT_KINDS,
  PROCESS_FAULT_KINDS,
  REBOOT_ASSERTIONS,
  DEFAULT_RECOVERY_DELAY_MS,
  DEFAULT_GRACE_PERIOD_MS,
  type RebootKind,
  type RebootCause,
  type RebootStats,
  type DelayRangeMs,
} from "./runner/reboot.ts";
export {
  AttritionVictims,
  ATTRITION_SCOPES,
  SWARM_ATTRITION_FIELDS,
  SWARM_ATTRITION_OFF_PROBABILITY,
  describeAttritionChaos,
  type AttritionConfig,
  type AttritionScope,
  type AttritionPlan,
  type AttritionChaosRecord,
  type AttritionSwarmMask,
} from "./chaos/attrition.ts";
export { ATTRITION_ASSERTIONS, ATTRITION_INTERVAL_MS } from "./runner/attrition-injector.ts";
// Storage chaos and the simulated storage's fault kinds.
export {
  RANDOM_STORAGE_RANGES,
  SWARM_STORAGE_FAMILIES,
  STORAGE_KNOBS,
  randomStorageConfig,
  swarmStorageConfig,
  applyStorageKnobs,
  describeStorageConfig,
  describeStorageChaos,
  type StorageChaosRecord,
  type SwarmStorageFamily,
} from "./chaos/storage-config.ts";
export {
  STORAGE_FAULT_KINDS,
  SECTOR_SIZE_BYTES,
  MAX_SIM_FILE_SIZE_BYTES,
  MAX_UNSYNCED_CHANGES_PER_FILE,
  DEFAULT_STORAGE_CONFIG,
  FAST_LOCAL_STORAGE_CONFIG,
  type StorageConfig,
} from "./world/storage/index.ts";
export { DEFAULT_LINK_LATENCY, DOMAIN_LEVELS, type DomainLevel, type Locality, type LocalityConfig, type LinkLatencyConfig, type LinkDistance, type RangeMs } from "./runner/locality.ts";
// The `moonpool` command's file API: what *.sim.ts files and moonpool.config.ts export.
export { defineSimulation, defineConfig, isSimulationDefinition, type SimulationDefinition, type SimulationSpec, type MoonpoolConfig, type ReporterName } from "./cli/define.ts";
export * from "@moonpool/core";
