/**
 * The campaign-wide assertion table: the accounting behind the 15 assertion functions of
 * `@moonpool/core` (`assertAlways`, ..., `assertSometimesEach`).
 *
 * One table lives for a whole campaign and accumulates across every seed: pass/fail counts,
 * numeric watermarks, sometimes-all frontiers and each-buckets are never reset between seeds, and
 * neither are the discovery latches (a static boolean guides only the first seed that reaches it;
 * watermarks, frontiers and buckets let later seeds keep contributing).
 *
 * Semantics (docs/departures.md, rows 4-8, says why they are so):
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
import {
  fmix32,
  fmix32Signed,
  fnv1a,
  FNV_OFFSET_32,
  IdentityHasher,
  MIX_OFFSET_32,
  mixHash,
  TWO_POW_21,
} from "./hashing.ts";
import {
  MAX_ASSERTION_SITES,
  MAX_EACH_BUCKETS,
  MAX_EACH_KEYS,
  MAX_EACH_QUALITY_KEYS,
  MAX_MISUSE_ENTRIES,
  MAX_SEED_DISCOVERIES,
} from "./limits.ts";
import { assertionFunctionName, compare, formatDetails, FUNCTION_NAME, positiveInteger } from "./naming.ts";
import { bucketSummaries, overflowOf, results, siteDetails, sometimesCoverage, validateContracts } from "./report.ts";
import type {
  AssertionDetail,
  AssertionKind,
  AssertionOverflow,
  AssertionStats,
  AssertionTableOptions,
  BucketSiteSummary,
  ContractViolations,
  Discovery,
  DiscoveryKind,
  DrawCoordinates,
  SometimesCoverage,
  ViolationCallback,
} from "./shapes.ts";
import {
  Bucket,
  captureStack,
  clampQuality,
  compareQuality,
  DROPPED,
  MISUSED,
  Site,
  TableStore,
  type SeedScope,
  unite,
} from "./sites.ts";
import { absorbInto, deltaOf, forkSnapshot, snapshotOf, type AssertionTableState } from "./state.ts";

/** One hasher for every table: bucketing runs synchronously, so calls never interleave. */
const IDENTITY_HASHER = new IdentityHasher();
const hasOwnProperty = Object.prototype.hasOwnProperty;

export class AssertionTable {
  readonly maxSites: number;
  readonly maxEachBuckets: number;
  readonly maxEachKeys: number;
  readonly maxSeedDiscoveries: number;

