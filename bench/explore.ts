/**
 * The explorer against two search benchmarks: the maze and the dungeon examples.
 *
 * Maze: root seeds 1..20, each explored on its own (a fresh campaign per root, so every root
 * starts with empty latches) with the default exploration settings; how many timelines each root needed to
 * reach its first bug; then plain random root seeds under the same total number of timelines.
 * Dungeon: the same for a few root seeds. Distinct bugs are counted per (root seed, violated
 * property), not per failing timeline: most failing timelines are clones of one branch point.
 * Workers: maze root seeds 1..MAZE_WORKERS_SEEDS explored with `workers: 0` and `workers: 2`
 * (each root its own run(), so each pays its pool's start-up: threads, tsx, module loading),
 * timelines per second of each; the two explorations must be identical.
 */
import type { SimulationBuilder, SimulationReport } from "../packages/sim/src/index.ts";
import { mazeSimulation } from "../examples/maze/maze.ts";
import { availableParallelism } from "node:os";
import { dungeonSimulation } from "../examples/dungeon/dungeon.ts";

const EXPLORATION = { workers: 0, maxRunsPerSeed: 2000, branchingFactor: 4, maxFrontier: 512, maxRecipeLen: 32 } as const;
const MAZE_SEEDS = 20;
const DUNGEON_SEEDS = 3;
/** Maze root seeds timed with and without worker threads. */
const MAZE_WORKERS_SEEDS = 3;
const MAZE_MODULE = new URL("../examples/maze/maze.ts", import.meta.url).href;
/** The dungeon's chain is ~25x longer than the maze's: give its roots a larger budget. */
const DUNGEON_RUNS_PER_SEED = 5000;
/** The dungeon's depth signal: its numeric watermark's best left operand is the floor index. */
const DUNGEON_DEPTH_ASSERTION = "dungeon level reached";

interface Explored {
  firstBugs: (number | null)[];
  timelines: number;
  distinctBugs: number;
  wallMs: number;
  reports: SimulationReport[];
}

function watermark(report: SimulationReport, message: string): number | null {
  return report.assertionDetails.find((d) => d.message === message)?.watermark ?? null;
}

async function exploreEach(build: () => SimulationBuilder, seeds: number, maxRunsPerSeed: number): Promise<Explored> {
  const reports: SimulationReport[] = [];
  const firstBugs: (number | null)[] = [];
  let timelines = 0;
  let distinctBugs = 0;
  const start = performance.now();
  for (let seed = 1; seed <= seeds; seed++) {
    const report: SimulationReport = await build().enableExploration({ ...EXPLORATION, maxRunsPerSeed }).setDebugSeeds([seed]).setIterations(1).run();
    reports.push(report);
    const x = report.exploration!;
    firstBugs.push(x.perSeed[0]!.firstBugAtTimeline);
    timelines += x.timelines;
    distinctBugs += x.bugsFound;
    console.error(`  root seed ${seed}: first bug at timeline ${x.perSeed[0]!.firstBugAtTimeline ?? "-"} (${x.timelines} timelines, ${x.bugsFound} distinct bugs)`);
  }
  return { firstBugs, timelines, distinctBugs, wallMs: performance.now() - start, reports };
}

async function randomSeeds(build: () => SimulationBuilder, budget: number): Promise<SimulationReport> {
  return build().setBaseSeed(20_251_129).setIterations(budget).run();
}

/** Timelines per second exploring maze roots 1..MAZE_WORKERS_SEEDS with `workers`, and the explorations (for the identity check). */
async function mazeWithWorkers(workers: number): Promise<{ timelinesPerSec: number; explorations: string[] }> {
  const explorations: string[] = [];
  let timelines = 0;
  const start = performance.now();
  for (let seed = 1; seed <= MAZE_WORKERS_SEEDS; seed++) {
    const report = await mazeSimulation()
      .enableExploration({ ...EXPLORATION, workers })
      .simulationSource(MAZE_MODULE, "mazeSimulation")
      .setDebugSeeds([seed])
      .setIterations(1)
      .run();
    timelines += report.exploration!.timelines;
    explorations.push(JSON.stringify(report.exploration));
  }
  return { timelinesPerSec: Math.round(timelines / ((performance.now() - start) / 1000)), explorations };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function benchExplore(): Promise<Record<string, unknown>> {
  console.error("maze: exploring root seeds 1..20");
  const maze = await exploreEach(mazeSimulation, MAZE_SEEDS, EXPLORATION.maxRunsPerSeed);
  const found = maze.firstBugs.filter((f): f is number => f !== null);
  console.error(`maze: ${maze.timelines} random root seeds (the same timeline budget)`);
  const mazeRandomSeedsBugs = (await randomSeeds(mazeSimulation, maze.timelines)).failedRuns;

  console.error(`dungeon: exploring root seeds 1..${DUNGEON_SEEDS}`);
  const dungeon = await exploreEach(dungeonSimulation, DUNGEON_SEEDS, DUNGEON_RUNS_PER_SEED);
  console.error(`dungeon: ${dungeon.timelines} random root seeds (the same timeline budget)`);
  const dungeonRandom = await randomSeeds(dungeonSimulation, dungeon.timelines);
  const deepestExplored = Math.max(...dungeon.reports.map((r) => watermark(r, DUNGEON_DEPTH_ASSERTION) ?? 0));

  console.error(`maze: root seeds 1..${MAZE_WORKERS_SEEDS} with workers: 0 and workers: 2`);
  const inThread = await mazeWithWorkers(0);
  const pooled = await mazeWithWorkers(2);
  if (JSON.stringify(pooled.explorations) !== JSON.stringify(inThread.explorations)) throw new Error("maze: workers: 2 explored differently from workers: 0");

  return {
    mazeSeeds: MAZE_SEEDS,
    mazeSeedsFound: found.length,
    mazeFirstBugMedian: median(found),
    mazeFirstBugMax: found.length === 0 ? null : Math.max(...found),
    mazeDistinctBugRecipes: maze.distinctBugs,
    mazeRandomSeedsBugs,
    mazeTimelinesPerSec: Math.round(maze.timelines / (maze.wallMs / 1000)),
    dungeonTimelines: dungeon.timelines,
    dungeonDistinctBugs: dungeon.distinctBugs,
    dungeonRandomSeedsBugs: dungeonRandom.failedRuns,
    dungeonDeepestFloorExplored: deepestExplored,
    dungeonDeepestFloorRandom: watermark(dungeonRandom, DUNGEON_DEPTH_ASSERTION),
    mazeWorkersSeeds: MAZE_WORKERS_SEEDS,
    mazeTimelinesPerSecWorkers0: inThread.timelinesPerSec,
    mazeTimelinesPerSecWorkers2: pooled.timelinesPerSec,
    cores: availableParallelism(),
  };
}
