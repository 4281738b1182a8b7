/**
 * The campaign-wide assertion table: the accounting behind the 15 assertion functions of
 * `@moonpool/core` (`assertAlways`, ..., `assertSometimesEach`).
 *
 * One table lives for a whole campaign and accumulates across every seed: pass/fail counts,
 * numeric watermarks, sometimes-all frontiers and each-buckets are never reset between seeds, and
 * neither are the discovery latches (a static boolean guides only the first seed that reaches it;
 * watermarks, frontiers and buckets let later seeds keep contributing).
 *
 * Semantics follow the spec rather than the Rust snapshot:
 * - numeric guidance tracks the distance `left - right` (gt/ge maximise, lt/le minimise) and the
 *   report shows the left operand at the best distance, so a dynamic threshold that grows with
 *   the value is not progress;
 * - `assertSometimesAll` is complete (PASS, no coverage gap) only once every proposition was true
 *   in the same call; partial truth combinations are discoveries too (a 64-bit per-site bitmap);
 * - reusing one message with another assertion function is a reported error, not silent mixing;
 * - bounded tables report what they dropped instead of silently losing guidance.
 *
 * Recording never throws: a violated always-family assertion is counted, its first occurrence
 * kept (seed, text, details), and the running seed is told through the `beginSeed` callback so
 * the runner can fail it. The report is the authority.
 */
import type { AssertionDetails, BooleanAssertionKind, EachValue, NumericComparison } from "@moonpool/core";

// --- limits -------------------------------------------------------------------------------------

/** Distinct assertion messages tracked per campaign (spec doc 000: 2048). Later sites are dropped and counted. */
export const MAX_ASSERTION_SITES = 2048;
/** `assertSometimesEach` buckets tracked per campaign, across all sites (spec: 256). */
export const MAX_EACH_BUCKETS = 256;
/** Identity values retained for display per bucket; further values still change the bucket hash. */
export const MAX_EACH_KEYS = 6;
/** Quality values per `assertSometimesEach` call; a call with more is rejected as a misuse. */
export const MAX_EACH_QUALITY_KEYS = 4;
/** Quality values are clamped to 0 ..= this (higher is better). */
export const MAX_EACH_QUALITY_VALUE = 32767;
/** Discoveries kept per seed (a watermark that improves every step would otherwise grow without bound). */
export const MAX_SEED_DISCOVERIES = 4096;
/** Dropped messages remembered (per overflow kind) so the report can name what was lost. */
export const MAX_DROPPED_MESSAGES_KEPT = 8;
/** Distinct misuse reports (kind mismatch, too many quality keys) kept; more are only counted. */
export const MAX_MISUSE_ENTRIES = 256;

// --- public shapes ------------------------------------------------------------------------------

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
 * misused), so the runner fails the seed. `text` is the human-readable failure; `stack` is where
 * the assertion was called from.
 */
export type ViolationCallback = (text: string, stack?: string, message?: string) => void;

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

// --- hashing ------------------------------------------------------------------------------------

const FNV_OFFSET_32 = 0x811c9dc5;
const FNV_PRIME_32 = 0x01000193;
const MIX_OFFSET_32 = 0x9747b28c;
const TWO_POW_21 = 2097152;

/** FNV-1a 32 over the UTF-16 code units of `text`, continuing from `hash`. */
function fnv1a(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME_32);
  }
  return h >>> 0;
}

/** A second, independent 32-bit string hash (multiply-rotate per code unit). */
function mixHash(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1e995);
    h = (h << 13) | (h >>> 19);
  }
  return h >>> 0;
}

/** murmur3 finaliser: spreads every input bit over the output. */
function fmix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One value of an identity, tagged by type so `1` and `"1"` are different buckets. */
function valueText(value: unknown): string {
  return `${typeof value === "number" ? "n" : typeof value === "boolean" ? "b" : "s"}${String(value)}\u0000`;
}

// --- naming -------------------------------------------------------------------------------------

const NUMERIC_SUFFIX: Record<NumericComparison, string> = {
  gt: "GreaterThan",
  ge: "GreaterThanOrEqualTo",
  lt: "LessThan",
  le: "LessThanOrEqualTo",
};

const FUNCTION_NAME: Record<AssertionKind, string> = {
  always: "assertAlways",
  alwaysOrUnreachable: "assertAlwaysOrUnreachable",
  sometimes: "assertSometimes",
  reachable: "assertReachable",
  unreachable: "assertUnreachable",
  numericAlways: "assertAlways",
  numericSometimes: "assertSometimes",
  sometimesAll: "assertSometimesAll",
  sometimesEach: "assertSometimesEach",
};

