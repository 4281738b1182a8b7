/**
 * What the explorer needs from whoever runs timelines, and what it reports. The runner passes a
 * "run one timeline" callback and a batch runner; the explorer never sees how a seed runs, so the
 * result types here hold only the fields it reads (the runner's `SeedResult` has them all).
 */
import type { AssertionTable, AssertionTableState, Discovery, DiscoveryKind } from "../chaos/assertions/index.ts";
import type { Breakpoint } from "../engine/rng.ts";
import type { ExplorationSettings } from "./config.ts";

/** The parts of a failure the explorer reads (to name bugs) and rewrites (to attach recipes). */
export interface TimelineFailure {
  readonly kind: string;
  readonly message: string;
  readonly actor?: string;
  readonly property?: string;
  readonly recipe?: string;
  readonly traceHash?: string;
}

/** The parts of one timeline's result the explorer reads. */
export interface TimelineResult {
  readonly ok: boolean;
  readonly failures: readonly TimelineFailure[];
  readonly simulatedTimeMs: number;
  readonly eventsProcessed: number;
  readonly traceHash: string;
  readonly simDraws: number;
  readonly recipeDraws?: number;
  readonly discoveries: readonly Discovery[];
  readonly recipe?: string;
}

export interface BugRecipe {
  readonly seed: number;
  /** Recipe text, `"count@seed -> count@seed"` (empty: the root timeline itself failed). */
  readonly recipe: string;
  /** What failed: the violated assertion's message, or the failure kind. */
  readonly property: string;
  readonly message: string;
  /** Timelines this root seed had run when the bug was found (1 = the root run). */
  readonly foundAtTimeline: number;
  readonly traceHash: string;
}

export interface RootExploration {
  readonly seed: number;
  readonly timelines: number;
  readonly bugs: readonly BugRecipe[];
  /** Timelines run when the first bug was found, or null. */
  readonly firstBugAtTimeline: number | null;
}

/** What the explorer did (null in the report when exploration is off). */
export interface ExplorationReport {
  /** The settings (without `workers`: the report is the same for every number of workers). */
  readonly config: ExplorationSettings;
  /** Timelines run in total, root runs included. */
  readonly timelines: number;
  /** Distinct bugs (root seed × violated property). */
  readonly bugsFound: number;
  readonly bugRecipes: readonly BugRecipe[];
  readonly perSeed: readonly RootExploration[];
  readonly discoveriesByKind: Readonly<Record<DiscoveryKind, number>>;
  /** `[timelines so far, frontier size]` samples over the campaign. */
  readonly frontierSizes: readonly (readonly [number, number])[];
  /** Draws re-executed to reach branch points vs draws of new behaviour. */
  readonly replayOverhead: {
    readonly drawsReplayed: number;
    readonly drawsNew: number;
    readonly replayedFraction: number;
  };
  readonly entriesRetired: number;
  readonly entriesEvicted: number;
  /** Discoveries not branched because their recipe would exceed maxRecipeLen. */
  readonly discoveriesTooDeep: number;
  /** Timelines run from fresh streams because a root's frontier had nothing to expand. */
  readonly freshTimelines: number;
  /** Retired entries brought back by `reviveRetired` (0 when it is off). */
  readonly entriesRevived: number;
}

/**
 * Runs one timeline: the root seed with a recipe of reseed points, recording its assertions in
 * `table` (default: the campaign's table).
 */
export type TimelineRunner<R extends TimelineResult = TimelineResult> = (
  seed: number,
  recipe: readonly Breakpoint[],
  table?: AssertionTable,
) => Promise<R>;

/** One continuation of a batch: its recipe, and the table it starts from (unchanged by the batch). */
export interface TimelineJob {
  readonly recipe: readonly Breakpoint[];
  readonly base: AssertionTable;
}

/** What one continuation produced: its result and its table delta, merged in job order. */
export interface TimelineOutcome<R extends TimelineResult = TimelineResult> {
  /** Discoveries included: they become frontier entries. */
  readonly result: R;
  /** What the timeline added to its base table (`AssertionTable.delta`): merge with `absorb(table, null)`. */
  readonly table: AssertionTableState;
}

/**
 * Runs the continuations of one batch, each in a table of its own starting from its `base`, and
 * returns their outcomes in job order (however they were scheduled).
 */
export type BatchRunner<R extends TimelineResult = TimelineResult> = (
  seed: number,
  jobs: readonly TimelineJob[],
) => Promise<TimelineOutcome<R>[]>;

/** The in-thread batch runner: the jobs one after the other, each in a fork of its base table. */
export function sequentialBatchRunner<R extends TimelineResult>(runTimeline: TimelineRunner<R>): BatchRunner<R> {
  return async (seed, jobs) => {
    const outcomes: TimelineOutcome<R>[] = [];
    for (const job of jobs) {
      const table = job.base.fork();
      const result = await runTimeline(seed, job.recipe, table);
      outcomes.push({ result, table: table.delta() });
    }
    return outcomes;
  };
}
