/**
 * `moonpool merge <report.json...>`: one report from the shards' reports. Writes the merged JSON
 * to `--output` (default: report.json in the config's report folder, `-` for stdout) and
 * optionally JUnit; exits 1 when the merged campaign failed.
 */
import path from "node:path";
import { colorsFor } from "../colors.ts";
import { loadConfig } from "../config-file.ts";
import { EXIT_FAILED, EXIT_PASSED } from "../errors.ts";
import type { CliIO } from "../io.ts";
import { mergeCodeCoverage } from "../coverage-merge.ts";
import { mergeRunReports } from "../merge-reports.ts";
import { renderJUnit } from "../reporters/junit.ts";
import { writeReportFile } from "../report-files.ts";
import { escapeTerminal } from "../terminal-text.ts";
import { statusLine } from "../reporters/text.ts";
import { readRunReport, runReportPieces, writeRunReport, type RunReportFile } from "../run-report.ts";

export interface MergeFlags {
  readonly config?: string;
  readonly output?: string;
  readonly junit?: string;
}

/** The merged report on stdout in batches: like the file, it may be longer than one string can be. */
function writePieces(io: CliIO, merged: RunReportFile): void {
  let batch: string[] = [];
  let size = 0;
  for (const piece of runReportPieces(merged)) {
    batch.push(piece);
    size += piece.length;
    if (size >= 1 << 20) {
      io.stdout.write(batch.join(""));
      batch = [];
      size = 0;
    }
  }
  io.stdout.write(batch.join("") + "\n");
}

/** Relative to the working folder when inside it. */
function shortPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

export async function mergeCommand(files: readonly string[], flags: MergeFlags, io: CliIO): Promise<number> {
  const inputs = await Promise.all(
    files.map(async (f) => ({ path: f, file: await readRunReport(path.resolve(io.cwd, f)) })),
  );
  let merged = mergeRunReports(inputs);
  const hasCoverage = merged.simulations.some((s) => s.coverage !== undefined);
  // The config names the default report folder and, for code coverage, the project root.
  const fileConfig = flags.output === undefined || hasCoverage ? await loadConfig(io.cwd, flags.config) : null;
  // A merged report is megabytes of JSON: a file by default, the terminal only when asked.
  const target =
    flags.output === "-"
      ? null
      : flags.output !== undefined
        ? path.resolve(io.cwd, flags.output)
        : path.join(fileConfig!.reportDir, "report.json");
  // Code coverage is converted on this checkout, into a coverage folder next to the merged report.
  const written: string[] = [];
  if (hasCoverage) {
    const outDir = target === null ? fileConfig!.reportDir : path.dirname(target);
    const located = inputs.map((i) => ({ ...i, path: path.resolve(io.cwd, i.path) }));
    const coverage = await mergeCodeCoverage(located, merged, fileConfig!.rootDir, outDir);
    merged = coverage.file;
    written.push(...coverage.written);
    for (const warning of coverage.warnings) io.stderr.write(`warning: ${warning}\n`);
  }
  if (target === null) writePieces(io, merged);
  else await writeRunReport(merged, target);
  if (flags.junit !== undefined) await writeReportFile(path.resolve(io.cwd, flags.junit), renderJUnit(merged));
  const c = colorsFor(io.stderr);
  for (const entry of merged.simulations) {
    io.stderr.write(statusLine(entry, c) + "\n");
    for (const f of entry.failures)
      io.stderr.write(
        `    seed ${f.seed}: ${escapeTerminal(f.message)}\n  ${f.notReplaying === undefined ? `replay: ${f.replayCommand}` : f.notReplaying}\n`,
      );
  }
  for (const file of written) io.stderr.write(`wrote ${shortPath(io.cwd, file)}\n`);
  const into = target === null ? "" : ` into ${shortPath(io.cwd, target)}`;
  io.stderr.write(`merged ${files.length} report${files.length === 1 ? "" : "s"}${into}\n`);
  return merged.simulations.some((s) => s.status === "failed") ? EXIT_FAILED : EXIT_PASSED;
}
