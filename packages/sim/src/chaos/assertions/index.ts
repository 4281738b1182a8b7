/** The campaign-wide assertion table and everything a runner, explorer or report reads from it. */
export { AssertionTable } from "./table.ts";
export {
  MAX_ASSERTION_SITES,
  MAX_DROPPED_MESSAGES_KEPT,
  MAX_EACH_BUCKETS,
  MAX_EACH_KEYS,
  MAX_EACH_QUALITY_KEYS,
  MAX_EACH_QUALITY_VALUE,
  MAX_MISUSE_ENTRIES,
  MAX_SEED_DISCOVERIES,
} from "./limits.ts";
export { assertionFunctionName } from "./naming.ts";
export type {
  AssertionDetail,
  AssertionFailureRecord,
  AssertionKind,
  AssertionOverflow,
  AssertionStats,
  AssertionStatus,
  AssertionTableOptions,
  BucketSiteSummary,
  BucketSummary,
  ContractViolations,
  Discovery,
  DiscoveryKind,
  DrawCoordinates,
  SometimesCoverage,
  ViolationCallback,
} from "./shapes.ts";
export type { AssertionTableState } from "./state.ts";
