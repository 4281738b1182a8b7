/**
 * The adaptive campaign (docs/decisions.md D27): one budget of timelines, spent batch by batch on
 * fresh root seeds (the plain campaign's seeds, in its order) and on continuations of entries of
 * one frontier shared by every root seed, in the proportion `BudgetAllocator` gives from what each
 * arm has yielded. Every timeline of a batch starts from the campaign's table as it was before the
 * batch and the batch is merged in job order, so the outcome does not depend on where or in which
 * order the timelines ran. A root seed that fails is not continued (its entries are dropped): a
 * second failure of the same timeline family would cost budget and find nothing new.
 *
 * Continuation failures fold into their root seed's result, as the per-root explorer folds them,
 * so every failure names the timeline (seed and recipe) that reproduces it.
 */
import type { AssertionTable, DiscoveryKind } from "../chaos/assertions/index.ts";
import { childSeed, formatRecipe, type Recipe } from "../engine/recipe.ts";
import type { Breakpoint } from "../engine/rng.ts";
import { BudgetAllocator, CAMPAIGN_BATCH_TIMELINES, type ArmYield, type CampaignArm } from "./budget-allocator.ts";
import type { ExplorationSettings } from "./config.ts";
import type { BugRecipe, ExplorationReport, RootExploration, TimelineResult } from "./contract.ts";
import { Frontier, type FrontierEntry } from "./frontier.ts";
import { FRONTIER_SAMPLES_MAX } from "./explorer.ts";

/** Branch points reseed random decisions and event order, as the per-root explorer's do. */
const BRANCH_STREAMS = "sim+schedule";

/** Why an adaptive campaign stopped. */
export type CampaignStop = "budget" | "seeds" | "bail" | "interrupted";

/** The report's account of how the budget was spent (`SimulationReport.campaign`). */
export interface CampaignBudgetReport {
  readonly kind: "adaptive";
  /** The budget, in timelines (every timeline counts: fresh root seeds and continuations). */
  readonly budgetTimelines: number;
  readonly timelines: number;
  readonly batchTimelines: number;
  readonly arms: Readonly<Record<CampaignArm, ArmYield>>;
  /** Batches whose continuations came from the continuation arm's yield, and probes of one continuation. */
  readonly shareBatches: number;
  readonly probes: number;
  /** Campaign timeline (1-based) of the first failure, or null. */
  readonly firstFailureAtTimeline: number | null;
  readonly stoppedBy: CampaignStop;
  /** One line: why the campaign stopped. */
  readonly stopReason: string;
  /** What the frontier's own signals set: the recipe limit it reached and the times it doubled. */
  readonly frontier: { readonly maxRecipeLen: number; readonly recipeLimitRaises: number };
}

/** One timeline of a batch: a fresh root seed (empty recipe) or a continuation. */
export interface CampaignJob {
  readonly seed: number;
  readonly recipe: readonly Breakpoint[];
  readonly arm: CampaignArm;
  /** The root seed's position among the campaign's fresh seeds. */
  readonly rootIndex: number;
}

/** A timeline that ran: its result (discoveries included) and how to merge its table. */
export interface CampaignOutcome<R extends TimelineResult> {
  readonly result: R;
  /** Merges the timeline's table into the campaign's (called in job order, or not at all after a stop). */
  readonly absorb: () => void;
}

/**
 * Runs every job of a batch from the campaign's table as it is now; outcomes in job order, or
 * null when the campaign was interrupted (nothing of the batch is merged).
 */
export type CampaignBatchRunner<R extends TimelineResult> = (
  jobs: readonly CampaignJob[],
) => Promise<CampaignOutcome<R>[] | null>;

