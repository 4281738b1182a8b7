/** The table's internal records (sites, buckets, misuses, the running seed) and the store that holds them. */
import type { EachValue, NumericComparison } from "@moonpool/core";
import { TWO_POW_21 } from "./hashing.ts";
import { MAX_DROPPED_MESSAGES_KEPT, MAX_EACH_QUALITY_VALUE } from "./limits.ts";
import type {
  AssertionFailureRecord,
  AssertionKind,
  AssertionStatus,
  Discovery,
  DrawCoordinates,
  ViolationCallback,
} from "./shapes.ts";

export class Bucket {
  hits = 0;
  /** In a fork's copy: the parent's hits when copied (a delta counts from there). */
  baseHits = 0;
  bestQuality: number[] | null = null;
  bestQualityKeys: string[] | null = null;
  constructor(readonly identity: Readonly<Record<string, EachValue>>) {}
}

export class Site {
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
  /** In a fork's copy: the parent's counts when copied (a delta counts from there). */
  basePassCount = 0;
  baseFailCount = 0;
  /** sometimesEach: buckets of this site in creation order. */
  readonly buckets: Bucket[] = [];
  /** sometimesEach: the message's two bucket hashes, computed at the first call. */
  messageHashed = false;
  messageHash1 = 0;
  messageHash2 = 0;

  constructor(
    readonly message: string,
    readonly kind: AssertionKind,
    readonly comparison: NumericComparison | null,
  ) {}
}

export interface Misuse {
  readonly text: string;
  count: number;
  /** In a fork's copy: the parent's count when copied. */
  readonly baseCount?: number;
}

export interface SeedScope {
  readonly seed: number;
  readonly stream: DrawCoordinates;
  readonly onViolation: ViolationCallback | null;
  /** Messages already reported to the runner in this seed (one callback per message per seed). */
  readonly reported: Set<string>;
  discoveries: Discovery[];
}

/** Sentinels returned by `lookup` when a call is not recorded on a site. */
export const DROPPED = 0;
export const MISUSED = 1;

/** Everything one table accumulates; the table, its report and its snapshots all read this. */
/**
 * Buckets by their 53-bit key `high * 2^21 + low` (`high` 32 bits, `low` 21), iterated in
 * insertion order like a Map. Lookups go through `high` as a 32-bit integer: a Map keyed by the
 * full 53-bit number boxes every key, which made bucketing several times slower.
 */
export class BucketIndex {
  /** Keyed by `high | 0`; several slots only when keys share their high 32 bits. */
  private readonly byHigh = new Map<number, BucketSlot | BucketSlot[]>();
  /** Every bucket with its key, in insertion order. */
  readonly slots: BucketSlot[] = [];

  get size(): number {
    return this.slots.length;
  }

  /** The bucket with key `(high >>> 0) * 2^21 + low` (`high` any 32-bit integer, `low` < 2^21). */
  find(high: number, low: number): Bucket | undefined {
    const entry = this.byHigh.get(high | 0);
    if (entry === undefined) return undefined;
    if (!Array.isArray(entry)) return entry.low === low ? entry.bucket : undefined;
    for (const slot of entry) if (slot.low === low) return slot.bucket;
    return undefined;
  }

  get(key: number): Bucket | undefined {
    const high = Math.floor(key / TWO_POW_21);
    return this.find(high, key - high * TWO_POW_21);
  }

  set(key: number, bucket: Bucket): void {
    const high = Math.floor(key / TWO_POW_21);
    const low = key - high * TWO_POW_21;
    if (this.find(high, low) !== undefined) throw new Error(`bucket key ${key} is already indexed`);
    this.insert(high, low, bucket);
  }

  /**
   * Adds the bucket with key `(high >>> 0) * 2^21 + low`, which the caller has just failed to
   * `find` (no second lookup, no key arithmetic in floating point).
   */
  insert(high: number, low: number, bucket: Bucket): void {
    const slot: BucketSlot = { key: (high >>> 0) * TWO_POW_21 + low, low, bucket };
    const entry = this.byHigh.get(high | 0);
    if (entry === undefined) this.byHigh.set(high | 0, slot);
    else if (Array.isArray(entry)) entry.push(slot);
    else this.byHigh.set(high | 0, [entry, slot]);
    this.slots.push(slot);
  }
}

