/**
 * `moonpool run --coverage`: turns the campaign's block coverage (offsets into the scripts the
 * workers ran) into line, branch and function coverage of the original sources through their
 * source maps (v8-to-istanbul), writes `lcov.info` and an HTML view (istanbul-reports) under the
 * report folder, and summarises it per file for the text and JSON reports.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Profiler } from "node:inspector";
import libCoverage, { type CoverageMap } from "istanbul-lib-coverage";
import libReport from "istanbul-lib-report";
import reports from "istanbul-reports";
import v8ToIstanbul from "v8-to-istanbul";
import {
  blockCoverageTotals,
  EMPTY_BLOCK_COVERAGE,
  isCovered,
  unionBlockCoverage,
  type BlockCoverage,
  type FileBlockCoverage,
} from "../runner/coverage/block-coverage.ts";
import { WorkerPool } from "../runner/pool/worker-pool.ts";
import type { SimulationSource } from "../runner/simulation-source.ts";

export interface CoverageCounts {
  readonly covered: number;
  readonly total: number;
  /** Percent covered, one decimal (100 when there is nothing to cover). */
  readonly pct: number;
}

export interface FileCoverageSummary {
  /** Relative to the project root. */
  readonly file: string;
  readonly lines: CoverageCounts;
  readonly branches: CoverageCounts;
  readonly functions: CoverageCounts;
}

/** A simulation's code coverage in the JSON report (`simulations[].coverage`). */
export interface CoverageEntry {
  readonly lines: CoverageCounts | null;
  readonly branches: CoverageCounts | null;
  readonly functions: CoverageCounts | null;
  /** V8 function and block ranges reached (what the plateau signal counts). */
  readonly blocks: CoverageCounts;
  /** Files by line coverage, lowest first (empty when the sources were not available, e.g. after merge). */
  readonly files: readonly FileCoverageSummary[];
  /** The block coverage itself, by file relative to the project root: what `moonpool merge` unions. */
  readonly data: BlockCoverage;
}

function counts(covered: number, total: number): CoverageCounts {
  return { covered, total, pct: total === 0 ? 100 : Math.floor((covered / total) * 1000) / 10 };
}

/** Ranges for v8-to-istanbul: everything reached, then functions and blocks, then what never ran. */
function v8Functions(file: FileBlockCoverage, length: number): Profiler.FunctionCoverage[] {
  const range = (startOffset: number, endOffset: number, count: number) => ({ startOffset, endOffset, count });
  const out: Profiler.FunctionCoverage[] = [
    { functionName: "", isBlockCoverage: false, ranges: [range(0, length, 1)] },
  ];
  for (const f of file.functions) {
    // The script's own top level is not a function of the report.
    if (f.name === "" && f.start === 0 && f.end >= length) continue;
    out.push({
      functionName: f.name === "" ? "(anonymous)" : f.name,
      isBlockCoverage: false,
      ranges: [range(f.start, f.end, isCovered(file, f.start) ? 1 : 0)],
    });
  }
  const blocks: Profiler.CoverageRange[] = [];
  for (let i = 0; i < file.blocks.length; i += 2)
    blocks.push(range(file.blocks[i]!, file.blocks[i + 1]!, isCovered(file, file.blocks[i]!) ? 1 : 0));
  if (blocks.length > 0) out.push({ functionName: "", isBlockCoverage: true, ranges: blocks });
  const unreached: Profiler.CoverageRange[] = [];
  let from = 0;
  for (let i = 0; i < file.covered.length; i += 2) {
    if (file.covered[i]! > from) unreached.push(range(from, file.covered[i]!, 0));
    from = file.covered[i + 1]!;
  }
  if (from < length) unreached.push(range(from, length, 0));
  if (unreached.length > 0) out.push({ functionName: "", isBlockCoverage: false, ranges: unreached });
  return out;
}

/** The istanbul coverage of the original sources; a script without source is left out. */
export async function istanbulCoverage(
  data: BlockCoverage,
  sources: Readonly<Record<string, string | null>>,
): Promise<CoverageMap> {
  const map = libCoverage.createCoverageMap({});
  for (const [url, file] of Object.entries(data)) {
    const source = sources[url];
    if (source == null) continue;
    const converter = v8ToIstanbul(fileURLToPath(url), 0, { source });
    await converter.load();
    converter.applyCoverage(v8Functions(file, source.length));
    map.merge(converter.toIstanbul());
  }
  return map;
}

