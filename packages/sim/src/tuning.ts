/**
 * `@moonpool/sim/tuning`: the numbers and tables behind the defaults: builder limits, time
 * budgets, chaos ranges and swarm families, fault-kind tables, storage and locality presets, and
 * the functions that turn chaos records into the words reports print.
 */
export { MAX_PROCESSES_PER_GROUP, MAX_PROCESS_GROUPS, MAX_WORKLOADS } from "./runner/builder.ts";
export { REPORT_SCHEMA_VERSION } from "./runner/report.ts";
export {
  DEFAULT_CAMPAIGN_TIMELINES,
  DEFAULT_ITERATION_CONTROL,
  DEFAULT_RUN_TIME_BUDGET_MS,
  DEFAULT_STOP_RULE,
  SETTLE_BUDGET_MS,
} from "./runner/config.ts";
export { CAMPAIGN_BATCH_TIMELINES, FAILURE_REWARD, MAX_PROBE_INTERVAL_BATCHES } from "./explore/budget-allocator.ts";
export { GUARDED_GLOBALS } from "./engine/escape-guard.ts";
export { DEFAULT_MAX_STEPS_PER_INSTANT, YIELD_AFTER_WALL_MS } from "./engine/engine.ts";
export { MAX_SEED } from "./engine/rng.ts";
export { DEFAULT_EXPLORATION } from "./explore/config.ts";
export { MAX_UNPRODUCTIVE_BATCHES } from "./explore/frontier.ts";
export { CHAOS_MODES } from "./chaos/chaos.ts";
export {
  NETWORK_BASELINE,
  RANDOM_NETWORK_RANGES,
  SWARM_NETWORK_FAMILIES,
  SWARM_FAMILY_OFF_PROBABILITY,
  NETWORK_KNOBS,
  describeNetworkChaos,
} from "./chaos/network-chaos.ts";
export {
  NETWORK_NO_FAULTS,
  NETWORK_FAULT_KINDS,
  NETWORK_BUGGIFY_IDS,
  BASELINE_LATENCY,
  DEFAULT_CONNECT_TIMEOUT_US,
} from "./world/network/config.ts";
export { RANDOM_CLOSE_LOCAL_SEND_ABOVE, RANDOM_CLOSE_PEER_RECV_BELOW } from "./world/network/index.ts";
export { DEFAULT_MANUAL_PARTITION_MS } from "./runner/fault-context.ts";
export { CHAOS_ENDED_ASSERTION, describeSeedChaos } from "./runner/seed-chaos.ts";
export {
  REBOOT_KINDS,
  PROCESS_FAULT_KINDS,
  REBOOT_ASSERTIONS,
  DEFAULT_RECOVERY_DELAY_MS,
  DEFAULT_GRACE_PERIOD_MS,
} from "./runner/process-lifecycle.ts";
export {
  ATTRITION_SCOPES,
  SWARM_ATTRITION_FIELDS,
  SWARM_ATTRITION_OFF_PROBABILITY,
  describeAttritionChaos,
} from "./chaos/attrition.ts";
export { ATTRITION_ASSERTIONS, ATTRITION_INTERVAL_MS } from "./runner/attrition-injector.ts";
export {
  RANDOM_STORAGE_RANGES,
  SWARM_STORAGE_FAMILIES,
  STORAGE_KNOBS,
  randomStorageConfig,
  swarmStorageConfig,
  applyStorageKnobs,
  describeStorageConfig,
  describeStorageChaos,
} from "./chaos/storage-config.ts";
export {
  STORAGE_FAULT_KINDS,
  SECTOR_SIZE_BYTES,
  MAX_SIM_FILE_SIZE_BYTES,
  MAX_UNSYNCED_CHANGES_PER_FILE,
  DEFAULT_STORAGE_CONFIG,
  FAST_LOCAL_STORAGE_CONFIG,
} from "./world/storage/index.ts";
export { DEFAULT_LINK_LATENCY, DOMAIN_LEVELS } from "./runner/locality.ts";
// Clock chaos: random ranges, swarm families, knobs and the fault kinds.
export { RANDOM_CLOCK_RANGES, SWARM_CLOCK_FAMILIES, CLOCK_KNOBS, describeClockChaos } from "./chaos/clock-chaos.ts";
export { RANDOM_DNS_RANGES, SWARM_DNS_FAMILIES, describeDnsChaos } from "./chaos/dns-chaos.ts";
export { DNS_NO_FAULTS } from "./world/node-net/dns-table.ts";
export {
  CLOCK_FAULT_KINDS,
  CLOCK_RATE_ERROR_LIMIT,
  BASELINE_CLOCK_CONFIG,
  EXACT_CLOCK_CONFIG,
  SAMPLE_CLOCK_CONFIG,
} from "./world/clock-config.ts";
