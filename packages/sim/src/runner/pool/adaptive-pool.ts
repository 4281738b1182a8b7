/**
 * The adaptive campaign on the worker pool (`moonpool run` under the default budget, and
 * `SimulationBuilder.run({ workers })`): the search of explore/campaign-search.ts with every
 * timeline of a batch a task of its own, started from a snapshot of the campaign's table taken
 * before the batch and absorbed in job order. The search decides from counts only, so the report
 * is the in-thread run's for any number of workers. Under isolation "seed" every fresh root seed
 * gets a fresh realm and continuations reuse realms, as an explored root's timelines share its
 * realm (docs/decisions.md D21, D27); every failing timeline is re-run alone before it is
 * absorbed (replay-check.ts), so a continuation that depended on a reused realm is reported so.
 */
import { InvalidConfiguration } from "@moonpool/core";
import { AssertionTable, type AssertionTableState } from "../../chaos/assertions/index.ts";
import { formatRecipe } from "../../engine/recipe.ts";
import { EMPTY_BLOCK_COVERAGE, unionBlockCoverage, type BlockCoverage } from "../coverage/block-coverage.ts";
import { searchCampaign, type CampaignOutcome, type CampaignStop } from "../../explore/index.ts";
import { adaptiveRunOf, adaptiveSettings, type AdaptivePlan } from "../adaptive-campaign.ts";
import { SimulationReport } from "../report.ts";
import type { SeedResult } from "../seed-result.ts";
import { planSize, seedAt } from "../seed-plan.ts";
import type { ExplorationConfig } from "../../explore/config.ts";
import type { PoolTaskResults, TaskOutcome } from "./messages.ts";
import { ReplayChecker } from "./replay-check.ts";
import type { WorkerPool } from "./worker-pool.ts";
import {
  lostSeedResult,
  sortFirstReached,
  type FirstReached,
  type PoolCampaignOptions,
  type PoolCampaignResult,
} from "./pool-campaign.ts";

type SeedOutcome = TaskOutcome<PoolTaskResults["rootSeed"]>;

/**
 * Runs `plan` on `pool`. `exploration` is the simulation's own exploration setting (its frontier
 * settings steer the search), read on the main thread.
 */
