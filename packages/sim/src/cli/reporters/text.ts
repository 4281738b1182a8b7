/** The human summary of `moonpool run`: each simulation's report, then one line per simulation. */
import { formatPretty, formatText, formatDuration } from "../../runner/report-format.ts";
import type { SimulationReport } from "../../runner/report.ts";
import type { Colors } from "../colors.ts";
import { plural } from "../../runner/failure-groups.ts";
import { replayHintFor, rerunCommand, type ReplayCommandContext } from "../replay-command.ts";
import { failureCounts, type SimulationEntry } from "../run-report.ts";
import type { CoverageCounts, CoverageEntry } from "../coverage-report.ts";

/** Passing seeds listed per report; the JSON report has all of them. */
export const TEXT_SEED_LINES_MAX = 20;

export function renderSimulationText(
  report: SimulationReport,
  entry: SimulationEntry,
  context: ReplayCommandContext,
  colour: boolean,
): string {
  const options = {
    replayHint: replayHintFor(context, entry.name),
    rerunHint: (seeds: readonly number[]) => `rerun: ${rerunCommand(context, entry.name, seeds)}`,
    seedLinesMax: TEXT_SEED_LINES_MAX,
    unreached: (entry.neverEvaluated ?? []).map((a) => ({ ...a, kind: a.kind ?? "always" })),
  };
  const body = colour ? formatPretty(report, options) : formatText(report, options);
  const expected = entry.expectFailure === true ? " — expected to fail (expectFailure: true)" : "";
  const lines = [`${entry.name} (${entry.file})${expected}`, body.trimEnd()];
  if (entry.neverEvaluated !== undefined) {
    lines.push(
      `--- Never Evaluated: ${plural(entry.neverEvaluated.length, "declared assertion")} no seed reached (--strict-coverage fails on them) ---`,
    );
    for (const a of entry.neverEvaluated) lines.push(`- [${a.kind ?? "always"}] "${a.message}" (${a.where})`);
  }
  if (entry.coverage !== undefined) lines.push(...coverageText(entry.coverage));
  return lines.join("\n") + "\n";
}

/** Files listed under "lowest coverage" (the HTML report has every file). */
export const TEXT_COVERAGE_FILES_MAX = 5;

function coverageText(c: CoverageEntry): string[] {
  const pct = (x: CoverageCounts | null, what: string) =>
    x === null ? [] : [`${x.pct}% ${what} (${x.covered}/${x.total})`];
  const parts = [
    ...pct(c.lines, "lines"),
    ...pct(c.branches, "branches"),
    ...pct(c.functions, "functions"),
    ...pct(c.blocks, "V8 blocks"),
  ];
  const out = ["--- Code Coverage (--coverage) ---", parts.join(" · ")];
  if (c.files.length > 0) out.push(`lowest coverage (of ${plural(c.files.length, "file")}):`);
  for (const f of c.files.slice(0, TEXT_COVERAGE_FILES_MAX)) {
    const lines = f.lines.pct.toFixed(1).padStart(5);
    out.push(`  ${lines}% lines  ${f.branches.pct.toFixed(1).padStart(5)}% branches  ${f.file}`);
  }
  return out;
}

export function statusLine(entry: SimulationEntry, c: Colors): string {
  const r = entry.report;
  const stopped = entry.stoppedBy === null ? "" : ` (stopped: ${entry.stoppedBy})`;
  const violations = (r.assertionViolations as string[]).length;
  const counts = `${plural(r.iterations, "seed")}, ${r.failedRuns} failing, ${plural(violations, "violation")}, ${formatDuration(Number(r.totalWallTimeMs) || 0)}${stopped}`;
  if (entry.expectFailure === true && r.failedRuns === 0 && entry.status === "failed") {
    return `${c.red("✗")} ${c.red(entry.name)}  expected to fail (expectFailure), but no seed failed: ${counts}`;
  }
  if (entry.expectFailure === true && entry.status === "failed" && failureCounts(r.seeds).lost > 0) {
    const lost = `${plural(failureCounts(r.seeds).lost, "seed")} hung (no engine step for --hang-timeout) or crashed its worker`;
    return `${c.red("✗")} ${c.red(entry.name)}  expected to fail (expectFailure), but ${lost}: ${counts}`;
  }
  if (entry.status === "failed") return `${c.red("✗")} ${c.red(entry.name)}  ${counts}`;
  if (entry.expectFailure === true && entry.shard !== null && r.failedRuns === 0)
    return `${c.green("✓")} ${entry.name}  no failure in this shard (expectFailure: merge judges the campaign): ${counts}`;
  if (entry.expectFailure === true)
    return `${c.green("✓")} ${entry.name}  failed as expected (expectFailure): ${counts}`;
  // An interrupted campaign did not pass: it did not run its plan.
  if (entry.stoppedBy === "interrupted") return `${c.yellow("○")} ${entry.name}  interrupted after ${counts}`;
  return `${c.green("✓")} ${entry.name}  ${counts}`;
}

export function summaryLine(
  entries: readonly SimulationEntry[],
  wallTimeMs: number,
  interrupted: boolean,
  signal = "SIGINT",
): string {
  const failed = entries.filter((e) => e.status === "failed").length;
  const cut = entries.filter((e) => e.status === "passed" && e.stoppedBy === "interrupted").length;
  const passed = entries.length - failed - cut;
  const interruptedText = interrupted ? `, ${cut} interrupted (run stopped by ${signal})` : "";
  return `Simulations: ${passed} passed, ${failed} failed${interruptedText} (${formatDuration(wallTimeMs)})`;
}
