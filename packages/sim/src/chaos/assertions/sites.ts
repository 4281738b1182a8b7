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
    const slot: BucketSlot = { key, low, bucket };
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

/** Where the assertion was called from: the stack without this file's own frames. */
export function captureStack(text: string): string | undefined {
  const stack = new Error(text).stack;
  if (stack === undefined) return undefined;
  return stack
    .split("\n")
    .filter((line) => !/chaos[\\/]assertions[\\/]/.test(line))
    .join("\n");
}

/** Whether numeric distance `a` beats `b` for a site with this comparison. */
export function improves(comparison: NumericComparison | null, a: number, b: number): boolean {
  return comparison === "lt" || comparison === "le" ? a < b : a > b;
}

export function unite(into: string[], from: readonly string[]): void {
  for (const m of from) if (into.length < MAX_DROPPED_MESSAGES_KEPT && !into.includes(m)) into.push(m);
}
