/**
 * The explorer against two search benchmarks: the maze and the dungeon examples.
 *
 * Maze: root seeds 1..20, each explored on its own (a fresh campaign per root, so every root
 * starts with empty latches) with the default exploration settings; how many timelines each root needed to
 * reach its first bug; then plain random root seeds under the same total number of timelines.
 * Dungeon: the same for a few root seeds. Distinct bugs are counted per (root seed, violated
 * property), not per failing timeline: most failing timelines are clones of one branch point.
 * Race: root seeds 1..20 of an ordering race among spawned tasks (examples/maze/race.ts), each
 * explored with RACE_RUNS_PER_SEED timelines and ending at its first bug; against it, 20 groups of
 * RACE_RUNS_PER_SEED plain random seeds (the same total budget): a group "finds" the bug when one
 * of its seeds fails, so both counts are out of 20.
 * Dungeon budget: MOONPOOL_BENCH_DUNGEON_BUDGET timelines per root (default DUNGEON_RUNS_PER_SEED), with the
 * settings of bench/dungeon.ts (which runs the dungeon alone at 268,000 timelines per root).
 * Workers: maze root seeds 1..MAZE_WORKERS_SEEDS explored in one campaign with `workers: 0` and
 * `workers: 2`, with the default settings and WORKERS_RUNS_PER_SEED timelines per root; timelines
 * per second of each, the pool's start-up included (threads, tsx, module loading). Whole roots of a
 * round go to whoever is free (runner/pool/root-sharing.ts), so the two explorations (every
 * root's trace hash and the exploration report) must be identical, and are checked on every run.
 * The pool starts only when the machine has a spare core (runner/pool/deferred-pool.ts):
 * `mazeWorkersRuns.started` says whether it did in each run, `mazeWorkersRuns.rootsFromWorkers`
 * how many roots a worker's outcome settled. After one unmeasured run (this thread's JIT warms up
 * on the maze), the two runs repeat MOONPOOL_BENCH_WORKERS_REPEAT times (default 3) in alternating
 * order; the figures are medians, `mazeWorkers2Ratio` the median of each repetition's
 * workers-2 / workers-0 ratio, `mazeWorkersRuns.load` the 1-minute load average before each.
 * `MOONPOOL_BENCH_EXPLORE=workers` runs this part alone; `MOONPOOL_BENCH_POOL_START=eager` starts
 * the pool at once, without waiting for a spare core (`mazeWorkersPoolStart`; the workers-2 figure
 * is then also `mazeTimelinesPerSecWorkers2Eager`, null otherwise).
 */
import type { ExplorationConfig, SimulationBuilder, SimulationReport } from "../packages/sim/src/index.ts";
import { DEFAULT_POOL_START, poolsStarted, setPoolStartPolicy } from "../packages/sim/src/runner/pool/deferred-pool.ts";
import { rootSharingTotals } from "../packages/sim/src/runner/pool/root-sharing.ts";
import { mazeSimulation } from "../examples/maze/maze.ts";
import { availableParallelism, loadavg } from "node:os";
import { dungeonSimulation } from "../examples/dungeon/dungeon.ts";
import { DUNGEON_BUG_ASSERTION, DUNGEON_DEPTH_ASSERTION, DUNGEON_EXPLORATION } from "./dungeon.ts";
import { raceSimulation } from "../examples/maze/race.ts";

const EXPLORATION = {
  workers: 0,
  maxRunsPerSeed: 2000,
  branchingFactor: 4,
  maxFrontier: 512,
  maxRecipeLen: 32,
} as const;
const MAZE_SEEDS = 20;
const DUNGEON_SEEDS = 3;
/**
 * Maze root seeds timed with and without worker threads: one round (roots of a round are what
 * workers can take), enough roots for both threads of a 2-core machine to stay busy.
 */
const MAZE_WORKERS_SEEDS = 8;
/**
 * Timelines per root of the workers measurement. A worker's start-up takes about two seconds of
 * CPU (the thread, its TypeScript loader thread, the modules) and the pool starts only after a
 * sample of idle CPU: a root must outlast that for a worker to contribute.
 */
