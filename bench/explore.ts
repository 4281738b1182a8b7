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
 * `workers: 2` (the pool is started once per campaign and its start-up counts: threads, tsx,
 * module loading), timelines per second of each; the two explorations (and every root's trace
 * hash) must be identical. Both use WORKERS_RUNS_PER_SEED timelines per root and rounds of
 * WORKERS_ENTRIES_PER_ROUND entries: a maze timeline takes well under a millisecond, so a round of
 * one entry (4 timelines) is shorter than one message to a worker and back, and would never leave
 * this thread. Larger rounds change the search (maze roots 1..20 at 2,000 timelines: 20 found,
 * median first bug at 291 with 1 entry per round; 20, 677 with 4; 11, 1515 with 16), so the
 * maze's 20-root part keeps the defaults. The pool starts only when the machine has a spare core
 * (runner/pool/deferred-pool.ts): `mazeWorkersRuns.started` says whether it did in each run, and
 * `mazeTimelinesPerSecWorkers2Eager` is the same run with the pool started at once. After one
 * unmeasured run (this thread's JIT warms up), the three runs repeat MOONPOOL_BENCH_WORKERS_REPEAT
 * times (default 5) in rotating order; the figures are medians, `mazeWorkers2Ratio` the median of
 * each repetition's workers-2 / workers-0 ratio. `MOONPOOL_BENCH_EXPLORE=workers`
 * runs this part alone.
 */
import type { ExplorationConfig, SimulationBuilder, SimulationReport } from "../packages/sim/src/index.ts";
import { DEFAULT_POOL_START, poolsStarted, setPoolStartPolicy } from "../packages/sim/src/runner/pool/deferred-pool.ts";
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
/** Maze root seeds timed with and without worker threads. */
const MAZE_WORKERS_SEEDS = 3;
/** Entries per round of the workers measurement, for 0 and 2 workers alike (see above). */
const WORKERS_ENTRIES_PER_ROUND = 16;
/**
 * Timelines per root of the workers measurement. A worker's start-up takes about two seconds of
 * CPU (the thread, its TypeScript loader thread, the modules): a campaign of a few seconds ends
 * before the pool is ready, so the measurement is long enough for the pool to matter.
 */
const WORKERS_RUNS_PER_SEED = 6000;
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
async function mazeWithWorkers(
  workers: number,
  eager = false,
): Promise<{ timelinesPerSec: number; explorations: string[]; poolStarted: boolean }> {
  const pools = poolsStarted;
  // Eager: the default policy (its warm-up included) without the spare-core and work-left conditions.
  const previous = eager
    ? setPoolStartPolicy({ ...DEFAULT_POOL_START, minSpareCores: 0, sampleMs: 0, minWorkLeftMs: 0 })
    : null;
  const start = performance.now();
  try {
    const report = await mazeSimulation()
      .enableExploration({
        ...EXPLORATION,
        workers,
        entriesPerRound: WORKERS_ENTRIES_PER_ROUND,
        maxRunsPerSeed: WORKERS_RUNS_PER_SEED,
      })
      .simulationSource(MAZE_MODULE, "mazeSimulation")
      .setDebugSeeds(Array.from({ length: MAZE_WORKERS_SEEDS }, (_, i) => i + 1))
      .setIterations(MAZE_WORKERS_SEEDS)
      .run();
    const timelines = report.exploration!.timelines;
    return {
      timelinesPerSec: Math.round(timelines / ((performance.now() - start) / 1000)),
      explorations: [JSON.stringify(report.exploration), JSON.stringify(report.seeds.map((s) => s.traceHash))],
      poolStarted: poolsStarted > pools,
    };
  } finally {
    if (previous !== null) setPoolStartPolicy(previous);
  }
}

function workersRepeat(): number {
  const text = process.env.MOONPOOL_BENCH_WORKERS_REPEAT;
  if (text === undefined || text === "") return 5;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`MOONPOOL_BENCH_WORKERS_REPEAT '${text}': expected a positive integer (runs of each)`);
  return n;
}

/** The workers measurement: alternating runs, medians, the identity check on every run. */
async function benchWorkers(): Promise<Record<string, unknown>> {
  const repeat = workersRepeat();
  console.error(
    `maze: root seeds 1..${MAZE_WORKERS_SEEDS} x ${WORKERS_RUNS_PER_SEED} timelines, entriesPerRound ${WORKERS_ENTRIES_PER_ROUND}, ` +
      `workers 0 / 2 / 2 started at once, ${repeat} times`,
  );
  const runs: { w0: number[]; w2: number[]; eager: number[]; started: boolean[]; load: number[] } = {
    w0: [],
    w2: [],
    eager: [],
    started: [],
    load: [],
  };
  // One unmeasured run first: this thread's JIT warms up on the maze before any run is timed.
  await mazeWithWorkers(0);
  for (let i = 0; i < repeat; i++) {
    runs.load.push(Math.round(loadavg()[0]! * 10) / 10);
    // The order rotates from one repetition to the next, so no variant always runs first.
    const variants = [() => mazeWithWorkers(0), () => mazeWithWorkers(2), () => mazeWithWorkers(2, true)];
    const measured: Awaited<ReturnType<typeof mazeWithWorkers>>[] = [];
    for (let v = 0; v < variants.length; v++) {
      const at = (v + i) % variants.length;
      measured[at] = await variants[at]!();
    }
    const [inThread, pooled, eager] = measured as [(typeof measured)[0], (typeof measured)[0], (typeof measured)[0]];
    for (const [name, other] of [
      ["workers: 2", pooled],
      ["workers: 2 (pool started at once)", eager],
    ] as const) {
      if (JSON.stringify(other.explorations) !== JSON.stringify(inThread.explorations))
        throw new Error(`maze: ${name} explored differently from workers: 0`);
    }
    runs.w0.push(inThread.timelinesPerSec);
    runs.w2.push(pooled.timelinesPerSec);
    runs.eager.push(eager.timelinesPerSec);
    runs.started.push(pooled.poolStarted);
    console.error(
      `  run ${i + 1}: ${inThread.timelinesPerSec} / ${pooled.timelinesPerSec}${pooled.poolStarted ? "" : " (pool not started)"} / ${eager.timelinesPerSec} timelines/s`,
    );
  }
  const w0 = median(runs.w0)!;
  const w2 = median(runs.w2)!;
  const ratio = median(runs.w2.map((w, i) => w / runs.w0[i]!))!;
  return {
    mazeWorkersSeeds: MAZE_WORKERS_SEEDS,
    mazeWorkersEntriesPerRound: WORKERS_ENTRIES_PER_ROUND,
    mazeWorkersRunsPerSeed: WORKERS_RUNS_PER_SEED,
    mazeTimelinesPerSecWorkers0: w0,
    mazeTimelinesPerSecWorkers2: w2,
    mazeTimelinesPerSecWorkers2Eager: median(runs.eager),
    mazeWorkers2Ratio: Math.round(ratio * 100) / 100,
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
