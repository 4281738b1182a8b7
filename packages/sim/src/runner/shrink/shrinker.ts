/**
 * The shrinker: from a failing timeline (seed, recipe) to a smaller one that violates the same
 * property. A greedy search over overrides (`overrides.ts`) and the recipe: each candidate is one
 * full run, kept only when the same property fails first, no other property fails that did not
 * fail originally, and it has no more injected faults and no more events than the best so far
 * (and fewer of one). The run first ends at its failure (`stop=failure`); then whole dimensions
 * (chaos window, families, sizes, processes, rates, recipe, reboots restarting sooner), then
 * delta debugging over single fault occurrences (`faults.skip`), repeated until neither changes
 * anything; then strong reductions on other draw sequences, in rounds, until a few rounds in a
 * row keep nothing or a budget runs out. A search that stalls above half the original's events or
 * faults then hunts: other whole draw sequences, each that fails the same shrunk on its own.
 * The hunt alone is unbounded, so it also stops once it stalls: it tries no further draw sequence
 * after `stallRuns(h)` runs without a smaller failure, h being the runs spent when it began.
 * Candidates come in a fixed order and the stall rule counts runs, so the same input gives the
 * same result whenever the run budget or the stall rule (not the time budget or an interrupt)
 * ends the search.
 */
import { MoonpoolError } from "@moonpool/core";
import { wallNowMs } from "../../engine/natives.ts";
import { childSeed, formatRecipe, parseRecipe, type Recipe } from "../../engine/recipe.ts";
import type { SimulationConfig } from "../config.ts";
import type { IsolatedRuns } from "./isolated-runs.ts";
import { failureProperty, measureRun, type MeasuredRun, type RunSize } from "./measure.ts";
import { stallRuns } from "./stall-rule.ts";
import {
  formatOverrides,
  NO_OVERRIDES,
  OVERRIDE_CLOCK_FAMILIES,
  OVERRIDE_NETWORK_FAMILIES,
  OVERRIDE_STORAGE_FAMILIES,
  overrideClockConfig,
  overrideNetworkConfig,
  overrideStorageConfig,
  type TimelineOverrides,
} from "./overrides.ts";

/** Shrinking a timeline that passes: there is no failure to keep. */
export class NothingToShrink extends MoonpoolError {}

export const DEFAULT_SHRINK_MAX_RUNS = 1_000;
export const DEFAULT_SHRINK_TIME_BUDGET_MS = 120_000;

export interface ShrinkOptions {
  readonly seed: number;
  /** The failing timeline's recipe (default: the root timeline). */
  readonly recipe?: string;
  /** Candidate runs at most (default 1,000), the original run included. */
  readonly maxRuns?: number;
  /** Wall-clock budget in ms (default 120 s): the search stops after the run under way. */
  readonly timeBudgetMs?: number;
  /** Aborting it stops the search after the run under way and keeps the best so far (SIGINT). */
  readonly signal?: AbortSignal;
  /** Stop hunting when no smaller failure came in the last `stallRuns` runs (default true). */
  readonly stopOnStall?: boolean;
  /** Called after every candidate run. */
  readonly onProgress?: (progress: ShrinkProgress) => void;
  /**
   * Run every candidate (the original run too) in this worker, under its time limit; a candidate
   * past the limit or whose worker fails is not kept. Without it runs are in this thread.
   */
  readonly isolate?: IsolatedRuns;
}

export interface ShrinkProgress {
  readonly runs: number;
  readonly maxRuns: number;
  /** The candidate just run, as overrides and recipe text. */
  readonly candidate: string;
  readonly kept: boolean;
  readonly best: RunSize;
  /** The smallest failure of the whole search (`best` is the current search's, a hunted run's while it is shrunk)... */
  readonly smallest: RunSize;
  /** ...and the run that found it (1: the original run). */
  readonly bestAtRun: number;
  /** While hunting: the run after which the hunt tries no other draw sequence without a smaller failure. */
  readonly stallAtRun: number | null;
  /** Why the candidate could not be measured (past the time limit of `isolate`, its worker lost). */
  readonly lost?: string;
  /** A hunted run that fails the same: it is shrunk on its own next. */
  readonly hunted?: boolean;
}

