/**
 * JUnit XML for CI systems: one test case per simulation; a failing simulation carries one
 * <failure> whose text lists every failing seed with its recipe and replay command.
 * Times are wall-clock seconds.
 */
import type { RunReportFile, SimulationEntry } from "../run-report.ts";

/** Escapes text for XML content and attribute values, dropping characters XML 1.0 forbids. */
export function escapeXml(text: string): string {
  return text
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is removed.
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function seconds(ms: unknown): string {
  return (typeof ms === "number" && Number.isFinite(ms) ? ms / 1000 : 0).toFixed(3);
}

function failureText(entry: SimulationEntry): string {
  const lines: string[] = [];
  for (const f of entry.failures) {
    lines.push(`seed ${f.seed} (seed #${f.index + 1}): ${f.message}`);
    lines.push(`  recipe: ${f.recipe === "" ? "(the root timeline)" : `"${f.recipe}"`}`);
    lines.push(`  replay: ${f.replayCommand}`);
  }
  const report = entry.report;
  for (const v of report.assertionViolations as string[]) lines.push(`assertion violated: ${v}`);
  for (const v of report.coverageViolations as string[]) lines.push(`coverage gap: ${v}`);
  if (report.convergenceTimeout === true) lines.push("until-stable hit its seed cap without saturating");
  return lines.join("\n");
}

function failureMessage(entry: SimulationEntry): string {
  const r = entry.report;
  if (entry.stoppedBy === "timeout") return `a seed exceeded --timeout after ${r.iterations} seeds`;
  if (r.failedRuns > 0) return `${r.failedRuns} of ${r.iterations} seeds failed`;
  if ((r.assertionViolations as string[]).length > 0) return `${(r.assertionViolations as string[]).length} safety assertion(s) violated`;
  return "coverage requirements not met (--strict-coverage)";
}

function testCase(entry: SimulationEntry): string {
  const r = entry.report;
  const open = `    <testcase classname="${escapeXml(entry.file)}" name="${escapeXml(entry.name)}" time="${seconds(r.totalWallTimeMs)}">`;
  const summary = `${r.iterations} seeds, ${r.successfulRuns} passed, ${r.failedRuns} failed${entry.stoppedBy !== null ? ` (stopped: ${entry.stoppedBy})` : ""}`;
  const out = `      <system-out>${escapeXml(summary)}</system-out>`;
  if (entry.status === "passed") return `${open}\n${out}\n    </testcase>`;
  const failure = `      <failure message="${escapeXml(failureMessage(entry))}" type="SimulationFailed">${escapeXml(failureText(entry))}</failure>`;
  return `${open}\n${failure}\n${out}\n    </testcase>`;
}

export function renderJUnit(file: RunReportFile): string {
  const tests = file.simulations.length;
  const failures = file.simulations.filter((s) => s.status === "failed").length;
  const time = seconds(file.simulations.reduce((t, s) => t + (Number(s.report.totalWallTimeMs) || 0), 0));
  const counts = `tests="${tests}" failures="${failures}" errors="0" skipped="0" time="${time}"`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="moonpool" ${counts}>`,
    `  <testsuite name="moonpool" ${counts}>`,
    ...file.simulations.map(testCase),
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}