/**
 * Asks a worker for the generated sources of the covered scripts (they exist only in the workers).
 * Use a worker that runs no more seeds: turning the debugger on and off drops V8's block counters.
 */
export async function coverageSources(
  pool: WorkerPool,
  source: SimulationSource,
  rootDir: string,
  data: BlockCoverage,
): Promise<Record<string, string | null>> {
  const outcome = await pool.run({ kind: "coverageSources", source, coverageRoot: rootDir, urls: Object.keys(data) });
  return outcome.kind === "done" ? outcome.outcome : {};
}

/** `data` keyed by relative path; `map` null when the sources are not at hand (a merge of shards). */
export function coverageEntry(data: BlockCoverage, map: CoverageMap | null, rootDir: string): CoverageEntry {
  const totals = blockCoverageTotals(data);
  const blocks = counts(totals.blocksCovered, totals.blocksTotal);
  if (map === null) return { lines: null, branches: null, functions: null, blocks, files: [], data };
  const files = map.files().map((file) => {
    const s = map.fileCoverageFor(file).toSummary();
    return {
      file: path.relative(rootDir, file),
      lines: counts(s.lines.covered, s.lines.total),
      branches: counts(s.branches.covered, s.branches.total),
      functions: counts(s.functions.covered, s.functions.total),
    };
  });
  files.sort((a, b) => a.lines.pct - b.lines.pct || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const all = map.getCoverageSummary();
  return {
    lines: counts(all.lines.covered, all.lines.total),
    branches: counts(all.branches.covered, all.branches.total),
    functions: counts(all.functions.covered, all.functions.total),
    blocks,
    files,
    data,
  };
}

/**
 * The coverage of shards merged: their block coverage united (the same as one whole run's). Line
 * and branch figures need the generated sources, which only the workers had: they are null, and
 * each shard's lcov.info holds its lines.
 */
export function mergeCoverageEntries(entries: readonly CoverageEntry[]): CoverageEntry {
  return coverageEntry(
    entries.reduce<BlockCoverage>((all, e) => unionBlockCoverage(all, e.data), EMPTY_BLOCK_COVERAGE),
    null,
    "",
  );
}

/** Keys by file path relative to the project root (`/`-separated), so reports of two machines merge. */
function relativeKeys(data: BlockCoverage, rootDir: string): BlockCoverage {
  const out: Record<string, FileBlockCoverage> = {};
  for (const [url, file] of Object.entries(data))
    out[path.relative(rootDir, fileURLToPath(url)).split(path.sep).join("/")] = file;
  return out;
}

/** Writes `lcov.info` and the HTML view into `dir`; returns the files written. */
export function writeCoverageReports(map: CoverageMap, dir: string, rootDir: string): string[] {
  const context = libReport.createContext({ dir, coverageMap: map, defaultSummarizer: "nested" });
  reports.create("lcovonly", { file: "lcov.info", projectRoot: rootDir }).execute(context);
  reports.create("html", { subdir: "html" }).execute(context);
  return [path.join(dir, "lcov.info"), path.join(dir, "html", "index.html")];
}

/**
 * The code coverage of one `moonpool run`: each simulation's entry, and one combined lcov/HTML
 * report. The sources come from a worker of its own, started on first use (see `coverageSources`).
 */
export class CampaignCoverage {
  private readonly combined = libCoverage.createCoverageMap({});
  private pool: WorkerPool | null = null;

  constructor(private readonly rootDir: string) {}

  async add(source: SimulationSource, data: BlockCoverage): Promise<CoverageEntry> {
    this.pool ??= new WorkerPool(1);
    const map = await istanbulCoverage(data, await coverageSources(this.pool, source, this.rootDir, data));
    this.combined.merge(map);
    return coverageEntry(relativeKeys(data, this.rootDir), map, this.rootDir);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  /** Writes the reports into `dir` (nothing when no user code ran); returns the files written. */
  write(dir: string): string[] {
    return this.combined.files().length === 0 ? [] : writeCoverageReports(this.combined, dir, this.rootDir);
  }
}
