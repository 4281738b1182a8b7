/**
 * The plain-data form of an assertion table, and the two operations on it: taking a snapshot and
 * absorbing what a child timeline added since a base snapshot.
 */
import type { EachValue, NumericComparison } from "@moonpool/core";
import type { AssertionFailureRecord, AssertionKind, AssertionTableOptions } from "./shapes.ts";
import { Bucket, compareQuality, improves, Site, TableStore, unite } from "./sites.ts";

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
  readonly counters: readonly (
    | { readonly key: string; readonly bucket: number }
    | { readonly key: string; readonly site: string }
  )[];
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

/**
 * A plain-data copy of everything the table accumulated (JSON-safe, structured-clone-safe).
 * Timelines run in parallel start from the same snapshot; `absorb` merges what each added.
 */
export function snapshotOf(store: TableStore, options: Required<AssertionTableOptions>): AssertionTableState {
  const bucketIds = new Map<Bucket, number>();
  for (const { key, bucket } of store.buckets.slots) bucketIds.set(bucket, key);
  return {
    options: { ...options },
    sites: [...store.sites.values()].map((site) => siteState(site, bucketIds, false)),
    buckets: store.buckets.slots.map(({ key, bucket }) => bucketState(key, bucket, false)),
    misuses: [...store.misuses].map(([key, m]) => ({ key, text: m.text, count: m.count })),
    counters: [...store.counters].map(([key, c]) =>
      c instanceof Bucket ? { key, bucket: bucketIds.get(c)! } : { key, site: c.message },
    ),
    dropped: {
      siteCalls: store.droppedSiteCalls,
      siteMessages: store.droppedSiteMessages.slice(),
      bucketCalls: store.droppedBucketCalls,
      bucketMessages: store.droppedBucketMessages.slice(),
      untrackedAlwaysFailures: store.untrackedAlwaysFailures,
      untrackedAlwaysMessages: store.untrackedAlwaysMessages.slice(),
      discoveries: store.droppedDiscoveries,
      misuseReports: store.droppedMisuseReports,
    },
  };
}

interface BaseIndex {
  readonly baseSites: ReadonlyMap<string, AssertionTableState["sites"][number]>;
  readonly baseBuckets: ReadonlyMap<number, AssertionTableState["buckets"][number]>;
  readonly baseMisuses: ReadonlyMap<string, AssertionTableState["misuses"][number]>;
}

/** Every continuation of a batch is absorbed against the same base: index it once. */
const baseIndexes = new WeakMap<AssertionTableState, BaseIndex>();
const NO_BASE: BaseIndex = { baseSites: new Map(), baseBuckets: new Map(), baseMisuses: new Map() };

function indexOf(base: AssertionTableState | null): BaseIndex {
  if (base === null) return NO_BASE;
  let index = baseIndexes.get(base);
  if (index === undefined) {
    index = {
      baseSites: new Map(base.sites.map((s) => [s.message, s])),
      baseBuckets: new Map(base.buckets.map((b) => [b.key, b])),
      baseMisuses: new Map(base.misuses.map((m) => [m.key, m])),
    };
    baseIndexes.set(base, index);
  }
  return index;
}

/**
 * Adds what `child` accumulated since `base` (both snapshots; `base` null = since empty):
 * counts add up, watermarks and frontiers keep the best, quality the best, latches and
 * combinations unite, new sites and buckets append in the child's order. Absorbing several
 * children in a fixed order gives the same table however they were run.
 */
export function absorbInto(store: TableStore, child: AssertionTableState, base: AssertionTableState | null): void {
  const { baseSites, baseBuckets, baseMisuses } = indexOf(base);
  // A bucket belongs to one site and is listed by it from its creation on: only the buckets
  // created here still need to join their site's list (a linear `includes` per bucket was
  // quadratic in a site's buckets).
  const created = new Set<Bucket>();
  for (const cb of child.buckets) {
    const before = baseBuckets.get(cb.key);
    let bucket = store.buckets.get(cb.key);
    if (bucket === undefined) {
      bucket = new Bucket(cb.identity);
      store.buckets.set(cb.key, bucket);
      created.add(bucket);
    }
    bucket.hits += cb.hits - (before?.hits ?? 0);
    if (
      cb.bestQuality !== null &&
      (bucket.bestQuality === null || compareQuality(cb.bestQuality, bucket.bestQuality) > 0)
    ) {
      bucket.bestQuality = cb.bestQuality.slice();
      bucket.bestQualityKeys = cb.bestQualityKeys === null ? null : cb.bestQualityKeys.slice();
    }
  }
  for (const cs of child.sites) {
    const before = baseSites.get(cs.message);
    let site = store.sites.get(cs.message);
    if (site === undefined) {
      site = new Site(cs.message, cs.kind, cs.comparison);
      store.sites.set(cs.message, site);
    }
    site.passCount += cs.passCount - (before?.passCount ?? 0);
    site.failCount += cs.failCount - (before?.failCount ?? 0);
    site.firstFailure ??= cs.firstFailure;
    if (
      !Number.isNaN(cs.bestDistance) &&
      (Number.isNaN(site.bestDistance) || improves(cs.comparison, cs.bestDistance, site.bestDistance))
    ) {
      site.bestDistance = cs.bestDistance;
      site.bestLeft = cs.bestLeft;
    }
    site.frontier = Math.max(site.frontier, cs.frontier);
    site.propositions = Math.max(site.propositions, cs.propositions);
    site.completed ||= cs.completed;
    site.combinationsLow = (site.combinationsLow | cs.combinationsLow) >>> 0;
    site.combinationsHigh = (site.combinationsHigh | cs.combinationsHigh) >>> 0;
    for (const key of cs.buckets) {
      const bucket = store.buckets.get(key)!;
      if (created.delete(bucket)) site.buckets.push(bucket);
    }
  }
  for (const cm of child.misuses) {
    const existing = store.misuses.get(cm.key);
    const added = cm.count - (baseMisuses.get(cm.key)?.count ?? 0);
    if (existing === undefined) store.misuses.set(cm.key, { text: cm.text, count: added });
    else existing.count += added;
  }
  for (const c of child.counters) {
    if (store.counters.has(c.key)) continue;
    const counter = "bucket" in c ? store.buckets.get(c.bucket) : store.sites.get(c.site);
    if (counter !== undefined) store.counters.set(c.key, counter);
  }
  const d = child.dropped;
  const b = base?.dropped;
  store.droppedSiteCalls += d.siteCalls - (b?.siteCalls ?? 0);
  store.droppedBucketCalls += d.bucketCalls - (b?.bucketCalls ?? 0);
  store.untrackedAlwaysFailures += d.untrackedAlwaysFailures - (b?.untrackedAlwaysFailures ?? 0);
  store.droppedDiscoveries += d.discoveries - (b?.discoveries ?? 0);
  store.droppedMisuseReports += d.misuseReports - (b?.misuseReports ?? 0);
  unite(store.droppedSiteMessages, d.siteMessages);
  unite(store.droppedBucketMessages, d.bucketMessages);
  unite(store.untrackedAlwaysMessages, d.untrackedAlwaysMessages);
}

