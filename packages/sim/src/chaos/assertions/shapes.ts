/** The public data shapes of the assertion table: kinds, discoveries and what the report reads. */
import type { AssertionDetails, BooleanAssertionKind, EachValue, NumericComparison } from "@moonpool/core";

export type AssertionKind =
  | BooleanAssertionKind
  | "numericAlways"
  | "numericSometimes"
  | "sometimesAll"
  | "sometimesEach";

export type AssertionStatus = "PASS" | "FAIL" | "MISS";

/** What made a call a discovery (a coordinate the explorer can branch from). */
export type DiscoveryKind =
  | "firstPass" // a sometimes/reachable site passed for the first time in the campaign
  | "watermark" // a numeric-sometimes distance improved (or was evaluated for the first time)
  | "frontier" // a sometimes-all site reached a new best number of simultaneous truths
  | "combination" // a sometimes-all site saw a new partial combination of true propositions
  | "newBucket" // a sometimes-each call created a bucket
  | "betterQuality"; // a sometimes-each bucket got a strictly better quality

export interface Discovery {
  readonly kind: DiscoveryKind;
  readonly message: string;
  /**
   * What was discovered: the message, or for a sometimes-each bucket the message plus the
   * bucket's hash. `AssertionTable.visits(key)` tells how often that state has been seen.
   */
  readonly key: string;
  /** `sim` stream segment at the call (0 before any recipe breakpoint). */
  readonly segment: number;
  /** `sim` stream draws made in that segment before the call. */
  readonly drawCount: number;
  readonly seed: number;
}

/** Where discoveries are located: the counted `sim` RandomStream satisfies it. */
export interface DrawCoordinates {
  readonly segment: number;
  readonly calls: number;
}

/**
 * Told once per (seed, message) when an always-family assertion is violated (or an assertion is
 * misused), so the runner fails the seed. `text` is the human-readable failure; `stack()` is where
 * the assertion was called from, formatted only when asked for (most failing timelines of an
 * exploration are never reported, and formatting a stack costs more than the rest of the call).
 */
export type ViolationCallback = (text: string, stack?: () => string | undefined, message?: string) => void;

export interface AssertionFailureRecord {
  /** Seed of the first failure; null when it happened outside `beginSeed`/`endSeed`. */
  readonly seed: number | null;
  readonly text: string;
  readonly details: AssertionDetails | null;
}

export interface AssertionDetail {
  readonly message: string;
  readonly kind: AssertionKind;
  /** Numeric kinds only. */
  readonly comparison: NumericComparison | null;
  /** The `@moonpool/core` function that owns this message (`assertAlwaysGreaterThan`, ...). */
  readonly functionName: string;
  /** sometimesAll: every call counts as a pass (the frontier tells how close it came). */
  readonly passCount: number;
  readonly failCount: number;
  /** Numeric kinds: the left operand at the best distance; null otherwise or if never comparable. */
  readonly watermark: number | null;
  /** sometimesAll: best number of simultaneously true propositions; null otherwise. */
  readonly frontier: number | null;
  /** sometimesAll: number of propositions; null otherwise. */
  readonly propositions: number | null;
  readonly status: AssertionStatus;
  readonly firstFailure: AssertionFailureRecord | null;
}

export interface BucketSummary {
  /** Identity values as given (first MAX_EACH_KEYS keys). */
  readonly identity: Readonly<Record<string, EachValue>>;
  readonly hits: number;
  /** Best quality seen (clamped values, keys of that call); null if never given. */
  readonly bestQuality: Readonly<Record<string, number>> | null;
}

export interface BucketSiteSummary {
  readonly message: string;
  readonly bucketsDiscovered: number;
  readonly totalHits: number;
  /** Sorted by hits, highest first (ties: discovery order). */
  readonly buckets: readonly BucketSummary[];
}

export interface AssertionStats {
  readonly totalChecks: number;
  readonly successes: number;
}

export interface ContractViolations {
  /** Safety: always-family failures, reached unreachables, misuse. Non-empty means a bug or a bad harness. */
  readonly assertionViolations: string[];
  /** Coverage: sometimes-family sites that never passed. */
  readonly coverageViolations: string[];
}

/** What the bounded tables could not hold. All zero in a healthy campaign. */
export interface AssertionOverflow {
  readonly maxSites: number;
  readonly maxEachBuckets: number;
  /** Calls to sites that could not be allocated because the site table was full. */
  readonly droppedSiteCalls: number;
  /** First few distinct messages of dropped sites. */
  readonly droppedSiteMessages: readonly string[];
  /** Calls that would have created a bucket while the bucket table was full. */
  readonly droppedBucketCalls: number;
  /** First few distinct site messages whose new buckets were dropped. */
  readonly droppedBucketMessages: readonly string[];
  /** Always-family failures on dropped sites (they still failed their seed). */
  readonly untrackedAlwaysFailures: number;
  /** Discoveries dropped because a seed exceeded MAX_SEED_DISCOVERIES (summed over seeds). */
  readonly droppedDiscoveries: number;
  /** Misuse reports beyond MAX_MISUSE_ENTRIES (counted, not listed). */
  readonly droppedMisuseReports: number;
}

/** The UntilCoverageStable gate: every observed sometimes/reachable site reached, and at least one exists. */
export interface SometimesCoverage {
  /** Observed sometimes, reachable and sometimesAll sites. */
  readonly total: number;
  /** Of those, passed at least once (sometimesAll: all propositions true together once). */
  readonly hit: number;
  /** Observed boolean sometimes/reachable sites (the gate needs at least one). */
  readonly booleanTotal: number;
  /** Messages not reached yet, in first-seen order. */
  readonly unreached: readonly string[];
}

export interface AssertionTableOptions {
  readonly maxSites?: number;
  readonly maxEachBuckets?: number;
  readonly maxEachKeys?: number;
  readonly maxSeedDiscoveries?: number;
}
