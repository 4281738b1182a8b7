/**
 * The point of no return of a failing timeline: the timeline is run again many times, each time
 * with the randomness changed only after a cut point (a recipe segment that reseeds `sim` and
 * `schedule` at the draw where the cut falls), and the share of runs that still fail the same
 * property is measured at each cut. A sweep over simulated time from 0 to the failure, then a
 * refinement between the last cut that could still be saved and the first doomed one. Every
 * reseed comes from `childSeed`, and cut points and runs come in a fixed order, so the same
 * budget gives the same curve.
 */
import { MoonpoolError } from "@moonpool/core";
import { childSeed, formatRecipe, parseRecipe, type Recipe } from "../engine/recipe.ts";
import type { Breakpoint } from "../engine/rng.ts";
import type { TraceEvent } from "../world/trace-log.ts";
import { Campaign } from "./campaign.ts";
import type { SimulationConfig } from "./config.ts";
import {
  cutPoint,
  doomConflicts,
  doomCurve,
  doomedIndex,
  type DoomConflict,
  type DoomCurve,
  type TimedCutPoint,
} from "./doom.ts";
import type { SeedResult } from "./seed-result.ts";
import type { IsolatedRuns } from "./shrink/isolated-runs.ts";
import { failureProperty, measureRun } from "./shrink/measure.ts";
import { NO_OVERRIDES, withOverrides } from "./shrink/overrides.ts";

/** Explaining a timeline that passes, or a budget too small for the cut points. */
export class ExplainError extends MoonpoolError {}

export const DEFAULT_EXPLAIN_CUTS = 12;
/** Fewer cut points than this cannot show where the curve jumps. */
export const MIN_EXPLAIN_CUTS = 8;
export const DEFAULT_EXPLAIN_BUDGET = 180;
/** Re-runs per cut point at least: one run cannot tell "sometimes" from "always". */
export const MIN_RUNS_PER_CUT = 2;
/** Events of the original run the doomed window lists at least (when the run has them)... */
const WINDOW_EVENTS = 12;
/** ...and at most. */
const MAX_WINDOW_EVENTS = 40;

export interface ExplainOptions {
  readonly seed: number;
  /** The failing timeline's recipe (default: the root timeline). */
  readonly recipe?: string;
  /** Re-runs in all (default 180), split evenly over the cut points. */
  readonly budget?: number;
  /** Cut points of the sweep (default 12, at least 8); half as many again refine the jump. */
  readonly cuts?: number;
  /** Run every re-run in this worker under its hang limit (without it: in this thread). */
  readonly isolate?: IsolatedRuns;
  /** Aborting it stops after the run under way; the curve so far is returned. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: { readonly runs: number; readonly budget: number }) => void;
}

/** A cut point with where it cuts and what its runs did besides failing the same. */
export interface ExplainCut extends TimedCutPoint {
  /** Recipe segment (0: before any of the timeline's own) and draws into it where the cut falls. */
  readonly segment: number;
  readonly draws: number;
  /** Runs that failed another property first. */
  readonly otherFailures: number;
  /** Runs that hung or lost their worker (not in `runs`). */
  readonly lost: number;
}

export interface ExplainCurve extends DoomCurve {
  readonly cutPoints: readonly ExplainCut[];
}

/** One event of the original run inside the doomed window. */
export interface WindowEvent {
  readonly atUs: number;
  readonly actor: string;
  readonly name: string;
  readonly fields: Readonly<Record<string, string | number | boolean>>;
}

export interface ExplainResult {
  readonly seed: number;
  readonly recipe: string;
  /** The property the original run violates first, and its failure's message. */
  readonly property: string;
  readonly message: string;
  readonly failureUs: number;
  readonly curve: ExplainCurve;
  /** Every run failed even with all draws changed: the seed's configuration decides the failure. */
  readonly doomedFromStart: boolean;
  /** No cut point was doomed: the failure depends on draws made at its own instant. */
  readonly neverDoomed: boolean;
  /** The original run's first events from the last saved cut point on. */
  readonly window: readonly WindowEvent[];
  /**
   * The pairs of cut points where the curve falls beyond its confidence (empty when it is
   * monotone within it), each with how many of the earlier point's failures the original run
   * escaped: the failure can depend on the run so far in both directions (docs/decisions.md D54).
   */
  readonly conflicts: readonly DoomConflict[];
  readonly runs: number;
  readonly runsPerCut: number;
  readonly interrupted: boolean;
}

/** Where in the draws of the original run a cut at some time falls: the first draw at or after it. */
interface DrawMark {
  readonly timeUs: number;
  readonly segment: number;
  /** Draws of the segment made before this one. */
  readonly before: number;
}

interface Probe {
  readonly result: SeedResult;
  readonly events: readonly TraceEvent[];
  readonly marks: readonly DrawMark[];
  /** Where the run's draws ended: a cut after its last draw changes nothing. */
  readonly end: DrawMark;
}

/** The original run, ended at its failure, with where its draws fall in time and its events. */
async function probe(config: SimulationConfig, seed: number, recipe: Recipe): Promise<Probe> {
  let events: readonly TraceEvent[] = [];
  const marks: DrawMark[] = [];
  const end = { timeUs: Number.POSITIVE_INFINITY, segment: 0, before: 0 };
  const { result } = await new Campaign(withOverrides(config, { ...NO_OVERRIDES, stopAtFailure: true })).runSingleSeed(
    seed,
    {
      breakpoints: recipe,
      explore: false,
      keepLevel: "info",
      onTrace: (all) => (events = all),
      drawObserver: (session) => {
        const { engine } = session.world;
        const clock = engine.streams.clock;
        // One mark per instant is enough. The clock's count already includes a draw it counts; an
        // untagged recipe leaves `schedule` off the clock, and its draws then count nothing.
        const markFor = (counted: boolean) => () => {
          end.segment = clock.segment;
          end.before = clock.calls;
          const last = marks[marks.length - 1];
          if (last !== undefined && last.timeUs === engine.nowUs) return;
          marks.push({ timeUs: engine.nowUs, segment: clock.segment, before: clock.calls - (counted ? 1 : 0) });
        };
        engine.streams.schedule.observer = markFor(engine.streams.schedule.clock === clock);
        return markFor(true);
      },
    },
  );
  return { result, events, marks, end };
}

/** The mark of the first draw at or after `atUs` (where the run's draws ended when none). */
function markAt(marks: readonly DrawMark[], atUs: number, end: DrawMark): DrawMark {
  let lo = 0;
  let hi = marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (marks[mid]!.timeUs < atUs) lo = mid + 1;
    else hi = mid;
  }
  return marks[lo] ?? end;
}

