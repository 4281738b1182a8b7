/**
 * Exploration speed in this thread: maze root seeds 1..ROOTS, each explored on its own with the
 * explore bench's settings (2,000 timelines per root, no stop at the first bug), timed by user CPU
 * (`process.cpuUsage`, less noisy than wall time on a shared machine) and by wall time.
 *
 * `npm run bench -- explore-speed` measures this checkout in this process.
 * MOONPOOL_BENCH_SPEED_ROOTS=20 times roots 1..20, the maze part of `npm run bench -- explore`.
 * With MOONPOOL_BENCH_BASELINE=<another checkout of this repository>, it compares the two, for
 * MOONPOOL_BENCH_ROUNDS rounds (default 4), as ratios this / baseline:
 * - by default in alternating child processes running this file's driver
 *   (`node --import tsx bench/explore-speed.ts --driver <checkout>`), the baseline first: each
 *   side alone in its process, as a user runs it;
 * - with MOONPOOL_BENCH_PROCESSES=0, in this process, root by root, alternating which side goes
 *   first, each root after a full garbage collection. Both sides then see the same machine load,
 *   but not their own garbage collector: with both checkouts loaded, 7e3d92f let 12.6 MB survive
 *   young collections on maze root 1 x 2,000 where it lets 48.7 MB survive alone, which hid a
 *   1.5x difference.
 */
import { spawnSync } from "node:child_process";
import { constants as perfConstants, PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, resolve } from "node:path";

const ROOTS = rootsToTime();
const RUNS_PER_ROOT = 2000;
/** The explore bench's EXPLORATION settings (bench/explore.ts). */
const EXPLORATION = {
  workers: 0,
  maxRunsPerSeed: RUNS_PER_ROOT,
  branchingFactor: 4,
  maxFrontier: 512,
  maxRecipeLen: 32,
  stopOnFailure: false,
} as const;
const HERE = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The part of a checkout's maze example used here (the two checkouts' types may differ). */
interface MazeModule {
  mazeSimulation(): {
    enableExploration(config: typeof EXPLORATION): {
      setDebugSeeds(seeds: number[]): { setIterations(n: number): { run(): Promise<ExploredReport> } };
    };
  };
}

interface ExploredReport {
  readonly exploration: { readonly timelines: number; readonly perSeed: { firstBugAtTimeline: number | null }[] };
}

/** User CPU, wall time and what was explored, over some roots. */
interface Side {
  cpuMs: number;
  wallMs: number;
  timelines: number;
  /** Every root's first bug, so two checkouts can be seen to explore alike. */
  firstBugs: (number | null)[];
  /** Garbage collections during the roots (Node's `gc` performance entries): count and pause time. */
  gc: GcFigures;
}

interface GcFigures {
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  markCompactMs: number;
}

const emptyGc = (): GcFigures => ({ scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0 });
const emptySide = (): Side => ({ cpuMs: 0, wallMs: 0, timelines: 0, firstBugs: [], gc: emptyGc() });

/** GC entries seen so far in this process (the side being timed owns the process while it runs). */
const gcSeen = emptyGc();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) {
      gcSeen.scavenges++;
      gcSeen.scavengeMs += entry.duration;
    } else if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) {
      gcSeen.markCompacts++;
      gcSeen.markCompactMs += entry.duration;
    }
  }
}).observe({ entryTypes: ["gc"] });

function addGc(sum: GcFigures, more: GcFigures): void {
  sum.scavenges += more.scavenges;
  sum.scavengeMs += more.scavengeMs;
  sum.markCompacts += more.markCompacts;
  sum.markCompactMs += more.markCompactMs;
}

const roundedGc = (gc: GcFigures): GcFigures => ({
  scavenges: gc.scavenges,
  scavengeMs: Math.round(gc.scavengeMs),
  markCompacts: gc.markCompacts,
  markCompactMs: Math.round(gc.markCompactMs),
});

async function mazeOf(checkout: string): Promise<MazeModule> {
  return (await import(pathToFileURL(resolve(checkout, "examples/maze/maze.ts")).href)) as MazeModule;
}

/** Explores maze root `seed` and adds its figures to `side`. */
async function timedRoot(maze: MazeModule, seed: number, side: Side): Promise<void> {
  // GC entries are delivered after an event-loop turn: flush the previous root's before starting.
  await new Promise((resolve) => setImmediate(resolve));
  const gcStart = { ...gcSeen };
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const report = await maze
    .mazeSimulation()
    .enableExploration(EXPLORATION)
    .setDebugSeeds([seed])
    .setIterations(1)
    .run();
  side.wallMs += performance.now() - wallStart;
  side.cpuMs += process.cpuUsage(cpuStart).user / 1000;
  side.timelines += report.exploration.timelines;
  side.firstBugs.push(report.exploration.perSeed[0]!.firstBugAtTimeline);
  await new Promise((resolve) => setImmediate(resolve));
  addGc(side.gc, {
    scavenges: gcSeen.scavenges - gcStart.scavenges,
    scavengeMs: gcSeen.scavengeMs - gcStart.scavengeMs,
    markCompacts: gcSeen.markCompacts - gcStart.markCompacts,
    markCompactMs: gcSeen.markCompactMs - gcStart.markCompactMs,
  });
}

const perCpuSec = (side: Side): number => Math.round(side.timelines / (side.cpuMs / 1000));
const perSec = (side: Side): number => Math.round(side.timelines / (side.wallMs / 1000));