  private store = new TableStore();
  private scope: SeedScope | null = null;
  /** The site `lookup` found last (in this table's store). */
  private lastSite: Site | null = null;

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
      throw new Error(
        `AssertionTable.beginSeed(${seed}) while seed ${this.scope.seed} is still active: call endSeed() first`,
      );
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
          this.violation(
            site,
            `${FUNCTION_NAME[kind]}(${JSON.stringify(message)}) failed${formatDetails(details ?? null)}`,
            details ?? null,
          );
        }
        return;
      case "unreachable":
        // passCount = times reached: the report shows how often the unreachable was reached.
        site.passCount++;
        this.violation(
          site,
          `assertUnreachable(${JSON.stringify(message)}) was reached${formatDetails(details ?? null)}`,
          details ?? null,
        );
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
      if (!holds && family === "always")
        this.untrackedFailure(message, kind, comparison, { left: l, right: r, ...details });
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
      this.violation(
        site,
        `${fn}(${JSON.stringify(message)}) failed: left=${String(l)} right=${String(r)}${formatDetails(details ?? null)}`,
        all,
      );
    }
  }

  sometimesAll(message: string, propositions: Readonly<Record<string, boolean>>): void {
    const site = this.lookup(message, "sometimesAll", null);
    if (site === DROPPED || site === MISUSED) return;
    if (propositions === null || typeof propositions !== "object") {
      this.misuse(
        message,
        "sometimesAll",
        `assertSometimesAll(${JSON.stringify(message)}) needs an object of named booleans, got ${String(propositions)}`,
      );
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
      const isNew =
        bit < 32 ? (site.combinationsLow & (1 << bit)) === 0 : (site.combinationsHigh & (1 << (bit - 32))) === 0;
      if (isNew) {
        if (bit < 32) site.combinationsLow |= 1 << bit;
        else site.combinationsHigh |= 1 << (bit - 32);
        discovery ??= "combination";
      }
    }
    if (total > 0 && trueCount === total) site.completed = true;
    if (discovery !== null) this.discover(discovery, message, site, message);
  }

  sometimesEach(
    message: string,
    identity: Readonly<Record<string, EachValue>>,
    quality?: Readonly<Record<string, number>>,
  ): void {
    const site = this.lookup(message, "sometimesEach", null);
    if (site === DROPPED || site === MISUSED) return;
    if (identity === null || typeof identity !== "object") {
      this.misuse(
        message,
        "sometimesEach",
        `assertSometimesEach(${JSON.stringify(message)}) needs an identity object, got ${String(identity)}`,
      );
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

    // Identity: every value in key order is hashed (names ignored); the first few are kept. The
    // message's hashes are computed once per site, the values' without building strings.
    if (!site.messageHashed) {
      site.messageHash1 = fnv1a(FNV_OFFSET_32, message);
      site.messageHash2 = mixHash(MIX_OFFSET_32, message);
      site.messageHashed = true;
    }
    const hasher = IDENTITY_HASHER;
    hasher.start(site.messageHash1, site.messageHash2);
    // Own enumerable values in key order, as `Object.values` gives them, without its array: the
    // optimizer turns `hasOwnProperty.call` on a for-in key into a map check.
    for (const key in identity) if (hasOwnProperty.call(identity, key)) hasher.value(identity[key]);
    const high = fmix32Signed(hasher.h1);
    const low = fmix32Signed(hasher.h2) & (TWO_POW_21 - 1);

    let bucket = this.store.bucket(high, low);
    let discovery: DiscoveryKind | null = null;
    if (bucket === undefined) {
      if (this.store.bucketCount >= this.maxEachBuckets) {
        this.store.droppedBucketCalls++;
        unite(this.store.droppedBucketMessages, [message]);
        return;
      }
      const identityKeys = Object.keys(identity);
      const kept: Record<string, EachValue> = {};
      for (let i = 0; i < identityKeys.length && i < this.maxEachKeys; i++)
        kept[identityKeys[i]!] = identity[identityKeys[i]!]!;
      bucket = new Bucket(kept);
      this.store.buckets.insert(high, low, bucket);
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
    if (discovery !== null) this.discover(discovery, message, bucket, `${message}#${(high >>> 0) * TWO_POW_21 + low}`);
  }

  /**
   * How often the state behind a discovery key has been seen so far in the campaign: a bucket's
   * hits, or a site's calls. The explorer's rarity measure; 0 for an unknown key.
   */
  visits(key: string): number {
    const counter = this.store.counter(key);
    if (counter === undefined) return 0;
    return counter instanceof Bucket ? counter.hits : counter.passCount + counter.failCount;
  }

  // --- state transfer (parallel timelines, report merges) ---------------------------------------

  /**
   * A plain-data copy of everything the table accumulated (JSON-safe, structured-clone-safe).
   * Timelines run in parallel start from the same snapshot; `absorb` merges what each added.
   */
  snapshot(): AssertionTableState {
    return this.store.parent !== null ? forkSnapshot(this.store, this.options) : snapshotOf(this.store, this.options);
  }

  /**
   * A table recording one timeline on top of this one, which never changes: a site or bucket is
   * copied when first touched. Read what it added with `delta()` (its report methods see only that).
   */
  fork(): AssertionTable {
    if (this.scope !== null) throw new Error("AssertionTable.fork() while a seed is being recorded");
    const child = new AssertionTable(this.options);
    child.store = new TableStore(this.store);
    return child;
  }

  /**
   * What a fork added, as a snapshot whose counts are increments (small: what a worker sends
   * back). `absorb(delta, null)` merges it into the parent, also after earlier siblings' deltas.
   */
  delta(): AssertionTableState {
    if (this.store.parent === null) throw new Error("AssertionTable.delta() is for a table made by fork()");
    return deltaOf(this.store, this.options);
  }

  private get options(): Required<AssertionTableOptions> {
    return {
      maxSites: this.maxSites,
      maxEachBuckets: this.maxEachBuckets,
      maxEachKeys: this.maxEachKeys,
      maxSeedDiscoveries: this.maxSeedDiscoveries,
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
    absorbInto(this.store, child, base);
  }

  // --- report -----------------------------------------------------------------------------------

  /** One entry per tracked site with at least one call (each-sites are in `bucketSummaries`). */
  details(): AssertionDetail[] {
    return siteDetails(this.store);
  }

  /** `assertSometimesEach` sites with their buckets, sorted by total hits (highest first). */
  bucketSummaries(): BucketSiteSummary[] {
    return bucketSummaries(this.store);
  }

  /** `{ totalChecks, successes }` per message (each-sites excluded). */
  results(): Record<string, AssertionStats> {
    return results(this.store);
  }

  /** Safety violations (always-family failures, misuse) and coverage violations (sometimes never met). */
  validateContracts(): ContractViolations {
    return validateContracts(this.store, this.maxSites);
  }

  assertionViolations(): string[] {
    return this.validateContracts().assertionViolations;
  }

  coverageViolations(): string[] {
    return this.validateContracts().coverageViolations;
  }

  overflow(): AssertionOverflow {
    return overflowOf(this.store, this.maxSites, this.maxEachBuckets);
  }

  /** Number of tracked sites (every kind) and buckets. */
  get siteCount(): number {
    return this.store.siteCount;
  }

  get bucketCount(): number {
    return this.store.bucketCount;
  }

  // --- coverage gate (UntilCoverageStable) ------------------------------------------------------

  /** Sometimes, reachable and sometimesAll sites observed, and how many of them were reached. */
  sometimesCoverage(): SometimesCoverage {
    return sometimesCoverage(this.store);
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

  private lookup(
    message: string,
    kind: AssertionKind,
    comparison: NumericComparison | null,
  ): Site | typeof DROPPED | typeof MISUSED {
    // A loop usually calls one assertion many times in a row: the last site found answers it
    // without a Map lookup (sites are never replaced in a store, so it stays valid).
    const last = this.lastSite;
    if (last !== null && last.message === message && last.kind === kind && last.comparison === comparison) return last;
    const key = typeof message === "string" ? message : String(message);
    const site = this.store.site(key);
    if (site !== undefined) {
      if (site.kind === kind && site.comparison === comparison) {
        this.lastSite = site;
        return site;
      }
      const used = assertionFunctionName(kind, comparison);
      const first = assertionFunctionName(site.kind, site.comparison);
      this.misuse(
        key,
        kind,
        `${used}(${JSON.stringify(key)}) reuses a message first used by ${first}: give each assertion its own message`,
      );
      return MISUSED;
    }
    if (this.store.siteCount >= this.maxSites) {
      this.store.droppedSiteCalls++;
      unite(this.store.droppedSiteMessages, [key]);
      return DROPPED;
    }
    const created = new Site(key, kind, comparison);
    this.store.sites.set(key, created);
    this.lastSite = created;
    return created;
  }

  /** A harness error: listed as an assertion violation and fails the running seed. */
  private misuse(message: string, kind: AssertionKind, text: string): void {
    const existing = this.store.misuse(text);
    if (existing !== undefined) existing.count++;
    else if (this.store.misuseCount < MAX_MISUSE_ENTRIES) this.store.misuses.set(text, { text, count: 1 });
    else this.store.droppedMisuseReports++;
    this.notify(`${message}\u0000misuse:${kind}`, text);
  }

  private violation(site: Site, text: string, details: AssertionDetails | null): void {
    if (site.firstFailure === null) {
      site.firstFailure = {
        seed: this.scope === null ? null : this.scope.seed,
        text,
        details: details === null ? null : { ...details },
      };
    }
    this.notify(site.message, text);
  }

  /** An always-family failure on a site the full table could not hold: still fails the seed. */
  private untrackedFailure(
    message: string,
    kind: AssertionKind,
    comparison: NumericComparison | null,
    details: AssertionDetails | undefined,
  ): void {
    this.store.untrackedAlwaysFailures++;
    unite(this.store.untrackedAlwaysMessages, [message]);
    const fn = assertionFunctionName(kind, comparison);
    this.notify(
      message,
      `${fn}(${JSON.stringify(message)}) failed${formatDetails(details ?? null)} (not tracked: the assertion table is full, ${this.maxSites} sites)`,
    );
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
    this.store.counters.set(key, counter);
    if (scope.discoveries.length >= this.maxSeedDiscoveries) {
      this.store.droppedDiscoveries++;
      return;
    }
    scope.discoveries.push({
      kind,
      message,
      key,
      segment: scope.stream.segment,
      drawCount: scope.stream.calls,
      seed: scope.seed,
    });
  }
}
