/**
 * The replay-from-start explorer (docs/decisions.md D13). For each root seed: run the root timeline, turn its
 * discoveries into frontier entries, then repeatedly take the frontier's best entry (a round of
 * `entriesPerRound` best entries) and run `branchingFactor` continuations of each — each replays
 * the prefix from the start and reseeds the `sim` and `schedule` streams at the entry's draw coordinate, so both random decisions and the
 * order of same-instant events are explored — until the root seed's timeline budget is spent.
 * When the frontier is empty the budget goes to fresh timelines (both streams reseeded before the
 * first draw): a root never stops early and does at least what as many random seeds would.
 * With `reviveRetired`, a dry frontier alternates batches of fresh timelines with retired entries
 * brought back, so a chain whose entries retired too early gets more tries.
 * A failing continuation marks its root seed failed and becomes a bug recipe; every distinct
 * violated property is kept (or, with `stopOnFailure`, the root ends at its first failure).
 *
 * Chaos settings stay per root: the `config` stream (swarm masks) is never reseeded, and the chaos
 * drawn from `sim` at start-up precedes every discovery, so branches keep their root's faults and
 * the root's chaos record describes them. Only fresh timelines redraw the `sim` part.
 */
import type { AssertionTable, DiscoveryKind } from "../chaos/assertions/index.ts";
import type { ExplorationConfig, ExplorationSettings } from "./config.ts";
import type {
  BatchRunner,
  BugRecipe,
  ExplorationReport,
  RootExploration,
  TimelineFailure,
  TimelineResult,
  TimelineRunner,
} from "./contract.ts";
import { Frontier, type FrontierEntry } from "./frontier.ts";
import { childSeed, formatRecipe, type Recipe } from "../engine/recipe.ts";
import type { Breakpoint } from "../engine/rng.ts";

/** Branch points reseed every stream a recipe can: random decisions and event order. */
const BRANCH_STREAMS = "sim+schedule";

/** Frontier size is sampled at most this many times per campaign (the report stays small). */
export const FRONTIER_SAMPLES_MAX = 200;

function bugProperty(f: TimelineFailure): string {
  return f.kind === "assertion" && f.property !== undefined
    ? f.property
    : `${f.kind}${f.actor !== undefined ? ` (${f.actor})` : ""}`;
}

/**
 * The `index`-th fresh timeline of a root: both streams reseeded before their first draw. Chaos
 * drawn from `sim` changes with it; swarm masks (the `config` stream) stay the root's.
 */
function freshRecipe(seed: number, index: number): Recipe {
  return [{ count: 0, seed: childSeed(seed, [], "fresh", index), streams: BRANCH_STREAMS }];
}

/** The report's copy of the settings: `workers` left out, it never changes the outcome. */
function settingsOf(config: ExplorationConfig): ExplorationSettings {
  const { workers: _workers, ...settings } = config;
  return settings;
}

/** Explores root seeds in depth; `R` is the runner's timeline result, returned with failures folded in. */
export class Explorer<R extends TimelineResult = TimelineResult> {
  timelines = 0;
  readonly discoveriesByKind: Record<DiscoveryKind, number> = {
    firstPass: 0,
    watermark: 0,
    frontier: 0,
    combination: 0,
    newBucket: 0,
    betterQuality: 0,
  };
  drawsReplayed = 0;
  drawsNew = 0;
  readonly bugRecipes: BugRecipe[] = [];
  readonly perSeed: RootExploration[] = [];
  readonly frontierSizes: [timeline: number, size: number][] = [];
  entriesRetired = 0;
  entriesEvicted = 0;
  discoveriesTooDeep = 0;
  freshTimelines = 0;
  entriesRevived = 0;
  private readonly bugKeys = new Set<string>();

  constructor(
    readonly config: ExplorationConfig,
    private readonly table: AssertionTable,
    /** Runs root timelines, in the campaign's table. */
    private readonly runTimeline: TimelineRunner<R>,
    /** Runs a batch of continuations in this thread (the caller may stop between batches); outcomes in job order. */
    private readonly runBatch: BatchRunner<R>,
  ) {}

