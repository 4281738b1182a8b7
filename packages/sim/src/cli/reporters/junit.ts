/**
 * JUnit XML for CI systems: one test case per passing simulation; a failing simulation has one
 * test case per group of seeds failing the same way, whose <failure> gives the earliest seed's
 * source location, recipe and replay command and the command rerunning the others.
 * Times are wall-clock seconds.
 */
import { groupFailures, plural, type FailureGroup } from "../../runner/failure-groups.ts";
import { SimulationReport } from "../../runner/report.ts";
import { codeFrame, formatLocation } from "../../runner/source-location.ts";
import { replayCommand, rerunCommand, type ReplayCommandContext } from "../replay-command.ts";
import { failureCounts, type RunReportFile, type SimulationEntry } from "../run-report.ts";

/** Escapes text for XML content and attribute values, dropping characters XML 1.0 forbids. */
export function escapeXml(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is removed.
      .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
  );
}

function seconds(ms: unknown): string {
  return (typeof ms === "number" && Number.isFinite(ms) ? ms / 1000 : 0).toFixed(3);
}

/** Failures of the simulation as a whole (not tied to one failing seed). */
function campaignFailureLines(entry: SimulationEntry, report: SimulationReport): string[] {
  const lines: string[] = [];
  if (report.failedRuns === 0) for (const v of report.assertionViolations) lines.push(`assertion violated: ${v}`);
  if (entry.expectFailure === true && report.failedRuns === 0)
    lines.push("expected to fail (expectFailure: true), but no seed failed");
  for (const v of report.coverageViolations) lines.push(`coverage gap: ${v}`);
  for (const a of entry.neverEvaluated ?? [])
    lines.push(`never evaluated: [${a.kind ?? "always"}] "${a.message}" (${a.where})`);
  if (report.convergenceTimeout) lines.push("until-stable hit its seed cap without saturating");
  return lines;
}

function groupText(entry: SimulationEntry, group: FailureGroup, context: ReplayCommandContext): string {
  const first = group.timelines[0]!;
  const f = first.failure;
  const lines = [
    `seed ${first.seed} (#${first.index}) at ${f.timeMs.toFixed(3)} ms: ${f.message}${f.actor !== undefined ? ` (actor ${f.actor})` : ""}`,
  ];
  if (first.location !== null) {
    lines.push(`  at ${formatLocation(first.location)}`);
    for (const line of codeFrame(first.location)) lines.push(`    ${line}`);
  }
  lines.push(`  recipe: ${first.recipe === "" ? "(the root timeline)" : `"${first.recipe}"`}`);
  if (f.notReplaying !== undefined) lines.push(...f.notReplaying.split("\n").map((l) => `  ${l}`));
  else lines.push(`  replay: ${replayCommand(context, entry.name, first.seed, first.recipe)}`);
  const others = group.timelines.slice(1).map((t) => t.seed);
  if (others.length > 0)
    lines.push(`  ${plural(others.length, "other seed")}: ${rerunCommand(context, entry.name, others)}`);
  return lines.join("\n");
}

function testCaseXml(
  classname: string,
  name: string,
  timeMs: unknown,
  summary: string,
  failure: { message: string; text: string; type?: string } | null,
): string {
  const open = `    <testcase classname="${escapeXml(classname)}" name="${escapeXml(name)}" time="${seconds(timeMs)}">`;
  const out = `      <system-out>${escapeXml(summary)}</system-out>`;
  if (failure === null) return `${open}\n${out}\n    </testcase>`;
  const xml = `      <failure message="${escapeXml(failure.message)}" type="${failure.type ?? "SimulationFailed"}">${escapeXml(failure.text)}</failure>`;
  return `${open}\n${xml}\n${out}\n    </testcase>`;
}

/**
 * A passing simulation is one test case; a failing one has a test case per group of failing
 * seeds (per violated property) and one for campaign-level failures (timeout, coverage).
 */
function testCases(entry: SimulationEntry, context: ReplayCommandContext): string[] {
  const r = entry.report;
  const summary = `${plural(r.iterations, "seed")}, ${r.successfulRuns} passed, ${r.failedRuns} failed${entry.stoppedBy !== null ? ` (stopped: ${entry.stoppedBy})` : ""}`;
  if (entry.status === "passed") return [testCaseXml(entry.file, entry.name, r.totalWallTimeMs, summary, null)];
  const report = SimulationReport.fromJSON(r);
  const cases: string[] = [];
  for (const group of groupFailures(report)) {
    const message = `${group.title}: ${plural(group.timelines.length, "seed")} of ${r.iterations}`;
    cases.push(
      testCaseXml(entry.file, `${entry.name} › ${group.title}`, 0, summary, {
        message,
        text: groupText(entry, group, context),
        // CI tools show the type: a system that never converged is not a safety violation.
        ...(group.timelines[0]!.failure.kind === "liveness" ? { type: "LivenessFailure" } : {}),
      }),
    );
  }
  const campaign = campaignFailureLines(entry, report);
  if (campaign.length > 0 || cases.length === 0) {
    cases.push(
      testCaseXml(entry.file, entry.name, r.totalWallTimeMs, summary, {
        message: failureMessage(entry),
        text: campaign.join("\n"),
      }),
    );
  }
  return cases;
}

function failureMessage(entry: SimulationEntry): string {
  const r = entry.report;
  if (entry.expectFailure === true && r.failedRuns === 0) return "expected to fail, but every seed passed";
  const { lost, own } = failureCounts(r.seeds);
  if (entry.expectFailure === true && lost > 0)
    return `expected to fail, but ${plural(lost, "seed")} hung (no engine step for --hang-timeout) or crashed its worker (${own} failed on its own)`;
  if (r.failedRuns > 0) return `${r.failedRuns} of ${plural(r.iterations, "seed")} failed`;
  const violations = (r.assertionViolations as string[]).length;
  if (violations > 0) return `${plural(violations, "safety assertion")} violated`;
  return "coverage requirements not met (--strict-coverage)";
}

export function renderJUnit(file: RunReportFile, context: ReplayCommandContext = { configArg: null }): string {
  const cases = file.simulations.map((entry) => testCases(entry, context));
  for (const failure of file.loadFailures ?? []) {
    const text = `${failure.file} failed to load, its simulations did not run: ${failure.message}`;
    cases.push([
      testCaseXml(failure.file, `${failure.file} (load)`, 0, "", {
        message: "the simulation file failed to load",
        text,
      }),
    ]);
  }
  const tests = cases.reduce((n, c) => n + c.length, 0);
  const failures = cases.reduce((n, c) => n + c.filter((x) => x.includes("<failure ")).length, 0);
  const time = seconds(file.simulations.reduce((t, s) => t + (Number(s.report.totalWallTimeMs) || 0), 0));
  const counts = `tests="${tests}" failures="${failures}" errors="0" skipped="0" time="${time}"`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="moonpool" ${counts}>`,
    `  <testsuite name="moonpool" ${counts}>`,
    ...cases.flat(),
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}