export async function runAdaptivePoolCampaign(
  pool: WorkerPool,
  options: PoolCampaignOptions,
  plan: AdaptivePlan,
  exploration: ExplorationConfig | null,
): Promise<PoolCampaignResult> {
  const table = new AssertionTable();
  const batch = {};
  const wallStartMs = performance.now();
  const isolated = (options.isolation ?? "seed") === "seed";
  const replayCheck = options.replayCheck !== false;
  const firstReached = new Map<string, FirstReached>();
  let failingRoots = 0;
  let timelines = 0;
  let bugs = 0;
  const interrupted = new Promise<"interrupted">((resolve) => {
    if (options.signal.aborted) resolve("interrupted");
    else options.signal.addEventListener("abort", () => resolve("interrupted"), { once: true });
  });
  let coverage: BlockCoverage | null = options.coverageRoot === undefined ? null : EMPTY_BLOCK_COVERAGE;
  const coverageTask = options.coverageRoot === undefined ? {} : { coverageRoot: options.coverageRoot };
  // Warm realms import the module ahead of coverage, which must see its top level: not with --coverage.
  if (options.coverageRoot === undefined) pool.prepare(options.source.module);
  const mergeCoverage = (blocks: BlockCoverage | undefined) => {
    if (coverage !== null) coverage = unionBlockCoverage(coverage, blocks ?? EMPTY_BLOCK_COVERAGE);
  };
  const checker = replayCheck
    ? new ReplayChecker(pool, { source: options.source, overrides: { explore: false }, batch }, isolated)
    : null;
  const failedRoots = new Set<number>();

  const search = await searchCampaign<SeedResult>(
    {
      budgetTimelines: plan.timelines,
      rootSeeds: planSize(plan),
      rootSeedAt: (index) => seedAt(plan, index),
      settings: adaptiveSettings(exploration),
      runBatch: async (jobs) => {
        const base = table.snapshot();
        const pending = jobs.map((job) =>
          pool.run(
            {
              kind: "rootSeed",
              source: options.source,
              overrides: options.overrides,
              seed: job.seed,
              baseTable: base,
              exploration: null,
              recipe: formatRecipe(job.recipe),
              keepDiscoveries: true,
              ...coverageTask,
              // A fresh root run first in a fresh realm is its own replay check: no trail needed.
              ...(replayCheck && !isolated && job.recipe.length === 0 ? { recordDraws: true } : {}),
            },
            // A continuation replays its root seed's timeline in a reused realm, as an explored root's
            // timelines share their root's realm (D21); its failures are re-run alone before they count.
            { hangTimeoutMs: options.hangTimeoutMs, batch, isolated: isolated && job.recipe.length === 0 },
          ),
        );
        const outcomes: CampaignOutcome<SeedResult>[] = [];
        for (let i = 0; i < jobs.length; i++) {
          const job = jobs[i]!;
          const raw = await Promise.race([pending[i]!, interrupted]);
          if (raw === "interrupted" || raw.kind === "cancelled") return null;
          const tagged = withRecipe(raw, formatRecipe(job.recipe));
          const outcome = checker === null ? tagged : await Promise.race([checker.check(tagged), interrupted]);
          if (outcome === "interrupted" || outcome.kind === "cancelled") return null;
          outcomes.push(toCampaignOutcome(outcome, job.seed, table, base, options, mergeCoverage));
        }
        return outcomes;
      },
      afterTimeline: (root, rootIndex, job, failed): CampaignStop | null => {
        timelines++;
        if (failed) bugs++;
        if (!root.ok && !failedRoots.has(job.seed)) {
          failedRoots.add(job.seed);
          failingRoots++;
          options.onFailure?.(root, rootIndex);
        }
        noteFirstReached(table, firstReached, rootIndex);
        const { hit, total } = table.sometimesCoverage();
        options.onProgress?.({
          done: timelines,
          failing: failingRoots,
          sometimesHit: hit,
          sometimesTotal: total,
          bugs,
          timelines,
        });
        return options.bail && failingRoots >= (options.bailAfter ?? 1) ? "bail" : null;
      },
    },
    table,
  );
  pool.cancelQueued(batch);
  const run = adaptiveRunOf(search);
  const report = new SimulationReport({
    results: run.results,
    seedIndexes: run.seedIndexes,
    table,
    convergenceTimeout: false,
    saturation: null,
    wallTimeMs: performance.now() - wallStartMs,
    steppingMode: options.steppingMode,
    exploration: run.exploration,
    campaign: run.campaign,
  });
  const stop = run.campaign.stoppedBy;
  return {
    report,
    stoppedBy: stop === "bail" || stop === "interrupted" ? stop : null,
    sometimesFirstReached: sortFirstReached([...firstReached.values()]),
    coverage,
    replayCheck: checker?.counts() ?? null,
  };
}

/** A continuation's failures name its recipe and hash, so the replay check and the report know its timeline. */
function withRecipe(outcome: SeedOutcome, recipe: string): SeedOutcome {
  if (outcome.kind !== "done" || outcome.outcome.result.ok || recipe === "") return outcome;
  const result = outcome.outcome.result;
  const failures = result.failures.map((f) => ({ ...f, recipe, traceHash: result.traceHash }));
  return { kind: "done", outcome: { ...outcome.outcome, result: { ...result, failures } } };
}

function toCampaignOutcome(
  outcome: Exclude<SeedOutcome, { kind: "cancelled" }>,
  seed: number,
  table: AssertionTable,
  base: AssertionTableState,
  options: PoolCampaignOptions,
  mergeCoverage: (blocks: BlockCoverage | undefined) => void,
): CampaignOutcome<SeedResult> {
  if (outcome.kind === "error") {
    const message = `simulation '${options.name}', seed ${seed}: ${outcome.name}: ${outcome.message}${outcome.stack !== undefined ? `\n${outcome.stack}` : ""}`;
    throw (options.loadError ?? ((text: string) => new InvalidConfiguration(text)))(message);
  }
  // A lost timeline (hung, crashed) brought no table back: the campaign's stays as if it had not run.
  if (outcome.kind === "hung" || outcome.kind === "crashed")
    return { result: lostSeedResult(seed, outcome), absorb: () => {} };
  const { result, table: child, coverage } = outcome.outcome;
  return {
    result,
    absorb: () => {
      table.absorb(child, base);
      mergeCoverage(coverage);
    },
  };
}

function noteFirstReached(table: AssertionTable, firstReached: Map<string, FirstReached>, seedIndex: number): void {
  const { hit, unreached } = table.sometimesCoverage();
  if (hit <= firstReached.size) return;
  for (const d of table.details()) {
    const gated = d.kind === "sometimes" || d.kind === "reachable" || d.kind === "sometimesAll";
    if (gated && !firstReached.has(d.message) && !unreached.includes(d.message))
      firstReached.set(d.message, { message: d.message, kind: d.kind, seedIndex });
  }
}