  /** Explores one root seed; returns its root result with the exploration's failures folded in. */
  async exploreRoot(seed: number): Promise<R> {
    const { maxFrontier, maxRecipeLen, entryEnergy, reviveRetired } = this.config;
    const visits = (key: string) => this.table.visits(key);
    const frontier = new Frontier(maxFrontier, maxRecipeLen, visits, entryEnergy, reviveRetired);
    let timelines = 0;
    let fresh = 0;
    // With revival, a dry spell starts when no live entry is left and ends with the next new entry:
    // during it every other batch is fresh timelines, the rest go to a revived (or live) entry.
    let dry = false;
    let dryBatches = 0;
    let firstBug: number | null = null;
    const bugs: BugRecipe[] = [];
    const extraFailures: R["failures"][number][] = [];
    // The first continuation that failed: a root whose own timeline passed reports this one.
    let firstFailing: { readonly result: R; readonly recipe: string } | undefined;

    /** Accounts for one timeline that has run (in timeline order: bug numbering depends on it). */
    const record = (recipe: Recipe, result: R): void => {
      timelines++;
      this.timelines++;
      let replayed = 0;
      for (const bp of recipe) replayed += bp.count;
      const draws = result.recipeDraws ?? result.simDraws;
      this.drawsReplayed += Math.min(replayed, draws);
      this.drawsNew += Math.max(0, draws - replayed);
      for (const d of result.discoveries) this.discoveriesByKind[d.kind]++;
      if (!result.ok) {
        firstBug ??= timelines;
        for (const f of result.failures) {
          const property = bugProperty(f);
          const key = `${seed}|${property}`;
          if (this.bugKeys.has(key)) continue;
          this.bugKeys.add(key);
          const bug: BugRecipe = {
            seed,
            recipe: formatRecipe(recipe),
            property,
            message: f.message,
            foundAtTimeline: timelines,
            traceHash: result.traceHash,
          };
          bugs.push(bug);
          this.bugRecipes.push(bug);
          // Each failure of a continuation names its own timeline (recipe and hash): the record
          // it joins may describe another timeline (the root's, or an earlier continuation's).
          if (recipe.length > 0) {
            extraFailures.push({
              ...f,
              message: `${f.message} [exploration recipe "${bug.recipe}"]`,
              recipe: bug.recipe,
              traceHash: result.traceHash,
            });
          }
          if (recipe.length > 0) firstFailing ??= { result, recipe: bug.recipe };
        }
      }
    };

    const root = await this.runTimeline(seed, []);
    record([], root);
    frontier.addDiscoveries([], root.discoveries, seed);
    this.sampleFrontier(frontier.size);

    const stopped = () => this.config.stopOnFailure && firstBug !== null;
    const { branchingFactor, entriesPerRound } = this.config;
    while (timelines < this.config.maxRunsPerSeed && !stopped()) {
      // A round takes the `entriesPerRound` best entries (an empty frontier hands the rest of the
      // budget to fresh timelines, whose discoveries refill it). With `reviveRetired`, a frontier
      // that ran dry alternates rounds of fresh timelines with rounds of revived entries until a
      // discovery ends the dry spell.
      const taken = new Set<FrontierEntry>();
      let entry = frontier.select();
      let freshRound = false;
      if (reviveRetired && (dry || entry === undefined)) {
        if (!dry) dryBatches = 0;
        dry = true;
        freshRound = dryBatches++ % 2 === 1;
      }
      const next = () => frontier.select(taken) ?? (dry ? frontier.revive() : undefined);
      if (!freshRound) {
        for (entry ??= dry ? frontier.revive() : undefined; entry !== undefined; entry = next()) {
          taken.add(entry);
          if (taken.size === entriesPerRound) break;
        }
      }
      // Every child of a round starts from the table as it was before the round and the
      // children's records are merged in child order afterwards. Siblings therefore never see
      // each other's discoveries, which is what lets a worker pool run them in any order with
      // exactly the same outcome.
      const base = this.table;
      const budget = this.config.maxRunsPerSeed - timelines;
      const recipes: Recipe[] = [];
      const parents: (FrontierEntry | undefined)[] = [];
      if (taken.size === 0) {
        const batch = Math.min(branchingFactor * entriesPerRound, budget);
        for (let i = 0; i < batch; i++) recipes.push(freshRecipe(seed, fresh++));
        parents.length = batch;
        this.freshTimelines += batch;
      }
      // Continuations per entry taken, in the order taken (an entry the budget left out has none).
      const children = new Map<FrontierEntry, number>();
      for (const entry of taken) {
        for (let i = 0; i < branchingFactor && recipes.length < budget; i++) {
          recipes.push(this.childRecipe(seed, entry));
          parents.push(entry);
          children.set(entry, i + 1);
        }
      }
      const outcomes = await this.runBatch(
        seed,
        recipes.map((recipe) => ({ recipe, base })),
      );
      if (outcomes.length !== recipes.length)
        throw new Error(`batch runner returned ${outcomes.length} outcomes for ${recipes.length} continuations`);
      const productive = new Set<FrontierEntry | undefined>();
      for (let i = 0; i < outcomes.length && !stopped(); i++) {
        const { result, table } = outcomes[i]!;
        const recipe = recipes[i]!;
        record(recipe, result);
        this.table.absorb(table, null);
        if (result.discoveries.length > 0) productive.add(parents[i]);
        if (frontier.addDiscoveries(recipe, result.discoveries, seed) > 0) dry = false;
      }
      for (const [entry, count] of children) frontier.recordBatch(entry, productive.has(entry), count);
      this.sampleFrontier(frontier.size);
    }
    this.entriesRetired += frontier.retired;
    this.entriesRevived += frontier.revived;
    this.entriesEvicted += frontier.evicted;
    this.discoveriesTooDeep += frontier.tooDeep;
    this.perSeed.push({ seed, timelines, bugs, firstBugAtTimeline: firstBug });
    if (extraFailures.length === 0) return root;
    if (root.ok && firstFailing !== undefined) {
      // The record describes the timeline that failed (its hash, time and events, with its
      // recipe), so that replaying `seed` with `recipe` reproduces exactly what it says.
      const failed = firstFailing.result;
      return {
        ...root,
        ok: false,
        failures: extraFailures,
        simulatedTimeMs: failed.simulatedTimeMs,
        eventsProcessed: failed.eventsProcessed,
        traceHash: failed.traceHash,
        recipe: firstFailing.recipe,
      } as R;
    }
    return { ...root, ok: false, failures: [...root.failures, ...extraFailures] } as R;
  }

