/**
 * The seam between the runner and the explorer. The runner knows how to run one timeline; how
 * root seeds are explored in depth is a strategy the explore layer provides (the runner never
 * imports it: layers depend downwards only). `@moonpool/sim`'s index registers the explorer.
 */
import { AssertionTable, type AssertionTableState, type DiscoveryKind } from "../chaos/assertions/index.ts";
import type { Breakpoint } from "../engine/rng.ts";
import type { ExplorationConfig, ExplorationSettings } from "./exploration-config.ts";
import type { SeedResult } from "./seed-result.ts";

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
  readonly replayOverhead: { readonly drawsReplayed: number; readonly drawsNew: number; readonly replayedFraction: number };
  readonly entriesRetired: number;
  readonly entriesEvicted: number;
  /** Discoveries not branched because their recipe would exceed maxRecipeLen. */
  readonly discoveriesTooDeep: number;
  /** Timelines run from fresh streams because a root's frontier had nothing to expand. */
  readonly freshTimelines: number;
}

/**
 * Runs one timeline: the root seed with a recipe of reseed points, recording its assertions in
 * `table` (default: the campaign's table).
 */
export type TimelineRunner = (seed: number, recipe: readonly Breakpoint[], table?: AssertionTable) => Promise<SeedResult>;

/** One continuation of a batch: its recipe, and the table snapshot it starts from. */
export interface TimelineJob {
  readonly recipe: readonly Breakpoint[];
  readonly base: AssertionTableState;
}

/** What one continuation produced (plain data: it may come from a worker thread). */
export interface TimelineOutcome {
  /** Discoveries included: they become frontier entries. */
  readonly result: SeedResult;
  /** The job's table afterwards (its base plus what the timeline added). */
  readonly table: AssertionTableState;
}

/**
 * Runs the continuations of one batch, each in a table of its own starting from its `base`, and
 * returns their outcomes in job order (however they were scheduled).
 */
export type BatchRunner = (seed: number, jobs: readonly TimelineJob[]) => Promise<TimelineOutcome[]>;

/** The in-thread batch runner: the jobs one after the other. */
export function sequentialBatchRunner(runTimeline: TimelineRunner): BatchRunner {
  return async (seed, jobs) => {
    const outcomes: TimelineOutcome[] = [];
    for (const job of jobs) {
      const table = AssertionTable.fromSnapshot(job.base);
      const result = await runTimeline(seed, job.recipe, table);
      outcomes.push({ result, table: table.snapshot() });
    }
    return outcomes;
  };
}

export interface RootSeedStrategy {
  /** Explores one root seed; its result is the root's, with the failures of continuations folded in. */
  exploreRoot(seed: number): Promise<SeedResult>;
  report(): ExplorationReport;
}

/** `runTimeline` runs root timelines in the campaign's table; `runBatch` runs continuations. */
export type RootSeedStrategyFactory = (config: ExplorationConfig, table: AssertionTable, runTimeline: TimelineRunner, runBatch: BatchRunner) => RootSeedStrategy;

let registered: RootSeedStrategyFactory | null = null;

/** Called by the explore layer when it loads. */
export function registerExplorationStrategy(factory: RootSeedStrategyFactory): void {
  registered = factory;
}

export function explorationStrategy(): RootSeedStrategyFactory {
  if (registered === null) {
    throw new Error("the explorer is not loaded: import SimulationBuilder from '@moonpool/sim' (its index registers the explorer)");
  }
  return registered;
}