export interface CampaignSearchOptions<R extends TimelineResult> {
  readonly budgetTimelines: number;
  /** Fresh root seeds the plan has (the search stops once they are all used). */
  readonly rootSeeds: number;
  readonly rootSeedAt: (index: number) => number;
  /** Frontier settings (`maxRunsPerSeed` is not used: the campaign's budget is). */
  readonly settings: ExplorationSettings;
  readonly runBatch: CampaignBatchRunner<R>;
  /**
   * After each timeline is recorded (in campaign order): a stop reason ends the campaign there,
   * the rest of the batch unmerged. `root` is the root seed's result as it now stands.
   */
  readonly afterTimeline?: (root: R, rootIndex: number, job: CampaignJob, failed: boolean) => CampaignStop | null;
}

export interface CampaignSearchResult<R extends TimelineResult> {
  /** One result per fresh root seed, in campaign order, continuation failures folded in. */
  readonly roots: readonly { readonly index: number; readonly result: R }[];
  readonly exploration: ExplorationReport;
  readonly campaign: CampaignBudgetReport;
}

interface RootRecord<R extends TimelineResult> {
  readonly index: number;
  readonly seed: number;
  result: R;
  timelines: number;
  readonly bugs: BugRecipe[];
  firstBugAtTimeline: number | null;
  /** Whether the root's own timeline passed and a continuation's failure already replaced it. */
  folded: boolean;
}

function bugProperty(f: R_Failure): string {
  return f.kind === "assertion" && f.property !== undefined
    ? f.property
    : `${f.kind}${f.actor !== undefined ? ` (${f.actor})` : ""}`;
}
type R_Failure = TimelineResult["failures"][number];

