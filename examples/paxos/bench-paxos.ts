/**
 * `benchPaxos()`: throughput of the Paxos campaign, and how many timelines each planted bug takes
 * to find, by exploration and by plain random seeds under the same budget.
 *
 * - seedsPerSec, simSecondsPerWallSecond: the correct protocol under the full campaign
 *   (`paxosCampaign()`), `THROUGHPUT_SEEDS` seeds after `WARMUP_SEEDS` warm-up seeds.
 * - plantedBugs[].timelinesWithExploration: root seeds 1, 2, ... each explored with
 *   `maxRunsPerSeed: ROOT_BUDGET` (workers: 0); the count is every timeline run until the first
 *   failing one (earlier roots' timelines included), or null within `BUG_BUDGET` timelines.
 * - plantedBugs[].timelinesWithRandomSeeds: random root seeds (no exploration) from a fixed base
 *   seed, one timeline each, until the first failing one, capped at the same `BUG_BUDGET`.
 *
 * Every planted bug of `PAXOS_BUGS` is measured, the two that need reboots included. The budget is
 * large because `ballot-reuse-after-restart` is rare: about one campaign seed in 1,500 fails with it.
 *
 * The lead wires it as `npm run bench -- paxos` (bench/run.ts prints the JSON line).
 */
import type { SimulationReport } from "@moonpool/sim";
import { PAXOS_BUGS, type PaxosBug } from "./node.ts";
import { paxosCampaign } from "./simulation.ts";

export const THROUGHPUT_SEEDS = 300;
/** The JIT needs a few hundred seeds to settle: measuring cold code would understate throughput 3-5x. */
const WARMUP_SEEDS = 200;
/** Timelines each planted bug may take, by either method. */
export const BUG_BUDGET = 2_500;
/** Timelines per explored root seed: a few roots deep rather than one root very deep (root seeds fix the chaos configuration). */
export const ROOT_BUDGET = 25;
/** Random seeds are run in batches of this size (a batch past the first failure is not wasted much). */
const RANDOM_BATCH = 25;
const RANDOM_BASE_SEED = 20_251_201;
const EXPLORATION = { workers: 0, branchingFactor: 4, maxFrontier: 512, maxRecipeLen: 32 } as const;

export interface PlantedBugResult {
  readonly name: PaxosBug;
  readonly timelinesWithExploration: number | null;
  readonly timelinesWithRandomSeeds: number | null;
}

export interface PaxosBenchResult {
  readonly seedsPerSec: number;
  readonly simSecondsPerWallSecond: number;
  readonly plantedBugs: readonly PlantedBugResult[];
  readonly bugBudget: number;
  readonly rootBudget: number;
}

function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

async function throughput(): Promise<{ seedsPerSec: number; simSecondsPerWallSecond: number }> {
  await paxosCampaign().setBaseSeed(1).setIterations(WARMUP_SEEDS).run();
  const start = performance.now();
  const report: SimulationReport = await paxosCampaign().setBaseSeed(1_000).setIterations(THROUGHPUT_SEEDS).run();
  const wallSeconds = (performance.now() - start) / 1000;
  if (report.failedRuns > 0)
    throw new Error(
      `the correct protocol failed ${report.failedRuns} seeds of the throughput campaign:\n${report.toString()}`,
    );
  const simSeconds = report.seeds.reduce((sum, s) => sum + s.simulatedTimeMs, 0) / 1000;
  return {
    seedsPerSec: round(THROUGHPUT_SEEDS / wallSeconds),
    simSecondsPerWallSecond: round(simSeconds / wallSeconds),
  };
}

async function timelinesWithExploration(bug: PaxosBug): Promise<number | null> {
  let spent = 0;
  for (let seed = 1; spent < BUG_BUDGET; seed++) {
    const maxRunsPerSeed = Math.min(ROOT_BUDGET, BUG_BUDGET - spent);
    const report = await paxosCampaign({ bug })
      .enableExploration({ ...EXPLORATION, maxRunsPerSeed })
      .setDebugSeeds([seed])
      .setIterations(1)
      .run();
    const root = report.exploration!.perSeed[0]!;
    if (root.firstBugAtTimeline !== null) return spent + root.firstBugAtTimeline;
    spent += root.timelines;
  }
  return null;
}

async function timelinesWithRandomSeeds(bug: PaxosBug): Promise<number | null> {
  for (let ran = 0; ran < BUG_BUDGET; ran += RANDOM_BATCH) {
    const batch = Math.min(RANDOM_BATCH, BUG_BUDGET - ran);
    // Each batch derives its seeds from its own fixed base: the whole sequence is the same every run.
    const report = await paxosCampaign({ bug })
      .setBaseSeed(RANDOM_BASE_SEED + ran)
      .setIterations(batch)
      .run();
    const failing = report.seeds.findIndex((s) => !s.ok);
    if (failing >= 0) return ran + failing + 1;
  }
  return null;
}

export async function benchPaxos(): Promise<PaxosBenchResult> {
  console.error(`paxos: throughput of the correct protocol, ${THROUGHPUT_SEEDS} campaign seeds`);
  const { seedsPerSec, simSecondsPerWallSecond } = await throughput();
  const plantedBugs: PlantedBugResult[] = [];
  for (const name of PAXOS_BUGS) {
    const explored = await timelinesWithExploration(name);
    const random = await timelinesWithRandomSeeds(name);
    console.error(
      `  ${name}: exploration ${explored ?? "-"} timelines, random seeds ${random ?? "-"} (budget ${BUG_BUDGET})`,
    );
    plantedBugs.push({ name, timelinesWithExploration: explored, timelinesWithRandomSeeds: random });
  }
  return { seedsPerSec, simSecondsPerWallSecond, plantedBugs, bugBudget: BUG_BUDGET, rootBudget: ROOT_BUDGET };
}
