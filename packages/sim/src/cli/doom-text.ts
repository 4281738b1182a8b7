/**
 * How `moonpool explain` prints a point of no return: the curve as one bar per cut point (the
 * failure probability filled, its 95 % interval shaded), the verdict, and the first events of the
 * doomed window; or the same as JSON. Nothing printed depends on wall time, so the same budget
 * prints the same text.
 */
import type { DoomConflict, DoomCutPoint } from "../runner/doom.ts";
import type { ExplainResult } from "../runner/explain.ts";
import type { Colors } from "./colors.ts";
import { escapeTerminal } from "./terminal-text.ts";

const BAR_WIDTH = 24;

function ms(us: number): string {
  return `${(us / 1000).toFixed(3)} ms`;
}

/** `█` up to the measured probability, `░` on to the interval's upper end, `·` beyond. */
export function doomBar(failures: number, runs: number, high: number): string {
  const filled = runs === 0 ? 0 : Math.round((failures / runs) * BAR_WIDTH);
  const shaded = Math.max(filled, Math.round(high * BAR_WIDTH));
  return "█".repeat(filled) + "░".repeat(shaded - filled) + "·".repeat(BAR_WIDTH - shaded);
}

function fieldText(fields: Readonly<Record<string, string | number | boolean>>): string {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : String(v)}`)
    .join(" ");
}

/** Conflicting pairs printed one a line at most; `--json` lists all of them. */
const MAX_CONFLICT_LINES = 6;

function count(p: { readonly failures: number; readonly runs: number }): string {
  return `${p.failures}/${p.runs}`;
}

function interval(p: { readonly low: number; readonly high: number }): string {
  return `[${p.low.toFixed(2)}, ${p.high.toFixed(2)}]`;
}

/**
 * The pairs of cut points where the curve falls beyond its confidence, each with the share of the
 * earlier point's failures that came before the later point (failures the original run escaped).
 */
export function conflictLines(points: readonly DoomCutPoint[], conflicts: readonly DoomConflict[]): string[] {
  if (conflicts.length === 0) return [];
  const at = new Map(points.map((p) => [p.atUs, p]));
  const pairs = conflicts.length === 1 ? "1 pair" : `${conflicts.length} pairs`;
  const lines = [
    `not monotone within its confidence at ${pairs} of cut points: the chance of failing given the run so far can fall as well as rise along one run`,
  ];
  for (const conflict of conflicts.slice(0, MAX_CONFLICT_LINES)) {
    const earlier = at.get(conflict.earlierUs)!;
    const later = at.get(conflict.laterUs)!;
    const head = `  ${ms(conflict.earlierUs)} (${count(earlier)}) above ${ms(conflict.laterUs)} (${count(later)}): `;
    const escaped = `${conflict.escaped} of its ${earlier.failures} failures came before ${ms(conflict.laterUs)}, which the original run reached without failing`;
    const rest = `${count(conflict.rest)} ${interval(conflict.rest)}`;
    lines.push(
      conflict.explainedByEscape
        ? `${head}${escaped} (it escaped them); without them ${rest}, within ${ms(conflict.laterUs)}'s interval`
        : `${head}${escaped}; without them ${rest}, still above: the original run's draws between the two made a later failure less likely, or the gap is chance at these run counts`,
    );
  }
  if (conflicts.length > MAX_CONFLICT_LINES)
    lines.push(`  and ${conflicts.length - MAX_CONFLICT_LINES} more pairs (--json lists them)`);
  return lines;
}

export function formatExplainText(simulation: string, result: ExplainResult, replay: string, c: Colors): string[] {
  const lines: string[] = [];
  const timeline = `seed ${result.seed}${result.recipe === "" ? "" : ` recipe "${result.recipe}"`}`;
  lines.push(
    `${c.bold(`explain ${simulation} ${timeline}`)}: "${escapeTerminal(result.property)}" at ${ms(result.failureUs)}`,
  );
  lines.push(
    `failure probability with the randomness changed after each cut point (${result.runsPerCut} runs each, 95 % interval):`,
  );
  const width = Math.max(...result.curve.cutPoints.map((p) => ms(p.atUs).length));
  for (const p of result.curve.cutPoints) {
    const lost = p.lost > 0 ? `, ${p.lost} lost` : "";
    const other = p.otherFailures > 0 ? `, ${p.otherFailures} failed otherwise` : "";
    const verdict =
      p.atUs === result.curve.savedUntilUs && !result.doomedFromStart
        ? "  <- last saved"
        : p.atUs === result.curve.doomedFromUs && !result.neverDoomed
          ? "  <- doomed"
          : "";
    lines.push(
      `  ${ms(p.atUs).padStart(width)}  ${doomBar(p.failures, p.runs, p.high)}  ${`${p.failures}/${p.runs}`.padStart(5)}` +
        `  [${p.low.toFixed(2)}, ${p.high.toFixed(2)}]${other}${lost}${verdict}`,
    );
  }
  if (result.doomedFromStart) {
    lines.push(
      "doomed from the start: every run failed even with all its draws changed; the seed's configuration (swarm mask, chaos draws) decides it",
    );
  } else if (result.neverDoomed) {
    lines.push(
      `saved until ${ms(result.curve.savedUntilUs)}: even the last cut point had a passing run; the failure depends on draws of its own instant`,
    );
  } else {
    lines.push(
      `saved until ${ms(result.curve.savedUntilUs)} (a run changed after it passed), doomed from ${ms(result.curve.doomedFromUs)} (every run changed after it failed)`,
    );
  }
  lines.push(...conflictLines(result.curve.cutPoints, result.conflicts));
  if (result.window.length > 0) {
    lines.push(`doomed window, the original run's events from ${ms(result.curve.savedUntilUs)}:`);
    for (const e of result.window) {
      lines.push(
        `  ${ms(e.atUs).padStart(width)}  ${escapeTerminal(e.actor)} ${escapeTerminal(e.name)} ${escapeTerminal(fieldText(e.fields))}`.trimEnd(),
      );
    }
  }
  if (result.interrupted) lines.push(c.yellow("interrupted: the curve holds the runs made so far"));
  lines.push(`${result.runs} runs; replay: ${replay}`);
  return lines;
}

/** The JSON form: the same facts, times in µs and ms. */
export function explainJson(simulation: string, result: ExplainResult, replay: string): unknown {
  return {
    simulation,
    seed: result.seed,
    recipe: result.recipe,
    property: result.property,
    message: result.message,
    failureUs: result.failureUs,
    runs: result.runs,
    runsPerCut: result.runsPerCut,
    interrupted: result.interrupted,
    doomedFromStart: result.doomedFromStart,
    neverDoomed: result.neverDoomed,
    doom: {
      cutPoints: result.curve.cutPoints.map((p) => ({
        atUs: p.atUs,
        runs: p.runs,
        failures: p.failures,
        low: p.low,
        high: p.high,
        failureTimesUs: p.failureTimesUs,
        otherFailures: p.otherFailures,
        lost: p.lost,
      })),
      savedUntilUs: result.curve.savedUntilUs,
      doomedFromUs: result.curve.doomedFromUs,
    },
    conflicts: result.conflicts.map((c) => ({
      earlierUs: c.earlierUs,
      laterUs: c.laterUs,
      escaped: c.escaped,
      rest: { failures: c.rest.failures, runs: c.rest.runs, low: c.rest.low, high: c.rest.high },
      explainedByEscape: c.explainedByEscape,
    })),
    window: result.window,
    replayCommand: replay,
  };
}