/** Explores the maze roots with the code of `checkout` (a directory holding this repository). */
async function measure(checkout: string): Promise<Record<string, unknown>> {
  const maze = await mazeOf(checkout);
  const side = emptySide();
  for (let seed = 1; seed <= ROOTS; seed++) await timedRoot(maze, seed, side);
  return {
    timelines: side.timelines,
    timelinesPerCpuSec: perCpuSec(side),
    timelinesPerSec: perSec(side),
    cpuMs: Math.round(side.cpuMs),
    wallMs: Math.round(side.wallMs),
    firstBugs: side.firstBugs,
    gc: roundedGc(side.gc),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Maze roots timed: MOONPOOL_BENCH_SPEED_ROOTS (default 4); the child drivers read the same variable. */
function rootsToTime(): number {
  const text = process.env.MOONPOOL_BENCH_SPEED_ROOTS ?? "4";
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1 || n > 100)
    throw new Error(`MOONPOOL_BENCH_SPEED_ROOTS '${text}': expected an integer from 1 to 100 (maze roots)`);
  return n;
}

function rounds(): number {
  const text = process.env.MOONPOOL_BENCH_ROUNDS ?? "4";
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`MOONPOOL_BENCH_ROUNDS '${text}': expected a positive integer`);
  return n;
}

/** One round of one side in a child process running this file's driver. */
function runDriver(checkout: string): Side {
  const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--driver", checkout], {
    cwd: checkout,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`driver in ${checkout} failed (${child.status}): ${child.stderr}`);
  const lines = child.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as Side;
}

/** Both checkouts in this process, root by root, alternating which goes first. */
async function oneRoundInProcess(baseMaze: MazeModule, headMaze: MazeModule, round: number): Promise<[Side, Side]> {
  const base = emptySide();
  const head = emptySide();
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let seed = 1; seed <= ROOTS; seed++) {
    const headFirst = (round + seed) % 2 === 0;
    for (const [maze, side] of headFirst
      ? [
          [headMaze, head],
          [baseMaze, base],
        ]
      : [
          [baseMaze, base],
          [headMaze, head],
        ]) {
      gc?.();
      await timedRoot(maze as MazeModule, seed, side as Side);
    }
  }
  return [base, head];
}

/** Ratios this / baseline, round by round. */
async function compare(baseline: string, inProcess: boolean): Promise<Record<string, unknown>> {
  const baseMaze = inProcess ? await mazeOf(baseline) : null;
  const headMaze = inProcess ? await mazeOf(HERE) : null;
  const base: Side[] = [];
  const head: Side[] = [];
  for (let round = 0; round < rounds(); round++) {
    if (baseMaze !== null && headMaze !== null) {
      const [b, h] = await oneRoundInProcess(baseMaze, headMaze, round);
      base.push(b);
      head.push(h);
    } else {
      base.push(runDriver(baseline));
      head.push(runDriver(HERE));
    }
    console.error(
      `round ${round + 1}: baseline ${perCpuSec(base[round]!)}/cpu-s ${perSec(base[round]!)}/s, ` +
        `this ${perCpuSec(head[round]!)}/cpu-s ${perSec(head[round]!)}/s`,
    );
  }
  if (JSON.stringify(base.map((f) => f.firstBugs)) !== JSON.stringify(head.map((f) => f.firstBugs)))
    console.error("note: the two checkouts reached their first bugs at different timelines");
  const cpuRatios = base.map((b, i) => perCpuSec(head[i]!) / perCpuSec(b));
  const wallRatios = base.map((b, i) => perSec(head[i]!) / perSec(b));
  const total = (sides: Side[]): Side =>
    sides.reduce((sum, s) => {
      addGc(sum.gc, s.gc);
      return {
        cpuMs: sum.cpuMs + s.cpuMs,
        wallMs: sum.wallMs + s.wallMs,
        timelines: sum.timelines + s.timelines,
        firstBugs: [],
        gc: sum.gc,
      };
    }, emptySide());
  return {
    baseline,
    mode: inProcess ? "in-process" : "processes",
    rounds: base.length,
    timelinesPerRound: head[0]!.timelines,
    baselineTimelinesPerCpuSec: perCpuSec(total(base)),
    timelinesPerCpuSec: perCpuSec(total(head)),
    cpuRatioMedian: Number(median(cpuRatios).toFixed(3)),
    cpuRatios: cpuRatios.map((r) => Number(r.toFixed(3))),
    baselineTimelinesPerSec: perSec(total(base)),
    timelinesPerSec: perSec(total(head)),
    wallRatioMedian: Number(median(wallRatios).toFixed(3)),
    firstBugs: head[0]!.firstBugs,
    baselineGc: roundedGc(total(base).gc),
    gc: roundedGc(total(head).gc),
  };
}

export async function benchExploreSpeed(): Promise<Record<string, unknown>> {
  const baseline = process.env.MOONPOOL_BENCH_BASELINE;
  if (baseline !== undefined && baseline !== "")
    return compare(resolve(baseline), process.env.MOONPOOL_BENCH_PROCESSES === "0");
  return { roots: ROOTS, runsPerRoot: RUNS_PER_ROOT, ...(await measure(HERE)) };
}

const driverAt = process.argv.indexOf("--driver");
if (driverAt >= 0) {
  const checkout = process.argv[driverAt + 1];
  if (checkout === undefined) throw new Error("--driver <checkout>: the checkout directory is missing");
  process.stdout.write(JSON.stringify(await measure(checkout)) + "\n");
}
