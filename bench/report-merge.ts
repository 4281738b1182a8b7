/**
 * `moonpool merge` on a report longer than the longest string V8 can make (2^29 - 24 characters).
 * A real 100-seed leader-election report is written by `moonpool run`, its seed records repeated
 * (fresh indexes) to `BIG_REPORT_SEEDS` seeds (default 110,000, about 560 MB) and streamed to
 * disk; then the real CLI merges it in a child process, with Node's default heap limit. The
 * baseline, in this process: a report of `BASELINE_SEEDS` seeds read by the streaming reader and
 * by `JSON.parse(readFile())`.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readJsonFile } from "../packages/sim/src/cli/read-json-file.ts";
import { readRunReport, writeRunReport, type RunReportFile } from "../packages/sim/src/cli/run-report.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));
const BIN = path.join(REPO, "packages/sim/bin/moonpool.mjs");
const SAMPLE_SEEDS = 100;
const BASELINE_SEEDS = 10_000;
/** V8's longest string (Node 20-24). */
const MAX_STRING_CHARS = 2 ** 29 - 24;
interface ChildRun {
  readonly status: number | null;
  readonly stderr: string;
  readonly ms: number;
  /** User + system CPU time: on a loaded machine a steadier figure than the wall time. */
  readonly cpuMs: number;
  readonly maxRssMb: number;
}

function run(args: readonly string[]): ChildRun {
  const start = performance.now();
  // GNU time prints the child's peak resident set (kB) and CPU seconds on the last line of stderr.
  const child = spawnSync("/usr/bin/time", ["-f", "%M %U %S", process.execPath, BIN, ...args], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: "1", CI: "true" },
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const lines = child.stderr.trimEnd().split("\n");
  const [rssKb, userS, systemS] = lines.at(-1)!.split(" ").map(Number);
  return {
    status: child.status,
    stderr: lines.slice(0, -1).join("\n"),
    ms: performance.now() - start,
    cpuMs: (userS! + systemS!) * 1000,
    maxRssMb: rssKb! / 1024,
  };
}

/** The sample report with its seed records repeated to `seeds` records (shared objects: cheap to hold). */
function repeated(sample: RunReportFile, seeds: number): RunReportFile {
  const entry = sample.simulations[0]!;
  const records = entry.report.seeds as Record<string, unknown>[];
  const report = {
    ...entry.report,
    iterations: seeds,
    successfulRuns: seeds,
    seedsUsed: Array.from({ length: seeds }, (_, index) => entry.report.seedsUsed[index % records.length]),
    seeds: Array.from({ length: seeds }, (_, index) => ({ ...records[index % records.length]!, index })),
  };
  const plan = { ...entry.plan, count: seeds };
  return { ...sample, simulations: [{ ...entry, plan, seedIndexRange: { start: 0, end: seeds }, report }] };
}

export async function benchReportMerge(): Promise<Record<string, unknown>> {
  const seeds = Number(process.env.BIG_REPORT_SEEDS ?? 110_000);
  if (!Number.isSafeInteger(seeds) || seeds < SAMPLE_SEEDS)
    throw new RangeError(`BIG_REPORT_SEEDS must be an integer >= ${SAMPLE_SEEDS}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), "moonpool-report-merge-"));
  try {
    const sampleRun = run([
      "run",
      "leader-election",
      "--iterations",
      String(SAMPLE_SEEDS),
      "--base-seed",
      "7",
      "--workers",
      "1",
      "--reporter",
      "json",
      "--out",
      dir,
    ]);
    if (sampleRun.status !== 0) throw new Error(`moonpool run failed (${sampleRun.status}): ${sampleRun.stderr}`);
    const sample = await readRunReport(path.join(dir, "report.json"));

    // Baseline: the same reader against JSON.parse on a report that still fits in a string.
    const baselineFile = path.join(dir, "baseline.json");
    await writeRunReport(repeated(sample, BASELINE_SEEDS), baselineFile);
    const baselineBytes = (await stat(baselineFile)).size;
    let start = performance.now();
    JSON.parse(await readFile(baselineFile, "utf8"));
    const jsonParseMs = performance.now() - start;
    start = performance.now();
    await readJsonFile(baselineFile);
    const streamingMs = performance.now() - start;
    await rm(baselineFile);

    const bigFile = path.join(dir, "big.json");
    start = performance.now();
    await writeRunReport(repeated(sample, seeds), bigFile);
    const writeMs = performance.now() - start;
    const bigBytes = (await stat(bigFile)).size;
    const stringError = await readFile(bigFile, "utf8").then(
      () => null,
      (error: Error) => error.message,
    );

    const mergedFile = path.join(dir, "merged.json");
    const merge = run(["merge", bigFile, "-o", mergedFile]);
    if (merge.status !== 0) throw new Error(`moonpool merge failed (${merge.status}): ${merge.stderr}`);
    const merged = await readRunReport(mergedFile);
    const mergedSeeds = merged.simulations[0]!.report.seeds.length as number;
    if (mergedSeeds !== seeds) throw new Error(`the merged report holds ${mergedSeeds} seeds, not ${seeds}`);
    return {
      seeds,
      bigReportMB: +(bigBytes / 1e6).toFixed(1),
      longerThanAString: bigBytes > MAX_STRING_CHARS,
      readFileAsStringError: stringError,
      writeMs: Math.round(writeMs),
      mergeCommandMs: Math.round(merge.ms),
      mergeCommandCpuMs: Math.round(merge.cpuMs),
      mergeMBPerCpuSec: +(bigBytes / 1e6 / (merge.cpuMs / 1000)).toFixed(1),
      mergeMaxRssMB: Math.round(merge.maxRssMb),
      mergedSeeds,
      baselineReportMB: +(baselineBytes / 1e6).toFixed(1),
      baselineJsonParseMs: Math.round(jsonParseMs),
      baselineStreamingReadMs: Math.round(streamingMs),
      streamingOverJsonParse: +(streamingMs / jsonParseMs).toFixed(2),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