  private childRecipe(seed: number, entry: FrontierEntry): Recipe {
    const index = entry.childrenSpawned++;
    const branchAt = `${entry.discovery.segment}:${entry.drawCount}`;
    const branch: Breakpoint = {
      count: entry.drawCount,
      seed: childSeed(seed, entry.prefix, branchAt, index),
      streams: BRANCH_STREAMS,
    };
    return [...entry.prefix, branch];
  }

  private sampleFrontier(size: number): void {
    this.frontierSizes.push([this.timelines, size]);
    if (this.frontierSizes.length > FRONTIER_SAMPLES_MAX) {
      // Keep every other sample: the series stays evenly spread and bounded.
      const kept = this.frontierSizes.filter((_, i) => i % 2 === 0);
      this.frontierSizes.length = 0;
      this.frontierSizes.push(...kept);
    }
  }

  report(): ExplorationReport {
    const { drawsReplayed, drawsNew } = this;
    const total = drawsReplayed + drawsNew;
    return {
      config: settingsOf(this.config),
      timelines: this.timelines,
      bugsFound: this.bugRecipes.length,
      bugRecipes: this.bugRecipes.slice(),
      perSeed: this.perSeed.slice(),
      discoveriesByKind: { ...this.discoveriesByKind },
      frontierSizes: this.frontierSizes.slice(),
      replayOverhead: { drawsReplayed, drawsNew, replayedFraction: total === 0 ? 0 : drawsReplayed / total },
      entriesRetired: this.entriesRetired,
      entriesEvicted: this.entriesEvicted,
      discoveriesTooDeep: this.discoveriesTooDeep,
      freshTimelines: this.freshTimelines,
      entriesRevived: this.entriesRevived,
    };
  }
}