/** The `@moonpool/core` function name for a kind (numeric kinds need their comparison). */
export function assertionFunctionName(kind: AssertionKind, comparison: NumericComparison | null): string {
  const base = FUNCTION_NAME[kind];
  return comparison !== null && (kind === "numericAlways" || kind === "numericSometimes") ? base + NUMERIC_SUFFIX[comparison] : base;
}

function formatDetails(details: AssertionDetails | null): string {
  if (details === null) return "";
  const parts: string[] = [];
  for (const key of Object.keys(details)) parts.push(`${key}=${String(details[key])}`);
  return parts.length === 0 ? "" : ` {${parts.join(", ")}}`;
}

function compare(comparison: NumericComparison, left: number, right: number): boolean {
  switch (comparison) {
    case "gt":
      return left > right;
    case "ge":
      return left >= right;
    case "lt":
      return left < right;
    case "le":
      return left <= right;
  }
}

function positiveInteger(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`AssertionTable option ${what} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

// --- internal state -----------------------------------------------------------------------------

class Bucket {
  hits = 0;
  bestQuality: number[] | null = null;
  bestQualityKeys: string[] | null = null;
  constructor(readonly identity: Readonly<Record<string, EachValue>>) {}
}

class Site {
  passCount = 0;
  failCount = 0;
  firstFailure: AssertionFailureRecord | null = null;
  /** Numeric: best distance `left - right` so far; NaN until a comparable evaluation. */
  bestDistance = Number.NaN;
  bestLeft = Number.NaN;
  /** sometimesAll. */
  frontier = 0;
  propositions = 0;
  completed = false;
  combinationsLow = 0;
  combinationsHigh = 0;
  /** sometimesEach: buckets of this site in creation order. */
  readonly buckets: Bucket[] = [];

  constructor(
    readonly message: string,
    readonly kind: AssertionKind,
    readonly comparison: NumericComparison | null,
  ) {}
}

interface Misuse {
  readonly text: string;
  count: number;
}

interface SeedScope {
  readonly seed: number;
  readonly stream: DrawCoordinates;
  readonly onViolation: ViolationCallback | null;
  /** Messages already reported to the runner in this seed (one callback per message per seed). */
  readonly reported: Set<string>;
  discoveries: Discovery[];
}

/** Sentinels returned by `lookup` when a call is not recorded on a site. */
const DROPPED = 0;
const MISUSED = 1;

// --- the table ----------------------------------------------------------------------------------

export class AssertionTable {
  readonly maxSites: number;
  readonly maxEachBuckets: number;
  readonly maxEachKeys: number;
  readonly maxSeedDiscoveries: number;

  private readonly sites = new Map<string, Site>();
  /** Every bucket of every site, keyed by a 53-bit hash of (site, identity values). */
  private readonly buckets = new Map<number, Bucket>();
  private readonly misuses = new Map<string, Misuse>();
  /** Discovery key → the site or bucket whose visits measure its rarity. */
  private readonly counters = new Map<string, Site | Bucket>();
  private scope: SeedScope | null = null;

  private droppedSiteCalls = 0;
  private readonly droppedSiteMessages: string[] = [];
  private droppedBucketCalls = 0;
  private readonly droppedBucketMessages: string[] = [];
  private untrackedAlwaysFailures = 0;
  private readonly untrackedAlwaysMessages: string[] = [];
  private droppedDiscoveries = 0;
  private droppedMisuseReports = 0;

  constructor(options: AssertionTableOptions = {}) {
    this.maxSites = positiveInteger(options.maxSites, MAX_ASSERTION_SITES, "maxSites");
    this.maxEachBuckets = positiveInteger(options.maxEachBuckets, MAX_EACH_BUCKETS, "maxEachBuckets");
    this.maxEachKeys = positiveInteger(options.maxEachKeys, MAX_EACH_KEYS, "maxEachKeys");
    this.maxSeedDiscoveries = positiveInteger(options.maxSeedDiscoveries, MAX_SEED_DISCOVERIES, "maxSeedDiscoveries");
  }

  // --- seed lifecycle ---------------------------------------------------------------------------

  /**
   * Starts recording for one seed: discoveries are located on `stream` and attributed to `seed`;
   * `onViolation` is told once per violated message in this seed so the runner can fail it.
   */
  beginSeed(seed: number, stream: DrawCoordinates, onViolation?: ViolationCallback): void {
    if (this.scope !== null) {
      throw new Error(`AssertionTable.beginSeed(${seed}) while seed ${this.scope.seed} is still active: call endSeed() first`);
    }
    this.scope = { seed, stream, onViolation: onViolation ?? null, reported: new Set(), discoveries: [] };
  }

  /** Ends the seed and returns its discoveries in call order. Counts and latches stay. */
  endSeed(): Discovery[] {
    const scope = this.scope;
    this.scope = null;
    return scope === null ? [] : scope.discoveries;
  }

  /** Returns the discoveries of the running seed so far and clears that list. */
  takeDiscoveries(): Discovery[] {
    const scope = this.scope;
    if (scope === null) return [];
    const taken = scope.discoveries;
    scope.discoveries = [];
    return taken;
  }

  /** The seed being recorded, or null between seeds. */
  get currentSeed(): number | null {
    return this.scope === null ? null : this.scope.seed;
  }

  // --- recording (the SimulationHook surface) ---------------------------------------------------

  booleanAssertion(kind: BooleanAssertionKind, condition: boolean, message: string, details?: AssertionDetails): void {
    const holds = Boolean(condition);
    const site = this.lookup(message, kind, null);
    const violated = kind === "unreachable" || ((kind === "always" || kind === "alwaysOrUnreachable") && !holds);
    if (site === DROPPED) {
      if (violated) this.untrackedFailure(message, kind, null, details);
      return;
    }
    if (site === MISUSED) return;
    switch (kind) {
      case "always":
      case "alwaysOrUnreachable":
        if (holds) {
          site.passCount++;
        } else {
          site.failCount++;
          this.violation(site, `${FUNCTION_NAME[kind]}(${JSON.stringify(message)}) failed${formatDetails(details ?? null)}`, details ?? null);
        }
        return;
      case "unreachable":
        // pass_count = times reached, as in the Rust table.
        site.passCount++;
        this.violation(site, `assertUnreachable(${JSON.stringify(message)}) was reached${formatDetails(details ?? null)}`, details ?? null);
        return;
      case "sometimes":
      case "reachable":
        if (kind === "reachable" || holds) {
          site.passCount++;
          if (site.passCount === 1) this.discover("firstPass", message, site, message);
        } else {
          site.failCount++;
        }
        return;
    }
  }

  numericAssertion(
    family: "always" | "sometimes",
    comparison: NumericComparison,
    left: number,
    right: number,
    message: string,
    details?: AssertionDetails,
  ): void {
    const kind: AssertionKind = family === "always" ? "numericAlways" : "numericSometimes";
    const l = typeof left === "number" ? left : Number(left);
    const r = typeof right === "number" ? right : Number(right);
    // NaN operands compare false, so they fail (and are reported with their values).
    const holds = compare(comparison, l, r);
    const site = this.lookup(message, kind, comparison);
    if (site === DROPPED) {
      if (!holds && family === "always") this.untrackedFailure(message, kind, comparison, { left: l, right: r, ...details });
      return;
    }
    if (site === MISUSED) return;
    if (holds) site.passCount++;
    else site.failCount++;

    const distance = l - r;
    if (!Number.isNaN(distance)) {
      const maximize = comparison === "gt" || comparison === "ge";
      const best = site.bestDistance;
      if (Number.isNaN(best) || (maximize ? distance > best : distance < best)) {
        site.bestDistance = distance;
        site.bestLeft = l;
        // Always-family watermarks are for the report only: they never guide the search.
        if (family === "sometimes") this.discover("watermark", message, site, message);
      }
    }

    if (!holds && family === "always") {
      const fn = assertionFunctionName(kind, comparison);
      const all: AssertionDetails = { left: l, right: r, ...details };
      this.violation(site, `${fn}(${JSON.stringify(message)}) failed: left=${String(l)} right=${String(r)}${formatDetails(details ?? null)}`, all);
    }
  }

  sometimesAll(message: string, propositions: Readonly<Record<string, boolean>>): void {
    const site = this.lookup(message, "sometimesAll", null);
    if (site === DROPPED || site === MISUSED) return;
    if (propositions === null || typeof propositions !== "object") {
      this.misuse(message, "sometimesAll", `assertSometimesAll(${JSON.stringify(message)}) needs an object of named booleans, got ${String(propositions)}`);
      return;
    }
    let total = 0;
    let trueCount = 0;
    let setHash = 0;
    for (const name of Object.keys(propositions)) {
      total++;
      if (propositions[name]) {
        trueCount++;
        // Sum of per-name hashes: order-independent, so the combination is the *set* of true names.
        setHash = (setHash + fmix32(fnv1a(FNV_OFFSET_32, name))) >>> 0;
      }
    }
    site.passCount++;
    if (total > site.propositions) site.propositions = total;

    let discovery: DiscoveryKind | null = null;
    if (trueCount > site.frontier) {
      site.frontier = trueCount;
      discovery = "frontier";
    }
    if (trueCount > 0) {
      const bit = fmix32(setHash) & 63;
      const isNew = bit < 32 ? (site.combinationsLow & (1 << bit)) === 0 : (site.combinationsHigh & (1 << (bit - 32))) === 0;
      if (isNew) {
        if (bit < 32) site.combinationsLow |= 1 << bit;
        else site.combinationsHigh |= 1 << (bit - 32);
        discovery ??= "combination";
      }
    }
    if (total > 0 && trueCount === total) site.completed = true;
    if (discovery !== null) this.discover(discovery, message, site, message);
  }

  sometimesEach(message: string, identity: Readonly<Record<string, EachValue>>, quality?: Readonly<Record<string, number>>): void {
    const site = this.lookup(message, "sometimesEach", null);
    if (site === DROPPED || site === MISUSED) return;
    if (identity === null || typeof identity !== "object") {
      this.misuse(message, "sometimesEach", `assertSometimesEach(${JSON.stringify(message)}) needs an identity object, got ${String(identity)}`);
      return;
    }
    let qualityKeys: string[] | null = null;
    if (quality !== undefined && quality !== null) {
      qualityKeys = Object.keys(quality);
      if (qualityKeys.length > MAX_EACH_QUALITY_KEYS) {
        this.misuse(
          message,
          "sometimesEach",
          `assertSometimesEach(${JSON.stringify(message)}) was given ${qualityKeys.length} quality keys; at most ${MAX_EACH_QUALITY_KEYS} are supported (put the most important first, drop the rest)`,
        );
        return;
      }
      if (qualityKeys.length === 0) qualityKeys = null;
    }

    // Identity: every value in key order is hashed (names ignored); the first few are kept.
    const identityKeys = Object.keys(identity);
    let h1 = fnv1a(FNV_OFFSET_32, message);
    let h2 = mixHash(MIX_OFFSET_32, message);
    for (const key of identityKeys) {
      const text = valueText(identity[key]);
      h1 = fnv1a(h1, text);
      h2 = mixHash(h2, text);
    }
    const bucketKey = fmix32(h1) * TWO_POW_21 + (fmix32(h2) & (TWO_POW_21 - 1));

    let bucket = this.buckets.get(bucketKey);
    let discovery: DiscoveryKind | null = null;
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxEachBuckets) {
        this.droppedBucketCalls++;
        if (this.droppedBucketMessages.length < MAX_DROPPED_MESSAGES_KEPT && !this.droppedBucketMessages.includes(message)) {
          this.droppedBucketMessages.push(message);
        }
        return;
      }
      const kept: Record<string, EachValue> = {};
      for (let i = 0; i < identityKeys.length && i < this.maxEachKeys; i++) kept[identityKeys[i]!] = identity[identityKeys[i]!]!;
      bucket = new Bucket(kept);
      this.buckets.set(bucketKey, bucket);
      site.buckets.push(bucket);
      discovery = "newBucket";
    }
    bucket.hits++;
    site.passCount++;

    if (qualityKeys !== null) {
      const values = qualityKeys.map((key) => clampQuality(quality![key]!));
      if (bucket.bestQuality === null || compareQuality(values, bucket.bestQuality) > 0) {
        bucket.bestQuality = values;
        bucket.bestQualityKeys = qualityKeys;
        discovery ??= "betterQuality";
      }
    }
    if (discovery !== null) this.discover(discovery, message, bucket, `${message}#${bucketKey}`);
  }

  /**
   * How often the state behind a discovery key has been seen so far in the campaign: a bucket's
   * hits, or a site's calls. The explorer's rarity measure; 0 for an unknown key.
   */
  visits(key: string): number {
    const counter = this.counters.get(key);
    if (counter === undefined) return 0;
    return counter instanceof Bucket ? counter.hits : counter.passCount + counter.failCount;
  }

  // --- state transfer (parallel timelines, report merges) ---------------------------------------

  /**
   * A plain-data copy of everything the table accumulated (JSON-safe, structured-clone-safe).
   * Timelines run in parallel start from the same snapshot; `absorb` merges what each added.
   */
  snapshot(): AssertionTableState {
    const bucketIds = new Map<Bucket, number>();
    for (const [key, bucket] of this.buckets) bucketIds.set(bucket, key);
    return {
      options: { maxSites: this.maxSites, maxEachBuckets: this.maxEachBuckets, maxEachKeys: this.maxEachKeys, maxSeedDiscoveries: this.maxSeedDiscoveries },
      sites: [...this.sites.values()].map((site) => ({
        message: site.message,
        kind: site.kind,
        comparison: site.comparison,
        passCount: site.passCount,
        failCount: site.failCount,
        firstFailure: site.firstFailure,
        bestDistance: site.bestDistance,
        bestLeft: site.bestLeft,
        frontier: site.frontier,
        propositions: site.propositions,
        completed: site.completed,
        combinationsLow: site.combinationsLow,
        combinationsHigh: site.combinationsHigh,
        buckets: site.buckets.map((b) => bucketIds.get(b)!),
      })),
      buckets: [...this.buckets].map(([key, b]) => ({
        key,
        identity: b.identity,
        hits: b.hits,
        bestQuality: b.bestQuality === null ? null : b.bestQuality.slice(),
        bestQualityKeys: b.bestQualityKeys === null ? null : b.bestQualityKeys.slice(),
      })),
      misuses: [...this.misuses].map(([key, m]) => ({ key, text: m.text, count: m.count })),
      counters: [...this.counters].map(([key, c]) => (c instanceof Bucket ? { key, bucket: bucketIds.get(c)! } : { key, site: c.message })),
      dropped: {
        siteCalls: this.droppedSiteCalls,
        siteMessages: this.droppedSiteMessages.slice(),
        bucketCalls: this.droppedBucketCalls,
        bucketMessages: this.droppedBucketMessages.slice(),
        untrackedAlwaysFailures: this.untrackedAlwaysFailures,
        untrackedAlwaysMessages: this.untrackedAlwaysMessages.slice(),
        discoveries: this.droppedDiscoveries,
        misuseReports: this.droppedMisuseReports,
      },
    };
  }

  /** A table holding exactly `state`. */
  static fromSnapshot(state: AssertionTableState): AssertionTable {
    const table = new AssertionTable(state.options);
    table.absorb(state, null);
    return table;
  }

  /**
   * Adds what `child` accumulated since `base` (both snapshots; `base` null = since empty):
   * counts add up, watermarks and frontiers keep the best, quality the best, latches and
   * combinations unite, new sites and buckets append in the child's order. Absorbing several
   * children in a fixed order gives the same table however they were run.
   */
  absorb(child: AssertionTableState, base: AssertionTableState | null): void {
    const baseSites = new Map((base?.sites ?? []).map((s) => [s.message, s]));
    const baseBuckets = new Map((base?.buckets ?? []).map((b) => [b.key, b]));
    const baseMisuses = new Map((base?.misuses ?? []).map((m) => [m.key, m]));
    for (const cb of child.buckets) {
      const before = baseBuckets.get(cb.key);
      let bucket = this.buckets.get(cb.key);
      if (bucket === undefined) {
        bucket = new Bucket(cb.identity);
        this.buckets.set(cb.key, bucket);
      }
      bucket.hits += cb.hits - (before?.hits ?? 0);
      if (cb.bestQuality !== null && (bucket.bestQuality === null || compareQuality(cb.bestQuality, bucket.bestQuality) > 0)) {
        bucket.bestQuality = cb.bestQuality.slice();
        bucket.bestQualityKeys = cb.bestQualityKeys === null ? null : cb.bestQualityKeys.slice();
      }
    }
    for (const cs of child.sites) {
      const before = baseSites.get(cs.message);
      let site = this.sites.get(cs.message);
      if (site === undefined) {
        site = new Site(cs.message, cs.kind, cs.comparison);
        this.sites.set(cs.message, site);
      }
      site.passCount += cs.passCount - (before?.passCount ?? 0);
      site.failCount += cs.failCount - (before?.failCount ?? 0);
      site.firstFailure ??= cs.firstFailure;
      if (!Number.isNaN(cs.bestDistance) && (Number.isNaN(site.bestDistance) || improves(cs.comparison, cs.bestDistance, site.bestDistance))) {
        site.bestDistance = cs.bestDistance;
        site.bestLeft = cs.bestLeft;
      }
      site.frontier = Math.max(site.frontier, cs.frontier);
      site.propositions = Math.max(site.propositions, cs.propositions);
      site.completed ||= cs.completed;
      site.combinationsLow = (site.combinationsLow | cs.combinationsLow) >>> 0;
      site.combinationsHigh = (site.combinationsHigh | cs.combinationsHigh) >>> 0;
      for (const key of cs.buckets) {
        const bucket = this.buckets.get(key)!;
        if (!site.buckets.includes(bucket)) site.buckets.push(bucket);
      }
    }
    for (const cm of child.misuses) {
      const existing = this.misuses.get(cm.key);
      const added = cm.count - (baseMisuses.get(cm.key)?.count ?? 0);
      if (existing === undefined) this.misuses.set(cm.key, { text: cm.text, count: added });
      else existing.count += added;
    }
    for (const c of child.counters) {
      if (this.counters.has(c.key)) continue;
      const counter = "bucket" in c ? this.buckets.get(c.bucket) : this.sites.get(c.site);
      if (counter !== undefined) this.counters.set(c.key, counter);
    }
    const d = child.dropped;
    const b = base?.dropped;
    this.droppedSiteCalls += d.siteCalls - (b?.siteCalls ?? 0);
    this.droppedBucketCalls += d.bucketCalls - (b?.bucketCalls ?? 0);
    this.untrackedAlwaysFailures += d.untrackedAlwaysFailures - (b?.untrackedAlwaysFailures ?? 0);
    this.droppedDiscoveries += d.discoveries - (b?.discoveries ?? 0);
    this.droppedMisuseReports += d.misuseReports - (b?.misuseReports ?? 0);
    unite(this.droppedSiteMessages, d.siteMessages);
    unite(this.droppedBucketMessages, d.bucketMessages);
    unite(this.untrackedAlwaysMessages, d.untrackedAlwaysMessages);
  }

  // --- report -----------------------------------------------------------------------------------

  /** One entry per tracked site with at least one call (each-sites are in `bucketSummaries`). */
  details(): AssertionDetail[] {
    const out: AssertionDetail[] = [];
    for (const site of this.sites.values()) {
      if (site.kind === "sometimesEach") continue;
      if (site.passCount + site.failCount === 0) continue;
      const numeric = site.kind === "numericAlways" || site.kind === "numericSometimes";
      const all = site.kind === "sometimesAll";
      out.push({
        message: site.message,
        kind: site.kind,
        comparison: site.comparison,
        functionName: assertionFunctionName(site.kind, site.comparison),
        passCount: site.passCount,
        failCount: site.failCount,
        watermark: numeric && !Number.isNaN(site.bestDistance) ? site.bestLeft : null,
        frontier: all ? site.frontier : null,
        propositions: all ? site.propositions : null,
        status: statusOf(site),
        firstFailure: site.firstFailure,
      });
    }
    return out;
  }

  /** `assertSometimesEach` sites with their buckets, sorted by total hits (highest first). */
  bucketSummaries(): BucketSiteSummary[] {
    const out: BucketSiteSummary[] = [];
    for (const site of this.sites.values()) {
      if (site.kind !== "sometimesEach") continue;
      let totalHits = 0;
      const buckets: BucketSummary[] = [];
      for (const bucket of site.buckets) {
        totalHits += bucket.hits;
        let bestQuality: Record<string, number> | null = null;
        if (bucket.bestQuality !== null) {
          bestQuality = {};
          bucket.bestQualityKeys!.forEach((key, i) => (bestQuality![key] = bucket.bestQuality![i]!));
        }
        buckets.push({ identity: bucket.identity, hits: bucket.hits, bestQuality });
      }
      buckets.sort((a, b) => b.hits - a.hits);
      out.push({ message: site.message, bucketsDiscovered: site.buckets.length, totalHits, buckets });
    }
    return out.sort((a, b) => b.totalHits - a.totalHits);
  }

  /** `{ totalChecks, successes }` per message (each-sites excluded), like Rust's `assertion_results`. */
  results(): Record<string, AssertionStats> {
    const out = Object.create(null) as Record<string, AssertionStats>;
    for (const site of this.sites.values()) {
      if (site.kind === "sometimesEach") continue;
      const totalChecks = site.passCount + site.failCount;
      if (totalChecks > 0) out[site.message] = { totalChecks, successes: site.passCount };
    }
    return out;
  }

  /** Contract validation (inventory §12.3, with the spec's sometimesAll completion rule). */
  validateContracts(): ContractViolations {
    const assertionViolations: string[] = [];
    const coverageViolations: string[] = [];
    for (const site of this.sites.values()) {
      const total = site.passCount + site.failCount;
      const call = `${assertionFunctionName(site.kind, site.comparison)}(${JSON.stringify(site.message)})`;
      switch (site.kind) {
        case "always":
        case "alwaysOrUnreachable":
        case "numericAlways":
          if (site.failCount > 0) assertionViolations.push(`${call} failed ${site.failCount} times out of ${total}`);
          break;
        case "unreachable":
          if (site.passCount > 0) assertionViolations.push(`${call} was reached ${site.passCount} times`);
          break;
        case "sometimes":
        case "numericSometimes":
          if (total > 0 && site.passCount === 0) coverageViolations.push(`${call} has 0% success rate (${total} checks)`);
          break;
        case "reachable":
          if (site.passCount === 0) coverageViolations.push(`${call} was never reached`);
          break;
        case "sometimesAll":
          if (!site.completed) {
            coverageViolations.push(
              `${call} never had all ${site.propositions} propositions true together (best ${site.frontier} of ${site.propositions}, ${site.passCount} checks)`,
            );
          }
          break;
        case "sometimesEach":
          // Buckets have no completion contract: read bucketSummaries.
          break;
      }
    }
    for (const misuse of this.misuses.values()) assertionViolations.push(`${misuse.text} (${misuse.count} ${misuse.count === 1 ? "call" : "calls"} ignored)`);
    if (this.droppedMisuseReports > 0) {
      assertionViolations.push(`${this.droppedMisuseReports} further assertion misuses were not listed (more than ${MAX_MISUSE_ENTRIES} distinct ones)`);
    }
    if (this.untrackedAlwaysFailures > 0) {
      assertionViolations.push(
        `${this.untrackedAlwaysFailures} always-family failures were not tracked because the assertion table is full (${this.maxSites} sites): ` +
          this.untrackedAlwaysMessages.map((m) => JSON.stringify(m)).join(", "),
      );
    }
    return { assertionViolations, coverageViolations };
  }

  assertionViolations(): string[] {
    return this.validateContracts().assertionViolations;
  }

  coverageViolations(): string[] {
    return this.validateContracts().coverageViolations;
  }

  overflow(): AssertionOverflow {
    return {
      maxSites: this.maxSites,
      maxEachBuckets: this.maxEachBuckets,
      droppedSiteCalls: this.droppedSiteCalls,
      droppedSiteMessages: this.droppedSiteMessages.slice(),
      droppedBucketCalls: this.droppedBucketCalls,
      droppedBucketMessages: this.droppedBucketMessages.slice(),
      untrackedAlwaysFailures: this.untrackedAlwaysFailures,
      droppedDiscoveries: this.droppedDiscoveries,
      droppedMisuseReports: this.droppedMisuseReports,
    };
  }

  /** Number of tracked sites (every kind) and buckets. */
  get siteCount(): number {
    return this.sites.size;
  }

  get bucketCount(): number {
    return this.buckets.size;
  }

  // --- coverage gate (UntilCoverageStable) ------------------------------------------------------

  /** Sometimes, reachable and sometimesAll sites observed, and how many of them were reached. */
  sometimesCoverage(): SometimesCoverage {
    let total = 0;
    let hit = 0;
    let booleanTotal = 0;
    const unreached: string[] = [];
    for (const site of this.sites.values()) {
      const boolean = site.kind === "sometimes" || site.kind === "reachable";
      if (!boolean && site.kind !== "sometimesAll") continue;
      total++;
      if (boolean) booleanTotal++;
      if (boolean ? site.passCount > 0 : site.completed) hit++;
      else unreached.push(site.message);
    }
    return { total, hit, booleanTotal, unreached };
  }

  /**
   * The gate: at least one boolean sometimes/reachable site was observed, and every observed
   * sometimes/reachable/sometimesAll site has been reached (sometimesAll: completed).
   */
  allSometimesReached(): boolean {
    const { total, hit, booleanTotal } = this.sometimesCoverage();
    return booleanTotal > 0 && hit === total;
  }

  /** Plateau signal: distinct sometimes/reachable sites passed, plus completed sometimesAll sites. */
  reachedSometimesCount(): number {
    return this.sometimesCoverage().hit;
  }

  // --- internals --------------------------------------------------------------------------------

  private lookup(message: string, kind: AssertionKind, comparison: NumericComparison | null): Site | typeof DROPPED | typeof MISUSED {
    const key = typeof message === "string" ? message : String(message);
    const site = this.sites.get(key);
    if (site !== undefined) {
      if (site.kind === kind && site.comparison === comparison) return site;
      const used = assertionFunctionName(kind, comparison);
      const first = assertionFunctionName(site.kind, site.comparison);
      this.misuse(
        key,
        kind,
        `${used}(${JSON.stringify(key)}) reuses a message first used by ${first}: give each assertion its own message`,
      );
      return MISUSED;
    }
    if (this.sites.size >= this.maxSites) {
      this.droppedSiteCalls++;
      if (this.droppedSiteMessages.length < MAX_DROPPED_MESSAGES_KEPT && !this.droppedSiteMessages.includes(key)) {
        this.droppedSiteMessages.push(key);
      }
      return DROPPED;
    }
    const created = new Site(key, kind, comparison);
    this.sites.set(key, created);
    return created;
  }

  /** A harness error: listed as an assertion violation and fails the running seed. */
  private misuse(message: string, kind: AssertionKind, text: string): void {
    const existing = this.misuses.get(text);
    if (existing !== undefined) existing.count++;
    else if (this.misuses.size < MAX_MISUSE_ENTRIES) this.misuses.set(text, { text, count: 1 });
    else this.droppedMisuseReports++;
    this.notify(`${message}\u0000misuse:${kind}`, text);
  }

  private violation(site: Site, text: string, details: AssertionDetails | null): void {
    if (site.firstFailure === null) {
      site.firstFailure = { seed: this.scope === null ? null : this.scope.seed, text, details: details === null ? null : { ...details } };
    }
    this.notify(site.message, text);
  }

  /** An always-family failure on a site the full table could not hold: still fails the seed. */
  private untrackedFailure(message: string, kind: AssertionKind, comparison: NumericComparison | null, details: AssertionDetails | undefined): void {
    this.untrackedAlwaysFailures++;
    if (this.untrackedAlwaysMessages.length < MAX_DROPPED_MESSAGES_KEPT && !this.untrackedAlwaysMessages.includes(message)) {
      this.untrackedAlwaysMessages.push(message);
    }
    const fn = assertionFunctionName(kind, comparison);
    this.notify(message, `${fn}(${JSON.stringify(message)}) failed${formatDetails(details ?? null)} (not tracked: the assertion table is full, ${this.maxSites} sites)`);
  }

  private notify(key: string, text: string): void {
    const scope = this.scope;
    if (scope === null || scope.onViolation === null || scope.reported.has(key)) return;
    scope.reported.add(key);
    scope.onViolation(text, captureStack(text), key.split("\u0000")[0]);
  }

  private discover(kind: DiscoveryKind, message: string, counter: Site | Bucket, key: string): void {
    const scope = this.scope;
    if (scope === null) return;
    this.counters.set(key, counter);
    if (scope.discoveries.length >= this.maxSeedDiscoveries) {
      this.droppedDiscoveries++;
      return;
    }
    scope.discoveries.push({ kind, message, key, segment: scope.stream.segment, drawCount: scope.stream.calls, seed: scope.seed });
  }
}

