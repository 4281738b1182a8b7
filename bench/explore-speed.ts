/**
 * Exploration speed in this thread: maze root seeds 1..ROOTS, each explored on its own with the
 * explore bench's settings (2,000 timelines per root, no stop at the first bug), timed by user CPU
 * (`process.cpuUsage`, less noisy than wall time on a shared machine) and by wall time.
 *
 * `npm run bench -- explore-speed` measures this checkout in this process.
 * With MOONPOOL_BENCH_BASELINE=<another checkout of this repository>, it instead runs this file's
 * driver (`node --import tsx bench/explore-speed.ts --driver <checkout>`) in alternating child
 * processes, the baseline checkout first, for MOONPOOL_BENCH_ROUNDS rounds (default 4), and
 * reports each side's median and the median of the per-round ratios.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, resolve } from "node:path";

const ROOTS = 4;
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

interface Figures {
  timelines: number;
  timelinesPerCpuSec: number;
  timelinesPerSec: number;
  cpuMs: number;
  wallMs: number;
  /** Every root's first bug and timeline count, so two checkouts can be seen to explore alike. */
  firstBugs: (number | null)[];
}

/** Explores the maze roots with the code of `checkout` (a directory holding this repository). */
async function measure(checkout: string): Promise<Figures> {
  const maze = await import(pathToFileURL(resolve(checkout, "examples/maze/maze.ts")).href);
  const firstBugs: (number | null)[] = [];
  let timelines = 0;
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  for (let seed = 1; seed <= ROOTS; seed++) {
    const report = await maze
      .mazeSimulation()
      .enableExploration(EXPLORATION)
      .setDebugSeeds([seed])
      .setIterations(1)
      .run();
    timelines += report.exploration.timelines;
    firstBugs.push(report.exploration.perSeed[0].firstBugAtTimeline);
  }
  const wallMs = performance.now() - wallStart;
  const cpuMs = process.cpuUsage(cpuStart).user / 1000;
  return {
    timelines,
    timelinesPerCpuSec: Math.round(timelines / (cpuMs / 1000)),
    timelinesPerSec: Math.round(timelines / (wallMs / 1000)),
    cpuMs: Math.round(cpuMs),
    wallMs: Math.round(wallMs),
    firstBugs,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function runDriver(checkout: string): Figures {
  const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--driver", checkout], {
    cwd: checkout,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`driver in ${checkout} failed (${child.status}): ${child.stderr}`);
  const lines = child.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as Figures;
}

function rounds(): number {
  const text = process.env.MOONPOOL_BENCH_ROUNDS ?? "4";
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`MOONPOOL_BENCH_ROUNDS '${text}': expected a positive integer`);
  return n;
}

/** Alternating child processes of the baseline checkout and this one; ratios are this / baseline. */
async function compare(baseline: string): Promise<Record<string, unknown>> {
  const base: Figures[] = [];
  const head: Figures[] = [];
  for (let round = 0; round < rounds(); round++) {
    base.push(runDriver(baseline));
    head.push(runDriver(HERE));
    const b = base[round]!;
    const h = head[round]!;
    console.error(
      `round ${round + 1}: baseline ${b.timelinesPerCpuSec}/cpu-s ${b.timelinesPerSec}/s, ` +
        `this ${h.timelinesPerCpuSec}/cpu-s ${h.timelinesPerSec}/s`,
    );
  }
  if (JSON.stringify(base.map((f) => f.firstBugs)) !== JSON.stringify(head.map((f) => f.firstBugs)))
    console.error("note: the two checkouts reached their first bugs at different timelines");
  const cpuRatios = base.map((b, i) => head[i]!.timelinesPerCpuSec / b.timelinesPerCpuSec);
  const wallRatios = base.map((b, i) => head[i]!.timelinesPerSec / b.timelinesPerSec);
  return {
    baseline,
    rounds: base.length,
    timelinesPerRound: head[0]!.timelines,
    baselineTimelinesPerCpuSec: median(base.map((f) => f.timelinesPerCpuSec)),
    timelinesPerCpuSec: median(head.map((f) => f.timelinesPerCpuSec)),
    cpuRatioMedian: Number(median(cpuRatios).toFixed(3)),
    cpuRatios: cpuRatios.map((r) => Number(r.toFixed(3))),
    baselineTimelinesPerSec: median(base.map((f) => f.timelinesPerSec)),
    timelinesPerSec: median(head.map((f) => f.timelinesPerSec)),
    wallRatioMedian: Number(median(wallRatios).toFixed(3)),
    firstBugs: head[0]!.firstBugs,
  };
}

export async function benchExploreSpeed(): Promise<Record<string, unknown>> {
  const baseline = process.env.MOONPOOL_BENCH_BASELINE;
  if (baseline !== undefined && baseline !== "") return compare(resolve(baseline));
  return { roots: ROOTS, runsPerRoot: RUNS_PER_ROOT, ...(await measure(HERE)) };
}

const driverAt = process.argv.indexOf("--driver");
if (driverAt >= 0) {
  const checkout = process.argv[driverAt + 1];
  if (checkout === undefined) throw new Error("--driver <checkout>: the checkout directory is missing");
  process.stdout.write(JSON.stringify(await measure(checkout)) + "\n");
}
