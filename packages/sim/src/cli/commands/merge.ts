/**
 * `moonpool merge <report.json...>`: one report from the shards' reports. Writes the merged JSON
 * to `--output` (default: stdout) and optionally JUnit; exits 1 when the merged campaign failed.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { colorsFor } from "../colors.ts";
import { EXIT_FAILED, EXIT_PASSED } from "../errors.ts";
import type { CliIO } from "../io.ts";
import { mergeRunReports } from "../merge-reports.ts";
import { renderJUnit } from "../reporters/junit.ts";
import { statusLine } from "../reporters/text.ts";
import { readRunReport, stringifyRunReport, writeRunReport } from "../run-report.ts";

export interface MergeFlags {
  readonly output?: string;
  readonly junit?: string;
}

export async function mergeCommand(files: readonly string[], flags: MergeFlags, io: CliIO): Promise<number> {
  const inputs = await Promise.all(files.map(async (f) => ({ path: f, file: await readRunReport(path.resolve(io.cwd, f)) })));
  const merged = mergeRunReports(inputs);
  if (flags.output === undefined) io.stdout.write(stringifyRunReport(merged));
  else await writeRunReport(merged, path.resolve(io.cwd, flags.output));
  if (flags.junit !== undefined) await writeFile(path.resolve(io.cwd, flags.junit), renderJUnit(merged));
  const c = colorsFor(io.stderr);
  for (const entry of merged.simulations) {
    io.stderr.write(statusLine(entry, c) + "\n");
    for (const f of entry.failures) io.stderr.write(`    seed ${f.seed}: ${f.message}\n  replay: ${f.replayCommand}\n`);
  }
  io.stderr.write(`merged ${files.length} report${files.length === 1 ? "" : "s"}${flags.output !== undefined ? ` into ${flags.output}` : ""}\n`);
  return merged.simulations.some((s) => s.status === "failed") ? EXIT_FAILED : EXIT_PASSED;
}
