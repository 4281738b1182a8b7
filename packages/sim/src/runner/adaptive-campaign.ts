/**
 * The adaptive campaign in this thread (`SimulationBuilder.run()` under the default budget):
 * the search of explore/campaign-search.ts with batches run one timeline after the other, each in
 * a fork of the campaign's table. The pool runs the same search with the timelines on workers
 * (pool/adaptive-pool.ts); both merge in job order, so the report is the same.
 */
import type { AssertionTable } from "../chaos/assertions/index.ts";
import type { Breakpoint } from "../engine/rng.ts";
import { DEFAULT_EXPLORATION, type ExplorationConfig, type ExplorationSettings } from "../explore/config.ts";
import {
  searchCampaign,
  type CampaignBudgetReport,
  type CampaignOutcome,
  type CampaignStop,
  type ExplorationReport,
} from "../explore/index.ts";
import { formatStacks } from "./failure-stack.ts";
import type { SeedResult } from "./seed-result.ts";
import { planSize, seedAt, type SeedPlan } from "./seed-plan.ts";

export type AdaptivePlan = Extract<SeedPlan, { kind: "adaptive" }>;

/**
 * The frontier settings of an adaptive campaign: the simulation's own `enableExploration` ones
 * when it has them, else the defaults. A root that failed is never continued.
 */
export function adaptiveSettings(exploration: ExplorationConfig | null): ExplorationSettings {
  const { workers: _workers, ...settings } = exploration ?? DEFAULT_EXPLORATION;
  return { ...settings, stopOnFailure: true };
}

export interface AdaptiveRun {
  readonly results: SeedResult[];
  readonly seedIndexes: number[];
  readonly exploration: ExplorationReport;
  readonly campaign: CampaignBudgetReport;
}

/** What the search returns, as the report's seeds (discoveries dropped, as every report's are). */
export function adaptiveRunOf(search: Awaited<ReturnType<typeof searchCampaign<SeedResult>>>): AdaptiveRun {
  return {
    results: search.roots.map((r) => ({ ...r.result, discoveries: [] })),
    seedIndexes: search.roots.map((r) => r.index),
    exploration: search.exploration,
    campaign: search.campaign,
  };
}

/** Runs the adaptive campaign of `plan` in this thread, recording into `table`. */
export async function runAdaptiveInThread(
  plan: AdaptivePlan,
  exploration: ExplorationConfig | null,
  table: AssertionTable,
  runTimeline: (seed: number, recipe: readonly Breakpoint[], table: AssertionTable) => Promise<SeedResult>,
  afterTimeline?: (failed: boolean) => CampaignStop | null,
): Promise<AdaptiveRun> {
  const search = await searchCampaign<SeedResult>(
    {
      budgetTimelines: plan.timelines,
      rootSeeds: planSize(plan),
      rootSeedAt: (index) => seedAt(plan, index),
      settings: adaptiveSettings(exploration),
      runBatch: async (jobs) => {
        const outcomes: CampaignOutcome<SeedResult>[] = [];
        for (const job of jobs) {
          const fork = table.fork();
          const result = await runTimeline(job.seed, job.recipe, fork);
          // A failing result may stay in the report: its stacks are formatted now, while its seed's frames exist.
          if (!result.ok) formatStacks(result);
          const delta = fork.delta();
          outcomes.push({ result, absorb: () => table.absorb(delta, null) });
        }
        return outcomes;
      },
      ...(afterTimeline === undefined ? {} : { afterTimeline: (_root, _index, _job, failed) => afterTimeline(failed) }),
    },
    table,
  );
  return adaptiveRunOf(search);
}