function statusOf(site: Site): AssertionStatus {
  switch (site.kind) {
    case "always":
    case "alwaysOrUnreachable":
    case "numericAlways":
      return site.failCount > 0 ? "FAIL" : "PASS";
    case "unreachable":
      return site.passCount > 0 ? "FAIL" : "PASS";
    case "sometimes":
    case "reachable":
    case "numericSometimes":
    case "sometimesEach":
      return site.passCount > 0 ? "PASS" : "MISS";
    case "sometimesAll":
      return site.completed ? "PASS" : "MISS";
  }
}

function clampQuality(value: number): number {
  const n = typeof value === "number" ? value : Number(value);
  if (Number.isNaN(n) || n <= 0) return 0;
  if (n >= MAX_EACH_QUALITY_VALUE) return MAX_EACH_QUALITY_VALUE;
  return Math.trunc(n);
}

/** Lexicographic, first value most important; missing values count as 0. */
function compareQuality(a: readonly number[], b: readonly number[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Where the assertion was called from: the stack without this file's own frames. */
function captureStack(text: string): string | undefined {
  const stack = new Error(text).stack;
  if (stack === undefined) return undefined;
  return stack
    .split("\n")
    .filter((line) => !/chaos[\\/]assertions\.ts/.test(line))
    .join("\n");
}

/** Whether numeric distance `a` beats `b` for a site with this comparison. */
function improves(comparison: NumericComparison | null, a: number, b: number): boolean {
  return comparison === "lt" || comparison === "le" ? a < b : a > b;
}

function unite(into: string[], from: readonly string[]): void {
  for (const m of from) if (into.length < MAX_DROPPED_MESSAGES_KEPT && !into.includes(m)) into.push(m);
}

/** Plain-data form of an `AssertionTable` (see `snapshot`). */
export interface AssertionTableState {
  readonly options: Required<AssertionTableOptions>;
  readonly sites: readonly {
    readonly message: string;
    readonly kind: AssertionKind;
    readonly comparison: NumericComparison | null;
    readonly passCount: number;
    readonly failCount: number;
    readonly firstFailure: AssertionFailureRecord | null;
    readonly bestDistance: number;
    readonly bestLeft: number;
    readonly frontier: number;
    readonly propositions: number;
    readonly completed: boolean;
    readonly combinationsLow: number;
    readonly combinationsHigh: number;
    readonly buckets: readonly number[];
  }[];
  readonly buckets: readonly {
    readonly key: number;
    readonly identity: Readonly<Record<string, EachValue>>;
    readonly hits: number;
    readonly bestQuality: number[] | null;
    readonly bestQualityKeys: string[] | null;
  }[];
  readonly misuses: readonly { readonly key: string; readonly text: string; readonly count: number }[];
  readonly counters: readonly ({ readonly key: string; readonly bucket: number } | { readonly key: string; readonly site: string })[];
  readonly dropped: {
    readonly siteCalls: number;
    readonly siteMessages: readonly string[];
    readonly bucketCalls: number;
    readonly bucketMessages: readonly string[];
    readonly untrackedAlwaysFailures: number;
    readonly untrackedAlwaysMessages: readonly string[];
    readonly discoveries: number;
    readonly misuseReports: number;
  };
}