const WORKERS_RUNS_PER_SEED = 20_000;
const MAZE_MODULE = new URL("../examples/maze/maze.ts", import.meta.url).href;
/**
 * The dungeon's chain is ~25x longer than the maze's: give its roots a larger budget. Roots 1 and
 * 2 find the treasure at timelines 6,362 and 4,134; root 3 needs the revival of retired entries
 * once its frontier has run dry (between 30,000 and 40,000 timelines) and finds it at 50,472. So
 * 60,000 finds all three; 8,000 (MOONPOOL_BENCH_DUNGEON_BUDGET=8000) finds two in about a
 * seventh of the time (examples/dungeon/README.md; `npm run bench -- dungeon` runs 268,000).
 */
const DUNGEON_RUNS_PER_SEED = 60_000;
const RACE_SEEDS = 20;
const RACE_RUNS_PER_SEED = 100;

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

async function exploreEach(
  build: () => SimulationBuilder,
  seeds: number,
  maxRunsPerSeed: number,
  stopOnFailure = false,
  settings: Partial<ExplorationConfig> = EXPLORATION,
): Promise<Explored> {
  const reports: SimulationReport[] = [];
  const firstBugs: (number | null)[] = [];
  let timelines = 0;
  let distinctBugs = 0;
  const start = performance.now();
  for (let seed = 1; seed <= seeds; seed++) {
    const report: SimulationReport = await build()
      .enableExploration({ ...settings, maxRunsPerSeed, stopOnFailure })
      .setDebugSeeds([seed])
      .setIterations(1)
      .run();
    reports.push(report);
    const x = report.exploration!;
    firstBugs.push(x.perSeed[0]!.firstBugAtTimeline);
    timelines += x.timelines;
    distinctBugs += x.bugsFound;
    console.error(
      `  root seed ${seed}: first bug at timeline ${x.perSeed[0]!.firstBugAtTimeline ?? "-"} (${x.timelines} timelines, ${x.bugsFound} distinct bugs)`,
    );
  }
  return { firstBugs, timelines, distinctBugs, wallMs: performance.now() - start, reports };
}

async function randomSeeds(build: () => SimulationBuilder, budget: number): Promise<SimulationReport> {
  return build().setBaseSeed(20_251_129).setIterations(budget).run();
}

/**
 * Timelines per second of one campaign exploring maze roots 1..MAZE_WORKERS_SEEDS with `workers`
 * (its pool started once, its start-up included), and the exploration (for the identity check).
 */
async function mazeWithWorkers(workers: number): Promise<{
  timelinesPerSec: number;
  explorations: string[];
  poolStarted: boolean;
  rootsFromWorkers: number;
  rootsHedgedHere: number;
}> {
  const pools = poolsStarted;
  const { fromWorkers, hedgedHere } = rootSharingTotals;
  const start = performance.now();
  const report = await mazeSimulation()
    .enableExploration({ ...EXPLORATION, workers, maxRunsPerSeed: WORKERS_RUNS_PER_SEED })
    .simulationSource(MAZE_MODULE, "mazeSimulation")
    .setDebugSeeds(Array.from({ length: MAZE_WORKERS_SEEDS }, (_, i) => i + 1))
    .setIterations(MAZE_WORKERS_SEEDS)
    .run();
  const timelines = report.exploration!.timelines;
  return {
    timelinesPerSec: Math.round(timelines / ((performance.now() - start) / 1000)),
    explorations: [JSON.stringify(report.exploration), JSON.stringify(report.seeds.map((s) => s.traceHash))],
    poolStarted: poolsStarted > pools,
    rootsFromWorkers: rootSharingTotals.fromWorkers - fromWorkers,
    rootsHedgedHere: rootSharingTotals.hedgedHere - hedgedHere,
  };
}