export interface BucketSlot {
  readonly key: number;
  readonly low: number;
  readonly bucket: Bucket;
}

/**
 * A store either holds everything itself, or is a fork of a `parent` store: it then holds only
 * what one timeline touched (copied from the parent on first touch, so the parent never changes)
 * and what it created, which is all a merge needs. Forking costs nothing up front, where copying
 * the whole table cost more than a short timeline.
 */
export class TableStore {
  readonly sites = new Map<string, Site>();
  /** Every bucket of every site, keyed by a 53-bit hash of (site, identity values). */
  readonly buckets = new BucketIndex();
  readonly misuses = new Map<string, Misuse>();
  /** Discovery key → the site or bucket whose visits measure its rarity. */
  readonly counters = new Map<string, Site | Bucket>();

  droppedSiteCalls = 0;
  readonly droppedSiteMessages: string[] = [];
  droppedBucketCalls = 0;
  readonly droppedBucketMessages: string[] = [];
  untrackedAlwaysFailures = 0;
  readonly untrackedAlwaysMessages: string[] = [];
  droppedDiscoveries = 0;
  droppedMisuseReports = 0;
  /** Sites, buckets and misuses copied from the parent (the rest were created here). */
  private inheritedSites = 0;
  private inheritedBuckets = 0;
  private inheritedMisuses = 0;
  /** A fork's dropped counts when forked (a delta counts from there). */
  readonly forkedAt: {
    readonly siteCalls: number;
    readonly bucketCalls: number;
    readonly untracked: number;
    readonly discoveries: number;
    readonly misuseReports: number;
  } | null = null;

  constructor(readonly parent: TableStore | null = null) {
    if (parent === null) return;
    if (parent.parent !== null) throw new Error("a forked assertion table cannot be forked again");
    this.droppedSiteCalls = parent.droppedSiteCalls;
    this.droppedSiteMessages.push(...parent.droppedSiteMessages);
    this.droppedBucketCalls = parent.droppedBucketCalls;
    this.droppedBucketMessages.push(...parent.droppedBucketMessages);
    this.untrackedAlwaysFailures = parent.untrackedAlwaysFailures;
    this.untrackedAlwaysMessages.push(...parent.untrackedAlwaysMessages);
    this.droppedDiscoveries = parent.droppedDiscoveries;
    this.droppedMisuseReports = parent.droppedMisuseReports;
    this.forkedAt = {
      siteCalls: parent.droppedSiteCalls,
      bucketCalls: parent.droppedBucketCalls,
      untracked: parent.untrackedAlwaysFailures,
      discoveries: parent.droppedDiscoveries,
      misuseReports: parent.droppedMisuseReports,
    };
  }

  /** Tracked sites, the parent's included. */
  get siteCount(): number {
    return this.parent === null ? this.sites.size : this.parent.sites.size + this.sites.size - this.inheritedSites;
  }

  get bucketCount(): number {
    return this.parent === null
      ? this.buckets.size
      : this.parent.buckets.size + this.buckets.size - this.inheritedBuckets;
  }

  get misuseCount(): number {
    return this.parent === null
      ? this.misuses.size
      : this.parent.misuses.size + this.misuses.size - this.inheritedMisuses;
  }

  /** The site of `message`, copied from the parent when this fork first touches it. */
  site(message: string): Site | undefined {
    const own = this.sites.get(message);
    if (own !== undefined || this.parent === null) return own;
    const inherited = this.parent.sites.get(message);
    if (inherited === undefined) return undefined;
    const copy = copySite(inherited);
    this.sites.set(message, copy);
    this.inheritedSites++;
    return copy;
  }