export async function searchCampaign<R extends TimelineResult>(
  options: CampaignSearchOptions<R>,
  table: AssertionTable,
): Promise<CampaignSearchResult<R>> {
  const { settings, budgetTimelines } = options;
  const frontier = new Frontier(
    settings.maxFrontier,
    settings.maxRecipeLen,
    (key) => table.visits(key),
    settings.entryEnergy,
    true,
    true,
  );
  const allocator = new BudgetAllocator();
  const roots: RootRecord<R>[] = [];
  const rootOf = new Map<number, RootRecord<R>>();
  const failedRoots = new Set<number>();
  const discoveriesByKind: Record<DiscoveryKind, number> = {
    firstPass: 0,
    watermark: 0,
    frontier: 0,
    combination: 0,
    newBucket: 0,
    betterQuality: 0,
  };
  const bugRecipes: BugRecipe[] = [];
  const bugKeys = new Set<string>();
  const frontierSizes: [number, number][] = [];
  let drawsReplayed = 0;
  let drawsNew = 0;
  let timelines = 0;
  let nextRoot = 0;
  let firstFailure: number | null = null;
  let stoppedBy: CampaignStop = "budget";

  const sample = () => {
    frontierSizes.push([timelines, frontier.size]);
    if (frontierSizes.length > FRONTIER_SAMPLES_MAX) {
      const kept = frontierSizes.filter((_, i) => i % 2 === 0);
      frontierSizes.length = 0;
      frontierSizes.push(...kept);
    }
  };

  /** Accounts for one timeline in campaign order; returns its reward (discoveries, failure). */
  // Keys credited in the current batch: siblings that start from the same table report the same
  // first passes, and only the first of them found anything the campaign did not have.
  const credited = new Set<string>();
  const record = (job: CampaignJob, result: R): { reward: number; failed: boolean } => {
    timelines++;
    let replayed = 0;
    for (const bp of job.recipe) replayed += bp.count;
    const draws = result.recipeDraws ?? result.simDraws;
    drawsReplayed += Math.min(replayed, draws);
    drawsNew += Math.max(0, draws - replayed);
    for (const d of result.discoveries) discoveriesByKind[d.kind]++;
    const failed = !result.ok;
    let found = 0;
    for (const d of result.discoveries) {
      const key = `${d.kind}|${d.key}`;
      if (credited.has(key)) continue;
      credited.add(key);
      found++;
    }
    allocator.record(job.arm, found, failed, timelines);
    let root = rootOf.get(job.seed);
    if (root === undefined) {
      root = {
        index: job.rootIndex,
        seed: job.seed,
        result: { ...result, discoveries: [] },
        timelines: 0,
        bugs: [],
        firstBugAtTimeline: null,
        folded: false,
      };
      rootOf.set(job.seed, root);
      roots.push(root);
    }
    root.timelines++;
    if (failed) {
      firstFailure ??= timelines;
      root.firstBugAtTimeline ??= root.timelines;
      const recipe = formatRecipe(job.recipe);
      const tagged: R_Failure[] = [];
      for (const f of result.failures) {
        const property = bugProperty(f);
        const key = `${job.seed}|${property}`;
        if (!bugKeys.has(key)) {
          bugKeys.add(key);
          const bug: BugRecipe = {
            seed: job.seed,
            recipe,
            property,
            message: f.message,
            foundAtTimeline: root.timelines,
            traceHash: result.traceHash,
          };
          bugRecipes.push(bug);
          root.bugs.push(bug);
        }
        tagged.push(
          job.recipe.length === 0
            ? f
            : { ...f, message: `${f.message} [exploration recipe "${recipe}"]`, recipe, traceHash: result.traceHash },
        );
      }
      if (job.recipe.length > 0) root.result = foldFailure(root.result, result, tagged, recipe);
      if (settings.stopOnFailure) {
        failedRoots.add(job.seed);
        frontier.dropRoot(job.seed);
      }
    }
    if (!failedRoots.has(job.seed)) frontier.addDiscoveries(job.recipe, result.discoveries, job.seed);
    return { reward: found + (failed ? 1 : 0), failed };
  };

  const childRecipe = (entry: FrontierEntry): Recipe => {
    const index = entry.childrenSpawned++;
    const branchAt = `${entry.discovery.segment}:${entry.drawCount}`;
    const branch: Breakpoint = {
      count: entry.drawCount,
      seed: childSeed(entry.rootSeed, entry.prefix, branchAt, index),
      streams: BRANCH_STREAMS,
    };
    return [...entry.prefix, branch];
  };

  search: while (timelines < budgetTimelines) {
    const size = Math.min(CAMPAIGN_BATCH_TIMELINES, budgetTimelines - timelines);
    const freshLeft = options.rootSeeds - nextRoot;
    const canContinue = frontier.size > 0 || frontier.retiredSize > 0;
    let slots = allocator.continuationSlots(size, canContinue);
    // A plan out of fresh seeds spends the rest on continuations, or stops.
    if (freshLeft <= 0) {
      if (!canContinue) {
        stoppedBy = "seeds";
        break;
      }
      slots = size;
    }
    const jobs: CampaignJob[] = [];
    const parents: (FrontierEntry | undefined)[] = [];
    const children = new Map<FrontierEntry, number>();
    const taken = new Set<FrontierEntry>();
    for (let i = 0; i < size - slots && nextRoot < options.rootSeeds; i++) {
      const index = nextRoot++;
      jobs.push({ seed: options.rootSeedAt(index), recipe: [], arm: "fresh", rootIndex: index });
      parents.push(undefined);
    }
    while (jobs.length < size) {
      const entry = frontier.select(taken) ?? (taken.size === 0 ? frontier.revive() : undefined);
      if (entry === undefined || taken.has(entry)) break;
      taken.add(entry);
      for (let i = 0; i < settings.branchingFactor && jobs.length < size; i++) {
        jobs.push({
          seed: entry.rootSeed,
          recipe: childRecipe(entry),
          arm: "continuation",
          rootIndex: rootOf.get(entry.rootSeed)!.index,
        });
        parents.push(entry);
        children.set(entry, i + 1);
      }
    }
    // No entry could be continued: the slots go back to fresh seeds.
    while (jobs.length < size && nextRoot < options.rootSeeds) {
      const index = nextRoot++;
      jobs.push({ seed: options.rootSeedAt(index), recipe: [], arm: "fresh", rootIndex: index });
      parents.push(undefined);
    }
    if (jobs.length === 0) {
      stoppedBy = "seeds";
      break;
    }
    const outcomes = await options.runBatch(jobs);
    credited.clear();
    if (outcomes === null) {
      stoppedBy = "interrupted";
      break;
    }
    if (outcomes.length !== jobs.length)
      throw new Error(`batch runner returned ${outcomes.length} outcomes for ${jobs.length} timelines`);
    const productive = new Set<FrontierEntry>();
    let continuationReward = 0;
    for (let i = 0; i < outcomes.length; i++) {
      const job = jobs[i]!;
      const outcome = outcomes[i]!;
      outcome.absorb();
      const { reward, failed } = record(job, outcome.result);
      const parent = parents[i];
      if (parent !== undefined) {
        continuationReward += reward;
        if (outcome.result.discoveries.length > 0) productive.add(parent);
      }
      const root = rootOf.get(job.seed)!;
      const stop = options.afterTimeline?.(root.result, root.index, job, failed) ?? null;
      if (stop !== null) {
        stoppedBy = stop;
        break search;
      }
    }
    for (const [entry, count] of children) frontier.recordBatch(entry, productive.has(entry), count);
    allocator.afterBatch(continuationReward);
    sample();
  }
  sample();

  const yields = allocator.yields();
  const perSeed: RootExploration[] = roots
    .filter((r) => r.timelines > 1)
    .map((r) => ({ seed: r.seed, timelines: r.timelines, bugs: r.bugs, firstBugAtTimeline: r.firstBugAtTimeline }));
  const total = drawsReplayed + drawsNew;
  const exploration: ExplorationReport = {
    config: { ...settings, maxRunsPerSeed: budgetTimelines },
    timelines,
    bugsFound: bugRecipes.length,
    bugRecipes,
    perSeed,
    discoveriesByKind,
    frontierSizes,
    replayOverhead: { drawsReplayed, drawsNew, replayedFraction: total === 0 ? 0 : drawsReplayed / total },
    entriesRetired: frontier.retired,
    entriesEvicted: frontier.evicted,
    discoveriesTooDeep: frontier.tooDeep,
    freshTimelines: yields.fresh.timelines,
    entriesRevived: frontier.revived,
  };
  const campaign: CampaignBudgetReport = {
    kind: "adaptive",
    budgetTimelines,
    timelines,
    batchTimelines: CAMPAIGN_BATCH_TIMELINES,
    arms: yields,
    shareBatches: allocator.shareBatches,
    probes: allocator.probes,
    firstFailureAtTimeline: firstFailure,
    stoppedBy,
    stopReason: stopReason(stoppedBy, timelines, budgetTimelines, yields),
    frontier: { maxRecipeLen: frontier.maxRecipeLen, recipeLimitRaises: frontier.recipeLimitRaises },
  };
  return { roots: roots.map((r) => ({ index: r.index, result: r.result })), exploration, campaign };
}

