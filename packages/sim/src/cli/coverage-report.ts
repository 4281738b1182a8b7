/**
 * `moonpool run --coverage`: turns the campaign's block coverage (offsets into the scripts the
 * workers ran) into line, branch and function coverage of the original sources through their
 * source maps (v8-to-istanbul), writes `lcov.info` and an HTML view (istanbul-reports) under the
 * report folder, and summarises it per file for the text and JSON reports.
 */
import path from "node:path";
import { ensureDir } from "./report-files.ts";
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
import {
  absoluteMap,
  portableSource,
  writeCoverageSources,
  type CoverageSource,
  type CoverageSources,
} from "./coverage-sources.ts";
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
  /**
   * The folder of `lcov.info`, `html/index.html` and `sources.json`, relative to the report's
   * folder; absent when no user code ran or the figures could not be computed.
   */
  readonly dir?: string;
}

function counts(covered: number, total: number): CoverageCounts {
  return { covered, total, pct: total === 0 ? 100 : Math.floor((covered / total) * 1000) / 10 };
}

/**
 * esbuild's `__name` helper (tsx keeps function names with it): generated code that is no function
 * of the user's source, so it is left out of the function list.
 */
const NAME_HELPER = /^\(target, ?value\) ?=> ?__defProp\(target, ?"name"/;

/** Ranges for v8-to-istanbul: everything reached, then functions and blocks, then what never ran. */
function v8Functions(file: FileBlockCoverage, code: string): Profiler.FunctionCoverage[] {
  const length = code.length;
  const range = (startOffset: number, endOffset: number, count: number) => ({ startOffset, endOffset, count });
  const out: Profiler.FunctionCoverage[] = [
    { functionName: "", isBlockCoverage: false, ranges: [range(0, length, 1)] },
  ];
  for (const f of file.functions) {
    // The script's own top level is not a function of the report.
    if (f.name === "" && f.start === 0 && f.end >= length) continue;
    if (f.name === "__name" && NAME_HELPER.test(code.slice(f.start, f.end))) continue;
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

/**
 * The istanbul coverage of the original sources, from block coverage and sources keyed by file
 * relative to `rootDir` (the originals are read there); a file without its source is left out.
 * The whole run and `moonpool merge` both convert through here, so they write the same lcov.
 */
export async function istanbulCoverage(
  data: BlockCoverage,
  sources: CoverageSources,
  rootDir: string,
): Promise<CoverageMap> {
  const map = libCoverage.createCoverageMap({});
  for (const [file, coverage] of Object.entries(data)) {
    const source = sources[file];
    if (source === undefined) continue;
    // Without `originalSource` v8-to-istanbul reads the original from the map (its types ask for one).
    const input = (
      source.map === null
        ? { source: source.code }
        : { source: source.code, sourceMap: { sourcemap: absoluteMap(source.map, rootDir) } }
    ) as Parameters<typeof v8ToIstanbul>[2];
    const converter = v8ToIstanbul(path.resolve(rootDir, file), 0, input);
    await converter.load();
    converter.applyCoverage(v8Functions(coverage, source.code));
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

/**
 * `data` keyed by relative path; `map` null when the sources are not at hand (a merge of shards
 * without their coverage folders); `dir` is where lcov.info, the HTML view and sources.json are.
 */
export function coverageEntry(
  data: BlockCoverage,
  map: CoverageMap | null,
  rootDir: string,
  dir: string | null,
): CoverageEntry {
  const totals = blockCoverageTotals(data);
  const blocks = counts(totals.blocksCovered, totals.blocksTotal);
  const where = dir === null || Object.keys(data).length === 0 ? {} : { dir };
  if (map === null) return { lines: null, branches: null, functions: null, blocks, files: [], data, ...where };
  const files = map.files().map((file) => {
    const s = map.fileCoverageFor(file).toSummary();
    return {
      file: path.relative(rootDir, file).split(path.sep).join("/"),
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
    ...where,
  };
}

/**
 * The block coverage of shards merged: united, the same as one whole run's. The line, branch and
 * function figures come from `mergeCodeCoverage`, which reads the shards' sources.
 */
export function mergeCoverageEntries(entries: readonly CoverageEntry[]): CoverageEntry {
  return coverageEntry(
    entries.reduce<BlockCoverage>((all, e) => unionBlockCoverage(all, e.data), EMPTY_BLOCK_COVERAGE),
    null,
    "",
    null,
  );
}

/** Keys by file path relative to the project root (`/`-separated), so reports of two machines merge. */
function relativeKeys<T>(byUrl: Readonly<Record<string, T>>, rootDir: string): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [url, value] of Object.entries(byUrl))
    out[path.relative(rootDir, fileURLToPath(url)).split(path.sep).join("/")] = value;
  return out;
}

/** Writes `lcov.info`, the HTML view and `sources.json` into `dir`; returns the files written. */
export async function writeCoverageReports(
  map: CoverageMap,
  sources: CoverageSources,
  dir: string,
  rootDir: string,
): Promise<string[]> {
  await ensureDir(dir);
  const context = libReport.createContext({ dir, coverageMap: map, defaultSummarizer: "nested" });
  reports.create("lcovonly", { file: "lcov.info", projectRoot: rootDir }).execute(context);
  reports.create("html", { subdir: "html" }).execute(context);
  const sourcesFile = await writeCoverageSources(dir, sources);
  return [path.join(dir, "lcov.info"), path.join(dir, "html", "index.html"), sourcesFile];
}

/**
 * The code coverage of one `moonpool run`: each simulation's entry, and one combined lcov/HTML
 * report in `dirName` under the report folder. The sources come from a worker of its own, started
 * on first use (see `coverageSources`).
 */
export class CampaignCoverage {
  private readonly combined = libCoverage.createCoverageMap({});
  private readonly sources: Record<string, CoverageSource> = {};
  private pool: WorkerPool | null = null;

  constructor(
    private readonly rootDir: string,
    readonly dirName: string,
  ) {}

  async add(source: SimulationSource, byUrl: BlockCoverage): Promise<CoverageEntry> {
    this.pool ??= new WorkerPool(1);
    const data = relativeKeys(byUrl, this.rootDir);
    const generated = relativeKeys(await coverageSources(this.pool, source, this.rootDir, byUrl), this.rootDir);
    for (const [file, code] of Object.entries(generated)) {
      if (code !== null) this.sources[file] ??= portableSource(code, path.resolve(this.rootDir, file), this.rootDir);
    }
    const map = await istanbulCoverage(data, this.sources, this.rootDir);
    this.combined.merge(map);
    return coverageEntry(data, map, this.rootDir, this.dirName);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  /** Writes the reports into `outDir/dirName` (nothing when no user code ran); returns the files written. */
  async write(outDir: string): Promise<string[]> {
    if (this.combined.files().length === 0) return [];
    return writeCoverageReports(this.combined, this.sources, path.join(outDir, this.dirName), this.rootDir);
  }
}