export interface ShrinkResult {
  readonly seed: number;
  /** The violated property the shrunk run keeps. */
  readonly property: string;
  /** The recipe of the shrunk run ("" for the root timeline). */
  readonly recipe: string;
  /** The overrides of the shrunk run, as text ("" when nothing could be removed). */
  readonly overrides: string;
  readonly before: RunSize;
  readonly after: RunSize;
  /** Candidate runs, the original included. */
  readonly runs: number;
  readonly wallMs: number;
  /** Why the search ended ("stalled": the hunt found no smaller failure in `stallRuns` runs). */
  readonly stoppedBy: "fixpoint" | "runs" | "time" | "interrupted" | "stalled";
  /** The run that found the shrunk run (1: nothing smaller was found). */
  readonly bestAtRun: number;
  /** With a hunt: the runs without a smaller failure after which it gives up (null without one). */
  readonly stallRuns: number | null;
  /** Candidates that ran past the time limit of `isolate` or lost their worker. */
  readonly lostRuns: number;
  /** Runs of the hunt (other whole draw sequences tried once the search stalled above half), 0 without one. */
  readonly huntRuns: number;
  /** Hunted runs that failed the same and were shrunk on their own. */
  readonly huntHits: number;
}

interface State {
  readonly overrides: TimelineOverrides;
  readonly recipe: string;
}

type Candidate = State & { readonly what: string };

function ascending(values: number[], below: number): number[] {
  return [...new Set(values.map((v) => Math.floor(v)))].filter((v) => v >= 0 && v < below).sort((a, b) => a - b);
}

/** The network, storage and clock families that inject something in `current` and `o` leaves on. */
function familiesOn(current: MeasuredRun, o: TimelineOverrides) {
  const chaos = current.result.chaos;
  const netOn = OVERRIDE_NETWORK_FAMILIES.filter(
    (f) =>
      !o.networkOff.includes(f) &&
      JSON.stringify(overrideNetworkConfig(chaos.network.config, { ...NO_OVERRIDES, networkOff: [f] })) !==
        JSON.stringify(chaos.network.config),
  );
  const diskOn = OVERRIDE_STORAGE_FAMILIES.filter(
    (f) =>
      !o.storageOff.includes(f) &&
      JSON.stringify(overrideStorageConfig(chaos.storage.config, { ...NO_OVERRIDES, storageOff: [f] })) !==
        JSON.stringify(chaos.storage.config),
  );
  const clock = chaos.clock?.config;
  const clockOn = OVERRIDE_CLOCK_FAMILIES.filter(
    (f) =>
      clock !== undefined &&
      !o.clockOff.includes(f) &&
      JSON.stringify(overrideClockConfig(clock, { ...NO_OVERRIDES, clockOff: [f] })) !== JSON.stringify(clock),
  );
  return { netOn, diskOn, clockOn };
}

