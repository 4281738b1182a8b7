/** The human summary of `moonpool run`: each simulation's report, then one line per simulation. */
import { formatPretty, formatText, formatDuration } from "../../runner/report-format.ts";
import type { SimulationReport } from "../../runner/report.ts";
import type { Colors } from "../colors.ts";
import { replayHintFor, type ReplayCommandContext } from "../replay-command.ts";
import type { SimulationEntry } from "../run-report.ts";

/** Passing seeds listed per report; the JSON report has all of them. */
export const TEXT_SEED_LINES_MAX = 20;

export function renderSimulationText(report: SimulationReport, entry: SimulationEntry, context: ReplayCommandContext, colour: boolean): string {
  const options = { replayHint: replayHintFor(context, entry.name), seedLinesMax: TEXT_SEED_LINES_MAX };
  const body = colour ? formatPretty(report, options) : formatText(report, options);
  const lines = [`${entry.name} (${entry.file})`, body.trimEnd()];
  if (entry.timedOut !== null) {
    const t = entry.timedOut;
    lines.push(`seed ${t.seed} ran longer than --timeout (${formatDuration(t.wallTimeMs)} of wall time) and was stopped`);
    lines.push(`  replay: ${entry.failures[entry.failures.length - 1]!.replayCommand}`);
  }
  return lines.join("\n") + "\n";
}

export function statusLine(entry: SimulationEntry, c: Colors): string {
  const r = entry.report;
  const stopped = entry.stoppedBy === null ? "" : ` (stopped: ${entry.stoppedBy})`;
  const counts = `${r.iterations} seeds, ${r.failedRuns} failing, ${(r.assertionViolations as string[]).length} violations, ${formatDuration(Number(r.totalWallTimeMs) || 0)}${stopped}`;
  return entry.status === "passed" ? `${c.green("✓")} ${entry.name}  ${counts}` : `${c.red("✗")} ${c.red(entry.name)}  ${counts}`;
}

export function summaryLine(entries: readonly SimulationEntry[], wallTimeMs: number, interrupted: boolean): string {
  const failed = entries.filter((e) => e.status === "failed").length;
  return `Simulations: ${entries.length - failed} passed, ${failed} failed${interrupted ? ", interrupted" : ""} (${formatDuration(wallTimeMs)})`;
}
