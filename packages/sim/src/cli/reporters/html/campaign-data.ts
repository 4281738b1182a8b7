/**
 * The data of the campaign page, taken from the JSON run report: per simulation its outcome, seeds,
 * assertion coverage, exploration, and its failures grouped by the property they violated, each
 * with the command that replays it and, when one was written, the timeline page of that seed.
 */
import type { CoverageCounts, CoverageEntry, FileCoverageSummary } from "../../coverage-report.ts";
import type { RunReportFile, SimulationEntry } from "../../run-report.ts";

/** Files listed on the campaign page under a simulation's code coverage (the HTML view has all). */
export const HTML_COVERAGE_FILES_MAX = 10;

/** A simulation's code coverage on the campaign page (`moonpool run --coverage`). */
export interface CampaignCodeCoverage {
  readonly lines: CoverageCounts | null;
  readonly branches: CoverageCounts | null;
  readonly functions: CoverageCounts | null;
  readonly blocks: CoverageCounts;
  /** How many files the figures cover, and the lowest-covered of them (by lines). */
  readonly fileCount: number;
  readonly lowestFiles: readonly FileCoverageSummary[];
  /** The coverage HTML view and lcov.info, relative to the campaign page; null when not written. */
  readonly htmlHref: string | null;
  readonly lcovHref: string | null;
}

export interface TimelineLink {
  readonly simulation: string;
  readonly seed: number;
  readonly recipe: string;
  /** The timeline page, relative to the campaign page. */
  readonly href: string;
}

export interface FailureGroup {
  /** The violated property, or the failure kind when no property is named. */
  readonly property: string;
  readonly timelines: readonly {
    readonly seed: number;
    readonly index: number;
    readonly recipe: string;
    readonly message: string;
    readonly replayCommand: string;
    readonly timelineHref: string | null;
  }[];
}

export interface CampaignSimulation {
  readonly name: string;
  readonly description: string;
  readonly file: string;
  readonly status: string;
  /** A planted bug: the simulation passes when its seeds fail. */
  readonly expectFailure: boolean;
  readonly stoppedBy: string | null;
  readonly explore: boolean;
  readonly iterations: number;
  readonly successfulRuns: number;
  readonly failedRuns: number;
  readonly totalWallTimeMs: number;
  readonly seeds: readonly {
    index: number;
    seed: number;
    ok: boolean;
    simulatedTimeMs: number;
    eventsProcessed: number;
    wallTimeMs: number;
  }[];
  readonly assertionDetails: readonly Record<string, unknown>[];
  readonly bucketSummaries: readonly Record<string, unknown>[];
  readonly assertionViolations: readonly string[];
  readonly coverageViolations: readonly string[];
  readonly saturation: Record<string, unknown> | null;
  readonly exploration: Record<string, unknown> | null;
  /** How an adaptive campaign split its budget and why it stopped; null for any other campaign. */
  readonly campaign: Record<string, unknown> | null;
  readonly failureGroups: readonly FailureGroup[];
  /** When each sometimes signal was first reached (seed index); empty in reports without the data. */
  readonly sometimesFirstReached: readonly { message: string; kind: string; seedIndex: number }[];
  /** Code coverage of the system under test; null without `--coverage`. */
  readonly codeCoverage: CampaignCodeCoverage | null;
}

export function campaignCodeCoverage(coverage: CoverageEntry | undefined): CampaignCodeCoverage | null {
  if (coverage === undefined) return null;
  const dir = coverage.dir === undefined ? null : coverage.dir.split("\\").join("/");
  return {
    lines: coverage.lines,
    branches: coverage.branches,
    functions: coverage.functions,
    blocks: coverage.blocks,
    fileCount: coverage.files.length,
    lowestFiles: coverage.files.slice(0, HTML_COVERAGE_FILES_MAX),
    htmlHref: dir === null ? null : `${dir}/html/index.html`,
    lcovHref: dir === null ? null : `${dir}/lcov.info`,
  };
}

export interface CampaignData {
  readonly generatedBy: string;
  readonly interrupted: boolean;
  readonly wallTimeMs: number | null;
  readonly simulations: readonly CampaignSimulation[];
}

/** Groups a simulation's failing timelines by property (first-seen order). */
export function failureGroups(entry: SimulationEntry, links: readonly TimelineLink[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup["timelines"][number][]>();
  const seeds = entry.report.seeds as {
    seed: number;
    failures: { kind: string; property?: string; recipe?: string }[];
  }[];
  for (const failure of entry.failures) {
    const seedFailures = seeds.find((s) => s.seed === failure.seed)?.failures ?? [];
    const first = seedFailures.find((f) => (f.recipe ?? "") === failure.recipe) ?? seedFailures[0];
    const property = first?.property ?? failure.kind;
    const link = links.find(
      (l) => l.simulation === entry.name && l.seed === failure.seed && l.recipe === failure.recipe,
    );
    let list = groups.get(property);
    if (list === undefined) groups.set(property, (list = []));
    list.push({
      seed: failure.seed,
      index: failure.index,
      recipe: failure.recipe,
      message: failure.message,
      // A failure that does not replay on its own has no command: the page shows why instead.
      replayCommand: failure.notReplaying?.split("\n")[0] ?? failure.replayCommand,
      timelineHref: link?.href ?? null,
    });
  }
  return [...groups].map(([property, timelines]) => ({ property, timelines }));
}

export function buildCampaignData(file: RunReportFile, links: readonly TimelineLink[]): CampaignData {
  return {
    generatedBy: `moonpool ${file.packageVersion} (Node ${file.node})`,
    interrupted: file.interrupted,
    wallTimeMs: file.host?.wallTimeMs ?? null,
    simulations: file.simulations.map((entry) => {
      const r = entry.report;
      return {
        name: entry.name,
        description: entry.description,
        file: entry.file,
        status: entry.status,
        expectFailure: entry.expectFailure === true,
        stoppedBy: entry.stoppedBy,
        explore: entry.explore,
        iterations: r.iterations,
        successfulRuns: r.successfulRuns,
        failedRuns: r.failedRuns,
        totalWallTimeMs: r.totalWallTimeMs,
        seeds: (r.seeds as Record<string, any>[]).map((s) => ({
          index: s.index,
          seed: s.seed,
          ok: s.ok,
          simulatedTimeMs: s.simulatedTimeMs,
          eventsProcessed: s.eventsProcessed,
          wallTimeMs: s.wallTimeMs,
        })),
        assertionDetails: [...(r.assertionDetails as Record<string, unknown>[]), ...neverReachedRows(entry)],
        bucketSummaries: r.bucketSummaries,
        assertionViolations: r.assertionViolations,
        coverageViolations: r.coverageViolations,
        saturation: r.saturation ?? null,
        exploration: r.exploration ?? null,
        campaign: r.campaign ?? null,
        failureGroups: failureGroups(entry, links),
        sometimesFirstReached: entry.sometimesFirstReached ?? [],
        codeCoverage: campaignCodeCoverage(entry.coverage),
      };
    }),
  };
}

/**
 * The assertions declared in the source that no seed reached, as MISS rows of the coverage table
 * (a site registers only when first called, so the campaign's own table cannot have them).
 */
function neverReachedRows(entry: SimulationEntry): Record<string, unknown>[] {
  return (entry.neverEvaluated ?? []).map((a) => ({
    message: a.message,
    kind: a.kind ?? "always",
    comparison: null,
    functionName: null,
    passCount: 0,
    failCount: 0,
    watermark: null,
    frontier: null,
    propositions: null,
    status: "MISS",
    firstFailure: null,
    neverReached: a.where,
  }));
}