/** The candidates of one pass from `s` (run as `current`), most reduction first within each dimension. */
function* candidates(config: SimulationConfig, current: MeasuredRun, s: State): Generator<Candidate> {
  const o = s.overrides;
  const chaos = current.result.chaos;
  const { netOn, diskOn, clockOn } = familiesOn(current, o);
  // Nothing after the first failure is needed: the cheapest cut, and it never loses the failure.
  if (!o.stopAtFailure) yield { ...s, overrides: { ...o, stopAtFailure: true }, what: "stop at the first failure" };
  const window = o.chaosWindowMs ?? config.chaosDurationMs;
  if (window !== null) {
    for (const w of ascending([window / 8, window / 4, window / 2, (window * 3) / 4], window)) {
      if (w >= 1) yield { ...s, overrides: { ...o, chaosWindowMs: w }, what: `chaos window ${w} ms` };
    }
  }
  if (config.faultFactory !== null && !o.injectorOff)
    yield { ...s, overrides: { ...o, injectorOff: true }, what: "fault injector off" };
  if ((chaos.attrition ?? []).length > 0 && !o.attritionOff)
    yield { ...s, overrides: { ...o, attritionOff: true }, what: "attrition off" };
  // Only families that inject something this seed are worth a run.
  if (netOn.length > 1)
    yield { ...s, overrides: { ...o, networkOff: [...o.networkOff, ...netOn] }, what: "network faults off" };
  for (const f of netOn)
    yield { ...s, overrides: { ...o, networkOff: [...o.networkOff, f] }, what: `network ${f} off` };
  if (diskOn.length > 1)
    yield { ...s, overrides: { ...o, storageOff: [...o.storageOff, ...diskOn] }, what: "storage faults off" };
  for (const f of diskOn)
    yield { ...s, overrides: { ...o, storageOff: [...o.storageOff, f] }, what: `storage ${f} off` };
  if (clockOn.length > 1)
    yield { ...s, overrides: { ...o, clockOff: [...o.clockOff, ...clockOn] }, what: "clock faults off" };
  for (const f of clockOn) yield { ...s, overrides: { ...o, clockOff: [...o.clockOff, f] }, what: `clock ${f} off` };
  for (const [name, full] of Object.entries(current.size.sizes)) {
    const now = o.sizes[name] ?? full;
    for (const v of ascending([0, 1, now / 8, now / 4, now / 2, (now * 3) / 4, now - 1], now)) {
      yield { ...s, overrides: { ...o, sizes: { ...o.sizes, [name]: v } }, what: `size ${name} ${v}` };
    }
  }
  for (const group of config.groups) {
    if (!Array.isArray(group.count) || group.locality !== undefined) continue;
    const now = o.processes[group.name] ?? group.count[1];
    for (let n = group.count[0]!; n < now; n++)
      yield {
        ...s,
        overrides: { ...o, processes: { ...o.processes, [group.name]: n } },
        what: `${n} ${group.name} processes`,
      };
  }
  if (netOn.length > 0) {
    for (const r of [0.1, 0.25, 0.5])
      yield { ...s, overrides: { ...o, networkRate: o.networkRate * r }, what: `network fault rates x${r}` };
  }
  if (diskOn.length > 0) {
    for (const r of [0.1, 0.25, 0.5])
      yield { ...s, overrides: { ...o, storageRate: o.storageRate * r }, what: `storage fault rates x${r}` };
  }
  const recipe = parseRecipe(s.recipe);
  for (let keep = 0; keep < recipe.length; keep++)
    yield { ...s, recipe: formatRecipe(recipe.slice(0, keep)), what: `first ${keep} recipe segment(s)` };
  for (let i = 0; i < recipe.length; i++) {
    const step = recipe[i]!;
    for (const count of ascending([step.count / 4, step.count / 2], step.count)) {
      const earlier = recipe.map((bp, j) => (j === i ? { ...bp, count } : bp));
      yield { ...s, recipe: formatRecipe(earlier), what: `recipe segment ${i + 1} at draw ${count}` };
    }
  }
  // Last, as it keeps every fault: a process that comes back sooner moves the rest of the run
  // earlier. The latest reboot first.
  for (const n of [...current.reboots].reverse()) {
    if (o.quickRestarts.includes(n)) continue;
    const quickRestarts = [...o.quickRestarts, n].sort((a, b) => a - b);
    yield { ...s, overrides: { ...o, quickRestarts }, what: `reboot #${n} restarts soonest` };
  }
}

/**
 * Last resort, once nothing else shrinks the run: a strong reduction that diverged from the
 * failure may still fail on another draw sequence. Its last recipe segment (one added from the
 * start for a root timeline) is reseeded a few times.
 */