function workersRepeat(): number {
  const text = process.env.MOONPOOL_BENCH_WORKERS_REPEAT;
  if (text === undefined || text === "") return 3;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`MOONPOOL_BENCH_WORKERS_REPEAT '${text}': expected a positive integer (runs of each)`);
  return n;
}

/** The workers measurement: alternating runs, medians, the identity check on every run. */
async function benchWorkers(): Promise<Record<string, unknown>> {
  const repeat = workersRepeat();
  const eager = process.env.MOONPOOL_BENCH_POOL_START === "eager";
  if (eager) setPoolStartPolicy({ ...DEFAULT_POOL_START, minSpareCores: 0, sampleMs: 0 });
  console.error(
    `maze: root seeds 1..${MAZE_WORKERS_SEEDS} x ${WORKERS_RUNS_PER_SEED} timelines, workers 0 / 2, ${repeat} times`,
  );
  const runs = {
    w0: [] as number[],
    w2: [] as number[],
    started: [] as boolean[],
    rootsFromWorkers: [] as number[],
    rootsHedgedHere: [] as number[],
    load: [] as number[],
  };
  // One unmeasured run first: this thread's JIT warms up on the maze before any run is timed.
  await mazeWithWorkers(0);
  for (let i = 0; i < repeat; i++) {
    runs.load.push(Math.round(loadavg()[0]! * 10) / 10);
    // The order alternates from one repetition to the next, so neither variant always runs first.
    const inThreadFirst = i % 2 === 0;
    const first = await mazeWithWorkers(inThreadFirst ? 0 : 2);
    const second = await mazeWithWorkers(inThreadFirst ? 2 : 0);
    const [inThread, pooled] = inThreadFirst ? [first, second] : [second, first];
    if (JSON.stringify(pooled.explorations) !== JSON.stringify(inThread.explorations))
      throw new Error("maze: workers: 2 explored differently from workers: 0");
    runs.w0.push(inThread.timelinesPerSec);
    runs.w2.push(pooled.timelinesPerSec);
    runs.started.push(pooled.poolStarted);
    runs.rootsFromWorkers.push(pooled.rootsFromWorkers);
    runs.rootsHedgedHere.push(pooled.rootsHedgedHere);
    console.error(
      `  run ${i + 1} (load ${runs.load[i]}): ${inThread.timelinesPerSec} / ${pooled.timelinesPerSec} timelines/s` +
        (pooled.poolStarted
          ? ` (${pooled.rootsFromWorkers} roots from workers, ${pooled.rootsHedgedHere} finished here first)`
          : " (pool not started)"),
    );
  }
  const w0 = median(runs.w0)!;
  const w2 = median(runs.w2)!;
  const ratio = median(runs.w2.map((w, i) => w / runs.w0[i]!))!;
  return {
    mazeWorkersSeeds: MAZE_WORKERS_SEEDS,
    mazeWorkersEntriesPerRound: 1,
    mazeWorkersRunsPerSeed: WORKERS_RUNS_PER_SEED,
    mazeTimelinesPerSecWorkers0: w0,
    mazeTimelinesPerSecWorkers2: w2,
    mazeTimelinesPerSecWorkers2Eager: eager ? w2 : null,
    mazeWorkers2Ratio: Math.round(ratio * 100) / 100,
    mazeWorkersPoolStart: eager ? "eager" : "spare core",
    mazeWorkersPoolStarted: runs.started.filter((s) => s).length,
    mazeWorkersRuns: runs,
    cores: availableParallelism(),
  };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Groups of `size` consecutive random seeds (out of `groups`) with at least one failing seed. */
async function randomGroupsFound(build: () => SimulationBuilder, groups: number, size: number): Promise<number> {
  const report = await randomSeeds(build, groups * size);
  let found = 0;
  for (let g = 0; g < groups; g++) if (report.seeds.slice(g * size, (g + 1) * size).some((s) => !s.ok)) found++;
  return found;
}

function dungeonBudget(): number {
  const text = process.env.MOONPOOL_BENCH_DUNGEON_BUDGET;
  if (text === undefined || text === "") return DUNGEON_RUNS_PER_SEED;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`MOONPOOL_BENCH_DUNGEON_BUDGET '${text}': expected a positive integer (timelines per root seed)`);
  return n;
}

