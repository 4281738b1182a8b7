/** What the report reads from an assertion table: per-site details, buckets, contract violations, coverage. */
import { MAX_MISUSE_ENTRIES } from "./limits.ts";
import { assertionFunctionName } from "./naming.ts";
import type {
  AssertionDetail,
  AssertionOverflow,
  AssertionStats,
  BucketSiteSummary,
  BucketSummary,
  ContractViolations,
  SometimesCoverage,
} from "./shapes.ts";
import { statusOf, type TableStore } from "./sites.ts";

/** One entry per tracked site with at least one call (each-sites are in `bucketSummaries`). */
export function siteDetails(store: TableStore): AssertionDetail[] {
  const out: AssertionDetail[] = [];
  for (const site of store.sites.values()) {
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
export function bucketSummaries(store: TableStore): BucketSiteSummary[] {
  const out: BucketSiteSummary[] = [];
  for (const site of store.sites.values()) {
    if (site.kind !== "sometimesEach") continue;
    let totalHits = 0;
    const buckets: BucketSummary[] = [];
    for (const bucket of site.buckets) {
      totalHits += bucket.hits;
      let bestQuality: Record<string, number> | null = null;
      if (bucket.bestQuality !== null) {
        bestQuality = {};
        bucket.bestQualityKeys!.forEach((key, i) => {
          bestQuality![key] = bucket.bestQuality![i]!;
        });
      }
      buckets.push({ identity: bucket.identity, hits: bucket.hits, bestQuality });
    }
    buckets.sort((a, b) => b.hits - a.hits);
    out.push({ message: site.message, bucketsDiscovered: site.buckets.length, totalHits, buckets });
  }
  return out.sort((a, b) => b.totalHits - a.totalHits);
}

/** `{ totalChecks, successes }` per message (each-sites excluded). */
export function results(store: TableStore): Record<string, AssertionStats> {
  const out = Object.create(null) as Record<string, AssertionStats>;
  for (const site of store.sites.values()) {
    if (site.kind === "sometimesEach") continue;
    const totalChecks = site.passCount + site.failCount;
    if (totalChecks > 0) out[site.message] = { totalChecks, successes: site.passCount };
  }
  return out;
}

/**
 * Contract validation: always-family failures, reached unreachables and misuse are safety
 * violations; sometimes-family sites never met (sometimesAll: never all true together) are coverage gaps.
 */
export function validateContracts(store: TableStore, maxSites: number): ContractViolations {
  const assertionViolations: string[] = [];
  const coverageViolations: string[] = [];
  for (const site of store.sites.values()) {
    const total = site.passCount + site.failCount;
    const call = `${assertionFunctionName(site.kind, site.comparison)}(${JSON.stringify(site.message)})`;
    switch (site.kind) {
      case "always":
      case "alwaysOrUnreachable":
      case "numericAlways":
        if (site.failCount > 0) {
          const times = site.failCount === 1 ? "once" : `${site.failCount} times`;
          assertionViolations.push(`${call} failed ${times} out of ${total}`);
        }
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
  for (const misuse of store.misuses.values())
    assertionViolations.push(`${misuse.text} (${misuse.count} ${misuse.count === 1 ? "call" : "calls"} ignored)`);
  if (store.droppedMisuseReports > 0) {
    assertionViolations.push(
      `${store.droppedMisuseReports} further assertion misuses were not listed (more than ${MAX_MISUSE_ENTRIES} distinct ones)`,
    );
  }
  if (store.untrackedAlwaysFailures > 0) {
    assertionViolations.push(
      `${store.untrackedAlwaysFailures} always-family failures were not tracked because the assertion table is full (${maxSites} sites): ` +
        store.untrackedAlwaysMessages.map((m) => JSON.stringify(m)).join(", "),
    );
  }
  return { assertionViolations, coverageViolations };
}

/** Sometimes, reachable and sometimesAll sites observed, and how many of them were reached. */
export function sometimesCoverage(store: TableStore): SometimesCoverage {
  let total = 0;
  let hit = 0;
  let booleanTotal = 0;
  const unreached: string[] = [];
  for (const site of store.sites.values()) {
    const boolean = site.kind === "sometimes" || site.kind === "reachable";
    if (!boolean && site.kind !== "sometimesAll") continue;
    total++;
    if (boolean) booleanTotal++;
    if (boolean ? site.passCount > 0 : site.completed) hit++;
    else unreached.push(site.message);
  }
  return { total, hit, booleanTotal, unreached };
}

/** What the table's limits made it drop. */
export function overflowOf(store: TableStore, maxSites: number, maxEachBuckets: number): AssertionOverflow {
  return {
    maxSites,
    maxEachBuckets,
    droppedSiteCalls: store.droppedSiteCalls,
    droppedSiteMessages: store.droppedSiteMessages.slice(),
    droppedBucketCalls: store.droppedBucketCalls,
    droppedBucketMessages: store.droppedBucketMessages.slice(),
    untrackedAlwaysFailures: store.untrackedAlwaysFailures,
    droppedDiscoveries: store.droppedDiscoveries,
    droppedMisuseReports: store.droppedMisuseReports,
  };
}
