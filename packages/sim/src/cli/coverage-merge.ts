/**
 * The code coverage of `moonpool merge`: each merged simulation's block coverage (already united
 * by `mergeRunReports`) converted with the sources its shards saved in their coverage folders,
 * through the same conversion as `moonpool run`, so the merged `lcov.info`, HTML view and figures
 * are those of the unsharded run. Without a shard's folder the figures stay null, with a warning.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import libCoverage from "istanbul-lib-coverage";
import { coverageEntry, istanbulCoverage, writeCoverageReports } from "./coverage-report.ts";
import { COVERAGE_SOURCES_FILE, readCoverageSources, type CoverageSource } from "./coverage-sources.ts";
import { ReportMergeError } from "./errors.ts";
import type { NamedReport } from "./merge-reports.ts";
import type { RunReportFile, SimulationEntry } from "./run-report.ts";

/** The coverage folder a merge writes next to its report. */
export const MERGED_COVERAGE_DIR = "coverage";

export interface MergedCoverage {
  readonly file: RunReportFile;
  /** Files written (lcov.info, the HTML view, sources.json). */
  readonly written: readonly string[];
  /** What could not be converted, and why. */
  readonly warnings: readonly string[];
}

/**
 * Fills in the line, branch and function figures of `merged` from the shards' sources and writes
 * the combined report into `<outDir>/coverage`. `rootDir` is the project root of this checkout.
 */
export async function mergeCodeCoverage(
  inputs: readonly NamedReport[],
  merged: RunReportFile,
  rootDir: string,
  outDir: string,
): Promise<MergedCoverage> {
  const warnings: string[] = [];
  const sourcesByFile = new Map<string, Promise<Readonly<Record<string, CoverageSource>>> | null>();
  const combined = libCoverage.createCoverageMap({});
  const combinedSources: Record<string, CoverageSource> = {};
  const simulations: SimulationEntry[] = [];
  for (const entry of merged.simulations) {
    const data = entry.coverage?.data;
    if (data === undefined || Object.keys(data).length === 0) {
      simulations.push(entry);
      continue;
    }
    const sources: Record<string, CoverageSource> = {};
    const origin = new Map<string, string>();
    let missing: string | null = null;
    for (const input of inputs) {
      const shard = input.file.simulations.find((s) => s.name === entry.name)?.coverage;
      if (shard === undefined || Object.keys(shard.data).length === 0) continue;
      const file =
        shard.dir === undefined ? null : path.resolve(path.dirname(input.path), shard.dir, COVERAGE_SOURCES_FILE);
      if (file === null || !existsSync(file)) {
        missing = `${input.path}: ${file ?? "no coverage folder named in the report"}`;
        continue;
      }
      if (!sourcesByFile.has(file)) sourcesByFile.set(file, readCoverageSources(file));
      for (const [name, source] of Object.entries(await sourcesByFile.get(file)!)) {
        const known = sources[name];
        if (known !== undefined && known.code !== source.code)
          throw new ReportMergeError(
            `simulation '${entry.name}': ${name} differs between ${origin.get(name)} and ${file}; ` +
              "merge shards that ran the same code",
          );
        sources[name] = source;
        origin.set(name, file);
      }
    }
    if (missing !== null) {
      warnings.push(
        `simulation '${entry.name}': no coverage sources (${missing}); line, branch and function figures ` +
          "are left out: keep each shard's coverage folder next to its report",
      );
      simulations.push(entry);
      continue;
    }
    const map = await istanbulCoverage(data, sources, rootDir);
    combined.merge(map);
    Object.assign(combinedSources, sources);
    simulations.push({ ...entry, coverage: coverageEntry(data, map, rootDir, MERGED_COVERAGE_DIR) });
  }
  let written: string[] = [];
  if (combined.files().length > 0) {
    written = await writeCoverageReports(combined, combinedSources, path.join(outDir, MERGED_COVERAGE_DIR), rootDir);
  }
  return { file: { ...merged, simulations }, written, warnings };
}