export async function benchExplore(): Promise<Record<string, unknown>> {
  const only = process.env.MOONPOOL_BENCH_EXPLORE;
  if (only === "workers") return benchWorkers();
  if (only !== undefined && only !== "")
    throw new Error(`MOONPOOL_BENCH_EXPLORE '${only}': expected "workers" (or unset for the whole benchmark)`);
  console.error("maze: exploring root seeds 1..20");
  const maze = await exploreEach(mazeSimulation, MAZE_SEEDS, EXPLORATION.maxRunsPerSeed);
  const found = maze.firstBugs.filter((f): f is number => f !== null);
  console.error(`maze: ${maze.timelines} random root seeds (the same timeline budget)`);
  const mazeRandomSeedsBugs = (await randomSeeds(mazeSimulation, maze.timelines)).failedRuns;

  console.error(`race: exploring root seeds 1..${RACE_SEEDS}, ${RACE_RUNS_PER_SEED} timelines each`);
  const race = await exploreEach(raceSimulation, RACE_SEEDS, RACE_RUNS_PER_SEED, true);
  const raceRandomFound = await randomGroupsFound(raceSimulation, RACE_SEEDS, RACE_RUNS_PER_SEED);

  const dungeonRunsPerSeed = dungeonBudget();
  console.error(`dungeon: exploring root seeds 1..${DUNGEON_SEEDS}, ${dungeonRunsPerSeed} timelines each`);
  const dungeon = await exploreEach(dungeonSimulation, DUNGEON_SEEDS, dungeonRunsPerSeed, false, DUNGEON_EXPLORATION);
  console.error(`dungeon: ${dungeon.timelines} random root seeds (the same timeline budget)`);
  const dungeonRandom = await randomSeeds(dungeonSimulation, dungeon.timelines);
  const bugTimelines = dungeon.reports.reduce(
    (sum, r) => sum + (r.assertionDetails.find((d) => d.message === DUNGEON_BUG_ASSERTION)?.failCount ?? 0),
    0,
  );
  const deepestExplored = Math.max(...dungeon.reports.map((r) => watermark(r, DUNGEON_DEPTH_ASSERTION) ?? 0));

  const workers = await benchWorkers();

  return {
    mazeSeeds: MAZE_SEEDS,
    mazeSeedsFound: found.length,
    mazeFirstBugMedian: median(found),
    mazeFirstBugMax: found.length === 0 ? null : Math.max(...found),
    mazeDistinctBugRecipes: maze.distinctBugs,
    mazeRandomSeedsBugs,
    mazeTimelinesPerSec: Math.round(maze.timelines / (maze.wallMs / 1000)),
    raceRoots: RACE_SEEDS,
    raceTimelinesPerRoot: RACE_RUNS_PER_SEED,
    raceExploreFound: race.firstBugs.filter((f) => f !== null).length,
    raceRandomFound,
    dungeonRunsPerSeed,
    dungeonMaxRecipeLen: DUNGEON_EXPLORATION.maxRecipeLen,
    dungeonEntryEnergy: DUNGEON_EXPLORATION.entryEnergy,
    dungeonReviveRetired: DUNGEON_EXPLORATION.reviveRetired,
    dungeonTimelines: dungeon.timelines,
    dungeonRootsFound: dungeon.firstBugs.filter((f) => f !== null).length,
    dungeonDistinctBugs: dungeon.distinctBugs,
    dungeonBugTimelines: bugTimelines,
    dungeonFirstBugs: dungeon.firstBugs,
    dungeonExploreSec: Math.round(dungeon.wallMs / 1000),
    dungeonRandomSeedsBugs: dungeonRandom.failedRuns,
    dungeonDeepestFloorExplored: deepestExplored,
    dungeonDeepestFloorRandom: watermark(dungeonRandom, DUNGEON_DEPTH_ASSERTION),
    ...workers,
  };
}