function* reseedCandidates(config: SimulationConfig, seed: number, current: MeasuredRun, s: State, round: number) {
  const o = s.overrides;
  const chaos = current.result.chaos;
  const { netOn, diskOn } = familiesOn(current, o);
  const recipe = parseRecipe(s.recipe);
  // Strongest first: a run half as long and half as big, then whole surfaces off.
  const strong: Candidate[] = [];
  const window = o.chaosWindowMs ?? config.chaosDurationMs;
  const halfWindow = window !== null && window >= 2 ? Math.floor(window / 2) : null;
  const halfSizes = Object.fromEntries(
    Object.entries(current.size.sizes)
      .filter(([, n]) => n > 0)
      .map(([name, n]) => [name, Math.floor(n / 2)]),
  );
  const sizesToHalve = Object.keys(halfSizes).length > 0;
  // Sizes of 1 or 2 (clients, replicas...) are often what makes the failure possible at all.
  const largeHalved = Object.fromEntries(Object.entries(halfSizes).filter(([name]) => current.size.sizes[name]! > 2));
  if (halfWindow !== null && sizesToHalve) {
    const overrides = { ...o, chaosWindowMs: halfWindow, sizes: { ...o.sizes, ...halfSizes } };
    strong.push({ ...s, overrides, what: "chaos window and sizes halved" });
  }
  const someLarge = Object.keys(largeHalved).length;
  if (halfWindow !== null && someLarge > 0 && someLarge < Object.keys(halfSizes).length) {
    const overrides = { ...o, chaosWindowMs: halfWindow, sizes: { ...o.sizes, ...largeHalved } };
    strong.push({ ...s, overrides, what: "chaos window and sizes above 2 halved" });
  }
  const halvings = strong.length;
  // The same configuration on another draw sequence: with the run ending at its failure, one
  // that fails early is smaller.
  strong.push({ ...s, what: "same run" });
  if (halfWindow !== null)
    strong.push({ ...s, overrides: { ...o, chaosWindowMs: halfWindow }, what: "chaos window halved" });
  if (sizesToHalve)
    strong.push({ ...s, overrides: { ...o, sizes: { ...o.sizes, ...halfSizes } }, what: "sizes halved" });
  if (netOn.length > 1)
    strong.push({ ...s, overrides: { ...o, networkOff: [...o.networkOff, ...netOn] }, what: "network faults off" });
  if (diskOn.length > 0)
    strong.push({ ...s, overrides: { ...o, storageOff: [...o.storageOff, ...diskOn] }, what: "storage faults off" });
  if (config.faultFactory !== null && !o.injectorOff)
    strong.push({ ...s, overrides: { ...o, injectorOff: true }, what: "fault injector off" });
  if ((chaos.attrition ?? []).length > 0 && !o.attritionOff)
    strong.push({ ...s, overrides: { ...o, attritionOff: true }, what: "attrition off" });
  for (const f of netOn)
    strong.push({ ...s, overrides: { ...o, networkOff: [...o.networkOff, f] }, what: `network ${f} off` });
  // A root timeline reseeded from its first draw is another run: ordinals of its own faults only.
  const skipFaults = recipe.length === 0 ? [] : o.skipFaults;
  const quickRestarts = recipe.length === 0 ? [] : o.quickRestarts;
  for (const [k, c] of strong.entries()) {
    const tries = k <= halvings ? RESEEDS_OF_HALVED : RESEEDS_PER_REDUCTION;
    for (let i = 0; i < tries; i++) {
      const reseed = childSeed(seed, recipe, `shrink:${c.what}`, round * tries + i);
      yield {
        ...c,
        overrides: { ...c.overrides, skipFaults, quickRestarts },
        recipe: formatRecipe(reseeded(recipe, reseed)),
        what: `${c.what}, last segment reseeded (${round * tries + i + 1})`,
      };
    }
  }
}

/**
 * One round of delta debugging over single fault occurrences: the run's skippable faults not yet
 * skipped, cut into `chunks` chunks, each chunk skipped on its own, latest first (a skip changes
 * nothing before it, so a late one keeps most of the run).
 */
function* skipCandidates(s: State, active: readonly number[], chunks: number): Generator<Candidate> {
  const o = s.overrides;
  const size = Math.ceil(active.length / chunks);
  for (let end = active.length; end > 0; end -= size) {
    const chunk = active.slice(Math.max(0, end - size), end);
    const skipFaults = [...new Set([...o.skipFaults, ...chunk])].sort((a, b) => a - b);
    yield { ...s, overrides: { ...o, skipFaults }, what: `skip ${chunk.length} fault(s) from #${chunk[0]}` };
  }
}

/**
 * Rounds of other draw sequences tried after one that kept nothing and nothing else shrinks the
 * run: a failure that is rare on other draw sequences gets a few more chances before the search ends.
 */