/** The root's record once a continuation failed: the first failing continuation's timeline, every failure kept. */
function foldFailure<R extends TimelineResult>(root: R, failing: R, failures: R_Failure[], recipe: string): R {
  if (root.ok) {
    return {
      ...root,
      ok: false,
      failures,
      simulatedTimeMs: failing.simulatedTimeMs,
      eventsProcessed: failing.eventsProcessed,
      traceHash: failing.traceHash,
      recipe,
    } as R;
  }
  return { ...root, failures: [...root.failures, ...failures] } as R;
}

function stopReason(
  stop: CampaignStop,
  timelines: number,
  budget: number,
  yields: Readonly<Record<CampaignArm, ArmYield>>,
): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const split = `${count(yields.fresh.timelines, "fresh root seed", "fresh root seeds")}, ${count(yields.continuation.timelines, "continuation", "continuations")}`;
  switch (stop) {
    case "budget":
      return `spent the budget of ${budget} timelines (${split})`;
    case "seeds":
      return `ran out of root seeds after ${timelines} of ${budget} timelines (${split})`;
    case "bail":
      return `stopped by --bail after ${timelines} of ${budget} timelines (${split})`;
    case "interrupted":
      return `interrupted after ${timelines} of ${budget} timelines (${split})`;
  }
}