  /** The bucket with key `(high >>> 0) * 2^21 + low`, copied from the parent on first touch. */
  bucket(high: number, low: number): Bucket | undefined {
    const own = this.buckets.find(high, low);
    if (own !== undefined || this.parent === null) return own;
    const inherited = this.parent.buckets.find(high, low);
    if (inherited === undefined) return undefined;
    const copy = new Bucket(inherited.identity);
    copy.hits = inherited.hits;
    copy.baseHits = inherited.hits;
    copy.bestQuality = inherited.bestQuality === null ? null : inherited.bestQuality.slice();
    copy.bestQualityKeys = inherited.bestQualityKeys === null ? null : inherited.bestQualityKeys.slice();
    this.buckets.insert(high, low, copy);
    this.inheritedBuckets++;
    return copy;
  }

  misuse(text: string): Misuse | undefined {
    const own = this.misuses.get(text);
    if (own !== undefined || this.parent === null) return own;
    const inherited = this.parent.misuses.get(text);
    if (inherited === undefined) return undefined;
    const copy = { text: inherited.text, count: inherited.count, baseCount: inherited.count };
    this.misuses.set(text, copy);
    this.inheritedMisuses++;
    return copy;
  }

  /** The counter of a discovery key as this store sees it (a fork's own copy once touched). */
  counter(key: string): Site | Bucket | undefined {
    const own = this.counters.get(key);
    if (own !== undefined || this.parent === null) return own;
    const inherited = this.parent.counters.get(key);
    if (inherited instanceof Site) return this.sites.get(inherited.message) ?? inherited;
    if (inherited === undefined) return undefined;
    for (const slot of this.parent.buckets.slots)
      if (slot.bucket === inherited) return this.buckets.get(slot.key) ?? inherited;
    return inherited;
  }
}

/** A site's copy for a fork: its buckets list starts empty and receives the buckets the fork creates. */
function copySite(site: Site): Site {
  const copy = new Site(site.message, site.kind, site.comparison);
  copy.passCount = site.passCount;
  copy.failCount = site.failCount;
  copy.basePassCount = site.passCount;
  copy.baseFailCount = site.failCount;
  copy.firstFailure = site.firstFailure;
  copy.bestDistance = site.bestDistance;
  copy.bestLeft = site.bestLeft;
  copy.frontier = site.frontier;
  copy.propositions = site.propositions;
  copy.completed = site.completed;
  copy.combinationsLow = site.combinationsLow;
  copy.combinationsHigh = site.combinationsHigh;
  copy.messageHashed = site.messageHashed;
  copy.messageHash1 = site.messageHash1;
  copy.messageHash2 = site.messageHash2;
  return copy;
}
export function statusOf(site: Site): AssertionStatus {
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

export function clampQuality(value: number): number {
  const n = typeof value === "number" ? value : Number(value);
  if (Number.isNaN(n) || n <= 0) return 0;
  if (n >= MAX_EACH_QUALITY_VALUE) return MAX_EACH_QUALITY_VALUE;
  return Math.trunc(n);
}

/** Lexicographic, first value most important; missing values count as 0. */
export function compareQuality(a: readonly number[], b: readonly number[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Where the assertion was called from: the stack without this folder's own frames. The frames are
 * captured now; the text (source-mapped, the costly part) is built at the first call.
 */
export function captureStack(text: string): () => string | undefined {
  const error = new Error(text);
  let formatted: string | undefined | null = null;
  return () => {
    if (formatted === null) {
      const stack = error.stack;
      formatted =
        stack === undefined
          ? undefined
          : stack
              .split("\n")
              .filter((line) => !/chaos[\\/]assertions[\\/]/.test(line))
              .join("\n");
    }
    return formatted;
  };
}

/** Whether numeric distance `a` beats `b` for a site with this comparison. */
export function improves(comparison: NumericComparison | null, a: number, b: number): boolean {
  return comparison === "lt" || comparison === "le" ? a < b : a > b;
}

export function unite(into: string[], from: readonly string[]): void {
  for (const m of from) if (into.length < MAX_DROPPED_MESSAGES_KEPT && !into.includes(m)) into.push(m);
}