const EXTRA_RESEED_ROUNDS = 3;
/** Draw sequences tried per strong reduction and round once nothing else shrinks the run... */
const RESEEDS_PER_REDUCTION = 8;
/** ...and for the run halved or as it is, worth the most. */
const RESEEDS_OF_HALVED = 16;

/** `recipe` with its last segment's seed replaced, or a root timeline reseeded from its first draw. */
function reseeded(recipe: Recipe, seed: number): Recipe {
  const last = recipe[recipe.length - 1];
  if (last === undefined) return [{ count: 0, seed, streams: "sim+schedule" }];
  return [...recipe.slice(0, -1), { ...last, seed }];
}

/**
 * Runs a hit of the hunt may spend shrinking on its own: the larger of this and an even share
 * of the run budget...
 */
const HUNT_SHRINK_MIN_RUNS = 300;
/** ...cut in this many shares. */
const HUNT_SHARES = 4;

/**
 * The hunt's `index`th candidate: `s` on another draw sequence (its last recipe segment reseeded,
 * or a root timeline reseeded from its first draw) that ends at its first failure. A run reseeded
 * from its first draw has faults of its own: the ordinals of `s` do not name them.
 */
function huntCandidate(seed: number, s: State, index: number): Candidate {
  const recipe = parseRecipe(s.recipe);
  const whole = (recipe[recipe.length - 1]?.count ?? 0) === 0;
  const o = s.overrides;
  return {
    recipe: formatRecipe(reseeded(recipe, childSeed(seed, recipe, "shrink:hunt", index))),
    overrides: {
      ...o,
      stopAtFailure: true,
      skipFaults: whole ? [] : o.skipFaults,
      quickRestarts: whole ? [] : o.quickRestarts,
    },
    what: `hunt ${index + 1}: another draw sequence`,
  };
}

/** At most half the events and half the faults of `original`: the hunt is not needed. */
function atHalf(size: RunSize, original: RunSize): boolean {
  return size.events <= original.events / 2 && size.faults <= original.faults / 2;
}

/** What a hunted and shrunk run is compared by with the best: each event and each fault is one thing to follow. */
function total(size: RunSize): number {
  return size.events + size.faults;
}

function smaller(a: RunSize, b: RunSize): boolean {
  return a.faults <= b.faults && a.events <= b.events && (a.faults < b.faults || a.events < b.events);
}

/**
 * Shrinks the failing timeline `options.seed` (+ `recipe`) of a simulation (its builder, or the
 * configuration it builds). Replay the result with
 * `builder.replayTimeline(result.seed, result.recipe, result.overrides)`.
 */