/**
 * What fork `store` added to its parent since it was forked (see `AssertionTable.delta`): the
 * sites, buckets and misuses it touched with counts as increments (best values, latches and
 * first failures as they are: they merge by best or union), those it created in creation order,
 * and the discovery keys it recorded. Read from the fork alone, so the parent may have absorbed
 * siblings' deltas in the meantime.
 */
export function deltaOf(store: TableStore, options: Required<AssertionTableOptions>): AssertionTableState {
  const at = store.forkedAt!;
  const bucketKeys = new Map<Bucket, number>();
  const buckets: AssertionTableState["buckets"][number][] = [];
  for (const { key, bucket: b } of store.buckets.slots) {
    bucketKeys.set(b, key);
    buckets.push(bucketState(key, b, true));
  }
  // A fork's copy of a site lists only the buckets the fork created.
  const sites = [...store.sites.values()].map((site) => siteState(site, bucketKeys, true));
  const misuses = [...store.misuses].map(([key, m]) => ({ key, text: m.text, count: m.count - (m.baseCount ?? 0) }));
  // A fork's own counters are the keys it recorded; absorbing skips those the target knows.
  const counters = [...store.counters].map(([key, c]) =>
    c instanceof Bucket ? { key, bucket: bucketKeys.get(c)! } : { key, site: c.message },
  );
  return {
    options: { ...options },
    sites,
    buckets,
    misuses,
    counters,
    dropped: {
      siteCalls: store.droppedSiteCalls - at.siteCalls,
      siteMessages: store.droppedSiteMessages.slice(),
      bucketCalls: store.droppedBucketCalls - at.bucketCalls,
      bucketMessages: store.droppedBucketMessages.slice(),
      untrackedAlwaysFailures: store.untrackedAlwaysFailures - at.untracked,
      untrackedAlwaysMessages: store.untrackedAlwaysMessages.slice(),
      discoveries: store.droppedDiscoveries - at.discoveries,
      misuseReports: store.droppedMisuseReports - at.misuseReports,
    },
  };
}

/** One site as plain data; `relative` gives a fork's counts as increments over what it inherited. */
function siteState(
  site: Site,
  bucketKeys: ReadonlyMap<Bucket, number>,
  relative: boolean,
): AssertionTableState["sites"][number] {
  return {
    message: site.message,
    kind: site.kind,
    comparison: site.comparison,
    passCount: relative ? site.passCount - site.basePassCount : site.passCount,
    failCount: relative ? site.failCount - site.baseFailCount : site.failCount,
    firstFailure: site.firstFailure,
    bestDistance: site.bestDistance,
    bestLeft: site.bestLeft,
    frontier: site.frontier,
    propositions: site.propositions,
    completed: site.completed,
    combinationsLow: site.combinationsLow,
    combinationsHigh: site.combinationsHigh,
    buckets: site.buckets.map((b) => bucketKeys.get(b)!),
  };
}

/** One bucket as plain data, its hits relative to what a fork inherited when `relative`. */
function bucketState(key: number, b: Bucket, relative: boolean): AssertionTableState["buckets"][number] {
  return {
    key,
    identity: b.identity,
    hits: relative ? b.hits - b.baseHits : b.hits,
    bestQuality: b.bestQuality === null ? null : b.bestQuality.slice(),
    bestQualityKeys: b.bestQualityKeys === null ? null : b.bestQualityKeys.slice(),
  };
}

/** The whole table a fork sees: its parent with the fork's delta merged in. */
export function forkSnapshot(store: TableStore, options: Required<AssertionTableOptions>): AssertionTableState {
  const whole = new TableStore();
  absorbInto(whole, snapshotOf(store.parent!, options), null);
  absorbInto(whole, deltaOf(store, options), null);
  return snapshotOf(whole, options);
}
