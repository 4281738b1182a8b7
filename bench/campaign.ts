/**
 * The adaptive campaign (the default budget, docs/decisions.md D27) against fresh random seeds at
 * the same budget in timelines, on systems with textbook bugs (test/fixtures/campaign-bugs.ts),
 * the maze, the dungeon and the Paxos ballot-reuse bug. Per workload and base seed, both run in
 * this thread: the adaptive campaign `campaignBudget(budget)`, and `setIterations(budget)` plain
 * seeds, which are exactly the adaptive campaign's fresh root seeds in the same order (a paired
 * comparison). Figures: timelines to the first failure (a campaign that found none counts as
 * `budget + 1`, and its ratio is a lower bound, marked `censored`) and failing root seeds within
 * the budget, medians over the base seeds, and ratios (random / adaptive for timelines, adaptive /
 * random for failures; >= 1 means the adaptive campaign did at least as well).
 *
 * `npm run bench -- campaign` uses 20 base seeds; `-- campaign --quick` 3 (for a loaded machine);
 * MOONPOOL_BENCH_CAMPAIGN_ONLY=maze,dungeon runs only those workloads. No wall-clock figure
 * enters a ratio: both sides are pure functions of their seeds.
 */
import type { SimulationBuilder, SimulationReport } from "../packages/sim/src/index.ts";
import {
  checkThenAct,
  hlcStore,
  leaseNoMargin,
  quorumRead,
  threeStepRace,
} from "../packages/sim/test/fixtures/campaign-bugs.ts";
import { mazeSimulation } from "../examples/maze/maze.ts";
import { dungeonSimulation } from "../examples/dungeon/dungeon.ts";
import { BALLOT_REUSE_WORKLOAD, paxosCampaign } from "../examples/paxos/simulation.ts";
import { DEFAULT_CAMPAIGN_TIMELINES } from "../packages/sim/src/runner/config.ts";

interface BenchWorkload {
  readonly name: string;
  readonly build: () => SimulationBuilder;
  /** Timelines per campaign, each side. */
  readonly budget: number;
  /** Why the workload depends on something outside this helper's reach, when it does. */
  readonly note?: string;
}

const WORKLOADS: readonly BenchWorkload[] = [
  { name: "three-step-race", build: () => threeStepRace(), budget: DEFAULT_CAMPAIGN_TIMELINES },
  { name: "quorum-read", build: () => quorumRead(), budget: DEFAULT_CAMPAIGN_TIMELINES },
  { name: "check-then-act", build: () => checkThenAct(), budget: DEFAULT_CAMPAIGN_TIMELINES },
  // Deep searches need more than the default budget: the maze's median is above 1,000 timelines.
  { name: "maze", build: () => mazeSimulation(), budget: 4_000 },
  { name: "dungeon", build: () => dungeonSimulation(), budget: 20_000 },
  {
    name: "paxos-ballot-reuse",
    // The command line's simulation: clients that retry their leader first (D52). Full trace level:
    // the invariants read the nodes' info facts, which "warn" would drop.
    build: () => paxosCampaign({ bug: "ballot-reuse-after-restart", workload: BALLOT_REUSE_WORKLOAD }),
    budget: 3_000,
  },
  {
    name: "lease-no-drift-margin",
    build: () => leaseNoMargin(),
    budget: DEFAULT_CAMPAIGN_TIMELINES,
    note: "fails through the baseline's monotonic-clock drift (timer() runs ahead by up to the seed's drift bound)",
  },
  {
    name: "hlc-5-minute-guard",
    build: () => hlcStore(),
    budget: DEFAULT_CAMPAIGN_TIMELINES,
    note: "needs two clocks more than 5 minutes apart; the baseline's offsets are within 100 ms (docs/decisions.md D30), so without clock chaos no campaign can fail it",
  },
];

const FULL_BASE_SEEDS = 20;
const QUICK_BASE_SEEDS = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** 1-based position of the first failing plain seed, or null. */
function firstFailingSeed(report: SimulationReport): number | null {
  const index = report.seeds.findIndex((s) => !s.ok);
  return index < 0 ? null : index + 1;
}

interface Side {
  readonly timelinesToFirstFailure: (number | null)[];
  readonly failures: number[];
}

function summary(side: Side, budget: number) {
  const ttf = side.timelinesToFirstFailure.map((n) => n ?? budget + 1);
  return {
    timelinesToFirstFailure: side.timelinesToFirstFailure,
    found: `${side.timelinesToFirstFailure.filter((n) => n !== null).length}/${ttf.length}`,
    medianTimelinesToFirstFailure: median(ttf),
    medianFailures: median(side.failures),
  };
}

async function benchWorkload(workload: BenchWorkload, baseSeeds: number): Promise<Record<string, unknown>> {
  const adaptive: Side = { timelinesToFirstFailure: [], failures: [] };
  const random: Side = { timelinesToFirstFailure: [], failures: [] };
  const split = { fresh: 0, continuation: 0 };
  const wallStart = performance.now();
  for (let base = 1; base <= baseSeeds; base++) {
    const a = await workload.build().setBaseSeed(base).campaignBudget(workload.budget).run();
    adaptive.timelinesToFirstFailure.push(a.campaign!.firstFailureAtTimeline);
    adaptive.failures.push(a.failedRuns);
    split.fresh += a.campaign!.arms.fresh.timelines;
    split.continuation += a.campaign!.arms.continuation.timelines;
    const r = await workload.build().setBaseSeed(base).setIterations(workload.budget).run();
    random.timelinesToFirstFailure.push(firstFailingSeed(r));
    random.failures.push(r.failedRuns);
    process.stderr.write(
      `campaign ${workload.name} base ${base}: adaptive first ${a.campaign!.firstFailureAtTimeline} (${a.failedRuns} failing), random first ${firstFailingSeed(r)} (${r.failedRuns} failing)\n`,
    );
  }
  const a = summary(adaptive, workload.budget);
  const r = summary(random, workload.budget);
  const ttfRatio = r.medianTimelinesToFirstFailure / a.medianTimelinesToFirstFailure;
  return {
    budget: workload.budget,
    adaptive: a,
    random: r,
    timelinesToFirstFailureRatio: Number(ttfRatio.toFixed(2)),
    // Random found nothing in half the base seeds or more: its median is the budget + 1, a lower bound.
    censored: r.medianTimelinesToFirstFailure > workload.budget,
    failuresRatio:
      r.medianFailures === 0
        ? a.medianFailures === 0
          ? null
          : "adaptive > 0, random 0"
        : Number((a.medianFailures / r.medianFailures).toFixed(2)),
    continuationShare: Number((split.continuation / (split.fresh + split.continuation)).toFixed(3)),
    wallSeconds: Number(((performance.now() - wallStart) / 1000).toFixed(1)),
    ...(workload.note === undefined ? {} : { note: workload.note }),
  };
}

export async function benchCampaign(): Promise<Record<string, unknown>> {
  const quick = process.argv.includes("--quick");
  const baseSeeds = quick ? QUICK_BASE_SEEDS : FULL_BASE_SEEDS;
  const only = process.env.MOONPOOL_BENCH_CAMPAIGN_ONLY;
  const selected =
    only === undefined || only === "" ? WORKLOADS : WORKLOADS.filter((w) => only.split(",").includes(w.name));
  const workloads: Record<string, unknown> = {};
  for (const workload of selected) workloads[workload.name] = await benchWorkload(workload, baseSeeds);
  return { baseSeeds, quick, defaultBudget: DEFAULT_CAMPAIGN_TIMELINES, workloads };
}