function windowEvents(events: readonly TraceEvent[], curve: DoomCurve, failureUs: number): WindowEvent[] {
  const out: WindowEvent[] = [];
  for (const e of events) {
    const atUs = Math.round(e.timeMs * 1000);
    if (e.level === "debug" || atUs < curve.savedUntilUs || atUs > failureUs) continue;
    if (out.length >= MAX_WINDOW_EVENTS || (out.length >= WINDOW_EVENTS && atUs > curve.doomedFromUs)) break;
    const fields: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(e.fields))
      fields[k] = typeof v === "bigint" ? v.toString() : (v as string | number | boolean);
    out.push({ atUs, actor: e.source, name: e.name, fields });
  }
  return out;
}

/**
 * Explains the failing timeline `options.seed` (+ `recipe`) of a simulation (its builder, or the
 * configuration it builds): the failure probability at each cut point and the doomed window.
 */
export async function explainFailure(
  simulation: SimulationConfig | { build(): SimulationConfig },
  options: ExplainOptions,
): Promise<ExplainResult> {
  const config =
    "build" in simulation && typeof simulation.build === "function"
      ? simulation.build()
      : (simulation as SimulationConfig);
  const { seed } = options;
  const recipe = parseRecipe(options.recipe ?? "");
  const recipeText = formatRecipe(recipe);
  const cuts = options.cuts ?? DEFAULT_EXPLAIN_CUTS;
  const budget = options.budget ?? DEFAULT_EXPLAIN_BUDGET;
  if (!Number.isSafeInteger(cuts) || cuts < MIN_EXPLAIN_CUTS)
    throw new ExplainError(`cuts must be an integer of at least ${MIN_EXPLAIN_CUTS}, got ${String(cuts)}`);
  const refine = Math.floor(cuts / 2);
  const runsPerCut = Math.floor(budget / (cuts + refine));
  if (!Number.isSafeInteger(budget) || runsPerCut < MIN_RUNS_PER_CUT)
    throw new ExplainError(
      `a budget of ${String(budget)} runs gives fewer than ${MIN_RUNS_PER_CUT} runs to each of ${cuts + refine} cut points ` +
        `(${cuts} in the sweep, ${refine} refining it): give at least ${MIN_RUNS_PER_CUT * (cuts + refine)} or fewer cut points`,
    );
  const timeline = `seed ${seed}${recipeText === "" ? "" : ` with recipe "${recipeText}"`}`;
  const original = await probe(config, seed, recipe);
  const failure = original.result.failures[0];
  if (failure === undefined)
    throw new ExplainError(
      `${timeline} passes: there is no failure to explain. Give the seed (and recipe) of a failing timeline, as printed by moonpool run`,
    );
  const property = failureProperty(failure);
  const failureUs = Math.round(failure.timeMs * 1000);
  // Recipes of one form only: a timeline whose segments count sim draws alone is cut the same way.
  const tagged = recipe.length === 0 || recipe[0]!.streams !== undefined;
  const { end } = original;
  const done = new Map<string, ExplainCut>();
  let runs = 0;
  let interrupted = false;

  const measureCut = async (atUs: number): Promise<ExplainCut> => {
    const mark = markAt(original.marks, atUs, end);
    const key = `${mark.segment}:${mark.before}`;
    const known = done.get(key);
    if (known !== undefined) return { ...known, atUs };
    const failureTimesUs: number[] = [];
    let other = 0;
    let lost = 0;
    let ran = 0;
    for (let i = 0; i < runsPerCut; i++) {
      if (options.signal?.aborted === true) {
        interrupted = true;
        break;
      }
      const cut: Breakpoint = {
        count: mark.before,
        seed: childSeed(seed, recipe, `explain:${key}`, i),
        ...(tagged ? { streams: "sim+schedule" as const } : {}),
      };
      const cutRecipe = formatRecipe([...recipe.slice(0, mark.segment), cut]);
      const outcome = await runOnce(config, seed, cutRecipe, options.isolate);
      runs++;
      options.onProgress?.({ runs, budget: runsPerCut * (cuts + refine) });
      if (outcome === null) lost++;
      else ran++;
      if (outcome === null) continue;
      const same = outcome.failures.find((f) => failureProperty(f) === property);
      if (same !== undefined) failureTimesUs.push(Math.round(same.timeMs * 1000));
      else if (outcome.failures.length > 0) other++;
    }
    const result: ExplainCut = {
      ...cutPoint(atUs, ran, failureTimesUs.length),
      failureTimesUs: failureTimesUs.sort((a, b) => a - b),
      segment: mark.segment,
      draws: mark.before,
      otherFailures: other,
      lost,
    };
    if (!interrupted) done.set(key, result);
    return result;
  };

  const points: ExplainCut[] = [];
  for (let k = 0; k < cuts && !interrupted; k++)
    points.push(await measureCut(Math.round((failureUs * k) / (cuts - 1))));
  // The jump lies between the last saved cut point and the first doomed one: refine it there.
  const sweep = doomCurve(points, failureUs);
  const jumpAt = doomedIndex(sweep.cutPoints);
  if (jumpAt > 0) {
    const fromUs = sweep.savedUntilUs;
    const toUs = sweep.doomedFromUs;
    for (let k = 1; k <= refine && !interrupted && toUs - fromUs > refine; k++) {
      const atUs = fromUs + Math.round(((toUs - fromUs) * k) / (refine + 1));
      // A refining cut on a draw position already measured would repeat its runs as a new point.
      const mark = markAt(original.marks, atUs, end);
      if (!done.has(`${mark.segment}:${mark.before}`)) points.push(await measureCut(atUs));
    }
  }
  const curve = doomCurve(points, failureUs);
  const at = doomedIndex(curve.cutPoints);
  return {
    seed,
    recipe: recipeText,
    property,
    message: failure.message,
    failureUs,
    curve,
    doomedFromStart: at === 0,
    neverDoomed: at === curve.cutPoints.length,
    window: windowEvents(original.events, curve, failureUs),
    conflicts: doomConflicts(curve.cutPoints),
    runs,
    runsPerCut,
    interrupted,
  };
}

/** One re-run ended at its first failure: its result, or null when it hung or lost its worker. */
async function runOnce(
  config: SimulationConfig,
  seed: number,
  recipe: string,
  isolate: IsolatedRuns | undefined,
): Promise<SeedResult | null> {
  const stop = { ...NO_OVERRIDES, stopAtFailure: true };
  if (isolate === undefined) return (await measureRun(config, seed, recipe, stop)).result;
  const outcome = await isolate.run(seed, recipe, "stop=failure");
  return outcome.kind === "measured" ? outcome.run.result : null;
}

/** The curve in the exact shape the timeline page reads (`TimelineData.doom`). */
export function doomOf(result: ExplainResult): DoomCurve {
  return {
    cutPoints: result.curve.cutPoints.map((p) => ({
      atUs: p.atUs,
      runs: p.runs,
      failures: p.failures,
      low: p.low,
      high: p.high,
    })),
    savedUntilUs: result.curve.savedUntilUs,
    doomedFromUs: result.curve.doomedFromUs,
  };
}
