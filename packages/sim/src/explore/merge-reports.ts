/**
 * Combines exploration reports of consecutive parts of a campaign (root seeds explored in
 * workers, or shards) in the given order. Counts add up, bug recipes and per-seed records
 * concatenate, and the frontier-size series continues where the previous part ended.
 */
import { FRONTIER_SAMPLES_MAX } from "./explorer.ts";
import type { DiscoveryKind } from "../chaos/assertions/index.ts";
import type { ExplorationReport } from "./contract.ts";

export function mergeExplorationReports(parts: readonly ExplorationReport[]): ExplorationReport | null {
  const first = parts[0];
  if (first === undefined) return null;
  const discoveriesByKind = { ...first.discoveriesByKind } as Record<DiscoveryKind, number>;
  for (const key of Object.keys(discoveriesByKind) as DiscoveryKind[]) discoveriesByKind[key] = 0;
  let timelines = 0;
  let drawsReplayed = 0;
  let drawsNew = 0;
  let frontierSizes: (readonly [number, number])[] = [];
  for (const part of parts) {
    for (const [kind, n] of Object.entries(part.discoveriesByKind) as [DiscoveryKind, number][])
      discoveriesByKind[kind] = (discoveriesByKind[kind] ?? 0) + n;
    for (const [t, size] of part.frontierSizes) frontierSizes.push([timelines + t, size]);
    timelines += part.timelines;
    drawsReplayed += part.replayOverhead.drawsReplayed;
    drawsNew += part.replayOverhead.drawsNew;
  }
  // The same bound and thinning as the explorer: keep every other sample until it fits.
  while (frontierSizes.length > FRONTIER_SAMPLES_MAX) frontierSizes = frontierSizes.filter((_, i) => i % 2 === 0);
  const total = drawsReplayed + drawsNew;
  const sum = (pick: (r: ExplorationReport) => number) => parts.reduce((s, r) => s + pick(r), 0);
  return {
    config: first.config,
    timelines,
    bugsFound: sum((r) => r.bugsFound),
    bugRecipes: parts.flatMap((r) => r.bugRecipes),
    perSeed: parts.flatMap((r) => r.perSeed),
    discoveriesByKind,
    frontierSizes,
    replayOverhead: { drawsReplayed, drawsNew, replayedFraction: total === 0 ? 0 : drawsReplayed / total },
    entriesRetired: sum((r) => r.entriesRetired),
    entriesEvicted: sum((r) => r.entriesEvicted),
    discoveriesTooDeep: sum((r) => r.discoveriesTooDeep),
    freshTimelines: sum((r) => r.freshTimelines ?? 0),
    entriesRevived: sum((r) => r.entriesRevived ?? 0),
  };
}
