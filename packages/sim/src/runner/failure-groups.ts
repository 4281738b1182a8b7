/**
 * Failing timelines grouped by cause (failure-cause.ts): the failure's kind, the assertion it
 * violated or its error's class and code, and its user source location, with ids, paths and
 * numbers normalised out of messages. Within a group the earliest failure
 * (least simulated time, then fewest events) comes first: the shortest story to replay.
 */
import type { SimulationReport } from "./report.ts";
import type { SeedFailure } from "./seed-result.ts";
import { userLocation, type SourceLocation } from "./source-location.ts";
import { causeKey } from "./failure-cause.ts";

export interface FailingTimeline {
  readonly seed: number;
  /** The seed's 0-based position in its campaign. */
  readonly index: number;
  /** Exploration recipe of the failing timeline ("" = the root seed itself). */
  readonly recipe: string;
  /** The timeline's first failure (what the group is keyed by). */
  readonly failure: SeedFailure;
  readonly eventsProcessed: number;
  readonly location: SourceLocation | null;
}

export interface FailureGroup {
  readonly key: string;
  /** What was violated, in one line: the property, else the kind and the earliest message. */
  readonly title: string;
  /** One timeline per seed (its earliest), earliest-failing first. */
  readonly timelines: readonly FailingTimeline[];
}

function earlier(a: FailingTimeline, b: FailingTimeline): number {
  return a.failure.timeMs - b.failure.timeMs || a.eventsProcessed - b.eventsProcessed || a.index - b.index;
}

/** Every failing timeline of the report, one per (seed, recipe), keyed by its first failure. */
export function failingTimelines(report: SimulationReport): FailingTimeline[] {
  const out: FailingTimeline[] = [];
  report.seeds.forEach((result, i) => {
    if (result.ok) return;
    const seen = new Set<string>();
    for (const failure of result.failures) {
      const recipe = failure.recipe ?? "";
      if (seen.has(recipe)) continue;
      seen.add(recipe);
      const index = report.seedIndexes[i] ?? i;
      out.push({
        seed: result.seed,
        index,
        recipe,
        failure,
        eventsProcessed: result.eventsProcessed,
        location: userLocation(failure.stack),
      });
    }
  });
  return out;
}

export function groupFailures(report: SimulationReport): FailureGroup[] {
  const groups = new Map<string, FailingTimeline[]>();
  for (const timeline of failingTimelines(report)) {
    const key = causeKey(timeline.failure, timeline.location);
    const list = groups.get(key) ?? [];
    list.push(timeline);
    groups.set(key, list);
  }
  const result: FailureGroup[] = [];
  for (const [key, all] of groups) {
    const bySeed = new Map<number, FailingTimeline>();
    for (const t of all) {
      const kept = bySeed.get(t.seed);
      if (kept === undefined || earlier(t, kept) < 0) bySeed.set(t.seed, t);
    }
    const timelines = [...bySeed.values()].sort(earlier);
    const first = timelines[0]!;
    // A liveness failure is a property that never held, not a violated one: its title says so.
    const title =
      first.failure.kind === "liveness"
        ? `liveness "${first.failure.property ?? first.failure.message}" did not converge`
        : first.failure.property !== undefined
          ? `"${first.failure.property}" violated`
          : `[${first.failure.kind}] ${first.failure.message}`;
    result.push({ key, title, timelines });
  }
  // Groups in the order their first seed ran: stable whatever the failures' times.
  return result.sort(
    (a, b) => Math.min(...a.timelines.map((t) => t.index)) - Math.min(...b.timelines.map((t) => t.index)),
  );
}

export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}