export async function shrinkTimeline(
  simulation: SimulationConfig | { build(): SimulationConfig },
  options: ShrinkOptions,
): Promise<ShrinkResult> {
  const config =
    "build" in simulation && typeof simulation.build === "function"
      ? simulation.build()
      : (simulation as SimulationConfig);
  const wallStart = wallNowMs();
  const maxRuns = options.maxRuns ?? DEFAULT_SHRINK_MAX_RUNS;
  const timeBudgetMs = options.timeBudgetMs ?? DEFAULT_SHRINK_TIME_BUDGET_MS;
  const recipe = formatRecipe(parseRecipe(options.recipe ?? ""));
  const isolate = options.isolate;
  /** A measured run, or why the run could not be measured. */
  const measure = async (recipe: string, overrides: TimelineOverrides): Promise<MeasuredRun | string> => {
    if (isolate === undefined) return measureRun(config, options.seed, recipe, overrides);
    const outcome = await isolate.run(options.seed, recipe, formatOverrides(overrides));
    return outcome.kind === "measured" ? outcome.run : outcome.message;
  };
  const first = await measure(recipe, NO_OVERRIDES);
  if (typeof first === "string") {
    throw new MoonpoolError(
      `seed ${options.seed}${recipe === "" ? "" : ` with recipe "${recipe}"`} could not be run to its end: ${first}. ` +
        "Shrinking needs the failing run to end: raise the time limit or fix the hang first",
    );
  }
  const failure = first.result.failures[0];
  if (failure === undefined) {
    throw new NothingToShrink(
      `seed ${options.seed}${recipe === "" ? "" : ` with recipe "${recipe}"`} passes: there is no failure to shrink. ` +
        "Give the seed (and recipe) of a failing timeline, as printed by moonpool run",
    );
  }
  const property = failureProperty(failure);
  const originalProperties = new Set(first.result.failures.map(failureProperty));
  let runs = 1;
  let lostRuns = 0;
  let huntRuns = 0;
  let huntHits = 0;
  let stoppedBy: ShrinkResult["stoppedBy"] = "fixpoint";
  // The smallest failure found so far in all of the search, and the run that found it.
  let overallBest = first.size;
  let bestAtRun = 1;
  let huntStartRun: number | null = null;
  const stopOnStall = options.stopOnStall !== false;
  const stallAtRun = (): number | null =>
    huntStartRun === null || !stopOnStall ? null : Math.max(bestAtRun, huntStartRun) + stallRuns(huntStartRun);
  /** Checked between hunted draw sequences only: a hit is shrunk to the end of its share. */
  const stalled = (): boolean => {
    const at = stallAtRun();
    if (at === null || runs < at) return false;
    stoppedBy = "stalled";
    return true;
  };
  const outOfBudget = (): boolean => {
    if (options.signal?.aborted === true) stoppedBy = "interrupted";
    else if (runs >= maxRuns) stoppedBy = "runs";
    else if (wallNowMs() - wallStart >= timeBudgetMs) stoppedBy = "time";
    else return false;
    return true;
  };
  /** A kept run smaller than every failure so far (a hunt's by events and faults in all, as the hunt compares) is progress. */
  const noteKept = (size: RunSize): void => {
    const better =
      smaller(size, overallBest) ||
      (total(size) < total(overallBest) && size.events <= first.size.events && size.faults <= first.size.faults);
    if (!better) return;
    overallBest = size;
    bestAtRun = runs;
  };
  /** `candidate` run, or null when it could not be measured (counted and reported as lost). */
  const runCandidate = async (candidate: Candidate, best: RunSize): Promise<MeasuredRun | null> => {
    const run = await measure(candidate.recipe, candidate.overrides);
    runs++;
    if (typeof run !== "string") return run;
    lostRuns++;
    options.onProgress?.({
      runs,
      maxRuns,
      candidate: candidate.what,
      kept: false,
      best,
      smallest: overallBest,
      stallAtRun: stallAtRun(),
      bestAtRun,
      lost: run,
    });
    return null;
  };
  /** The same property fails first, and nothing fails that did not fail in the original run. */
  const failsTheSame = (run: MeasuredRun): boolean => {
    const firstFailure = run.result.failures[0];
    return (
      firstFailure !== undefined &&
      failureProperty(firstFailure) === property &&
      run.result.failures.every((f) => originalProperties.has(failureProperty(f)))
    );
  };
  /**
   * The greedy search from `start` (run as `startRun`) until it stalls, its run limit (`runLimit`
   * runs in all) or the budget: each candidate is kept when it fails the same and is smaller.
   */
  const greedy = async (start: State, startRun: MeasuredRun, runLimit: number, label: string) => {
    let best = start;
    let bestRun = startRun;
    let bestSize = startRun.size;
    const spent = (): boolean => outOfBudget() || runs >= runLimit;
    /** Runs `candidate`; true when it becomes the new best. */
    const tryCandidate = async (candidate: Candidate): Promise<boolean> => {
      const run = await runCandidate(candidate, bestSize);
      if (run === null) return false;
      const kept = failsTheSame(run) && smaller(run.size, bestSize);
      if (kept) {
        best = { overrides: candidate.overrides, recipe: candidate.recipe };
        bestRun = run;
        bestSize = run.size;
        noteKept(run.size);
      }
      options.onProgress?.({
        runs,
        maxRuns,
        candidate: `${label}${candidate.what}`,
        kept,
        best: bestSize,
        smallest: overallBest,
        stallAtRun: stallAtRun(),
        bestAtRun,
      });
      return kept;
    };
    /** Tries `next` in order until one is kept; false when none is (or the budget ran out). */
    const firstKept = async (next: Iterable<Candidate>): Promise<boolean> => {
      for (const candidate of next) {
        if (spent()) return false;
        if (await tryCandidate(candidate)) return true;
      }
      return false;
    };
    /** Leaves out single fault occurrences (delta debugging): all, halves, quarters, ... of those left. */
    const skipFaults = async (): Promise<void> => {
      let chunks = 1;
      for (;;) {
        const active = bestRun.skippableFaults.filter((n) => !best.overrides.skipFaults.includes(n));
        if (active.length === 0) return;
        chunks = Math.min(chunks, active.length);
        if (await firstKept(skipCandidates(best, active, chunks))) chunks = Math.max(1, chunks - 1);
        else if (chunks === active.length || spent()) return;
        else chunks = Math.min(active.length, chunks * 2);
      }
    };
    // Rounds of other draw sequences tried so far (each round its own), and those in a row that
    // kept nothing; whether the skips reached their fixpoint on the current best.
    let reseedRounds = 0;
    let fruitless = 0;
    let skipsSettled = false;
    while (!spent()) {
      if (fruitless === 0) {
        // Whole dimensions first, cheap when they work; each pass starts from the new best.
        while (await firstKept(candidates(config, bestRun, best))) skipsSettled = false;
        // Then single fault occurrences, which keep the run's own draws (a skip moves none).
        if (!skipsSettled) {
          const start = bestSize;
          await skipFaults();
          skipsSettled = true;
          if (bestSize !== start) continue;
        }
      }
      // Strong reductions on other draw sequences: big steps when the run's own draws resist.
      if (await firstKept(reseedCandidates(config, options.seed, bestRun, best, reseedRounds++))) {
        fruitless = 0;
        skipsSettled = false;
        continue;
      }
      // Nothing else shrinks the run: a few more rounds of draw sequences, then the search ends.
      if (++fruitless > EXTRA_RESEED_ROUNDS) break;
    }
    return { state: best, run: bestRun };
  };
  let { state: best, run: bestRun } = await greedy({ overrides: NO_OVERRIDES, recipe }, first, maxRuns, "");
  // The hunt: a search stalled above half the original run's events or faults tries other whole
  // draw sequences that end at their failure; each that fails the same is shrunk on its own.
  let huntIndex = 0;
  if (!atHalf(bestRun.size, first.size)) huntStartRun = runs;
  while (!atHalf(bestRun.size, first.size) && !outOfBudget() && !stalled()) {
    const hunted = huntCandidate(options.seed, best, huntIndex++);
    const run = await runCandidate(hunted, bestRun.size);
    huntRuns++;
    if (run === null) continue;
    const hit = failsTheSame(run);
    const what = hit ? `${hunted.what}: fails the same, shrunk on its own` : hunted.what;
    options.onProgress?.({
      runs,
      maxRuns,
      candidate: what,
      kept: false,
      best: bestRun.size,
      smallest: overallBest,
      stallAtRun: stallAtRun(),
      bestAtRun,
      ...(hit ? { hunted: true } : {}),
    });
    if (!hit) continue;
    huntHits++;
    const shareEnd = Math.min(maxRuns, runs + Math.max(HUNT_SHRINK_MIN_RUNS, Math.floor(maxRuns / HUNT_SHARES)));
    const found = await greedy(hunted, run, shareEnd, `hunt hit ${huntHits}: `);
    // Fewer events and faults in all than the best, and never more of either than the original.
    const size = found.run.size;
    if (total(size) >= total(bestRun.size) || size.events > first.size.events || size.faults > first.size.faults)
      continue;
    // The hunted run is the new best: the main search goes on from it.
    ({ state: best, run: bestRun } = await greedy(found.state, found.run, maxRuns, ""));
  }
  const bestSize = bestRun.size;
  return {
    seed: options.seed,
    property,
    recipe: best.recipe,
    overrides: formatOverrides(best.overrides),
    before: first.size,
    after: bestSize,
    runs,
    lostRuns,
    wallMs: wallNowMs() - wallStart,
    stoppedBy,
    bestAtRun,
    stallRuns: huntStartRun === null ? null : stallRuns(huntStartRun),
    huntRuns,
    huntHits,
  };
}
