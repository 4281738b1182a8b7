/**
 * The shrinker: from a failing timeline (seed, recipe) to a smaller one that violates the same
 * property. A greedy search over overrides (`overrides.ts`) and the recipe: each candidate is one
 * full run, kept only when the same property fails first, no other property fails that did not
 * fail originally, and it has no more injected faults and no more events than the best so far
 * (and fewer of one). Passes repeat until one changes nothing
 * or a budget runs out. Candidates come in a fixed order, so the same input gives the same result
 * whenever the run budget (not the time budget or an interrupt) ends the search.
 */
import { MoonpoolError } from "@moonpool/core";
import { wallNowMs } from "../../engine/natives.ts";
import { childSeed, formatRecipe, parseRecipe, type Recipe } from "../../engine/recipe.ts";
import type { SimulationConfig } from "../config.ts";
import { failureProperty, measureRun, type MeasuredRun, type RunSize } from "./measure.ts";
import {
  formatOverrides,
  NO_OVERRIDES,
  OVERRIDE_NETWORK_FAMILIES,
  OVERRIDE_STORAGE_FAMILIES,
  overrideNetworkConfig,
  overrideStorageConfig,
  type TimelineOverrides,
} from "./overrides.ts";

/** Shrinking a timeline that passes: there is no failure to keep. */
export class NothingToShrink extends MoonpoolError {}

export const DEFAULT_SHRINK_MAX_RUNS = 200;
export const DEFAULT_SHRINK_TIME_BUDGET_MS = 120_000;

export interface ShrinkOptions {
  readonly seed: number;
  /** The failing timeline's recipe (default: the root timeline). */
  readonly recipe?: string;
  /** Candidate runs at most (default 200), the original run included. */
  readonly maxRuns?: number;
  /** Wall-clock budget in ms (default 120 s): the search stops after the run under way. */
  readonly timeBudgetMs?: number;
  /** Aborting it stops the search after the run under way and keeps the best so far (SIGINT). */
  readonly signal?: AbortSignal;
  /** Called after every candidate run. */
  readonly onProgress?: (progress: ShrinkProgress) => void;
}

export interface ShrinkProgress {
  readonly runs: number;
  readonly maxRuns: number;
  /** The candidate just run, as overrides and recipe text. */
  readonly candidate: string;
  readonly kept: boolean;
  readonly best: RunSize;
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
  /** Why the search ended. */
  readonly stoppedBy: "fixpoint" | "runs" | "time" | "interrupted";
}

interface State {
  readonly overrides: TimelineOverrides;
  readonly recipe: string;
}

type Candidate = State & { readonly what: string };

function ascending(values: number[], below: number): number[] {
  return [...new Set(values.map((v) => Math.floor(v)))].filter((v) => v >= 0 && v < below).sort((a, b) => a - b);
}

/** The candidates of one pass from `s`, most reduction first within each dimension. */
function* candidates(config: SimulationConfig, seed: number, first: MeasuredRun, s: State): Generator<Candidate> {
  const o = s.overrides;
  const chaos = first.result.chaos;
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
  const netOn = OVERRIDE_NETWORK_FAMILIES.filter(
    (f) =>
      !o.networkOff.includes(f) &&
      JSON.stringify(overrideNetworkConfig(chaos.network.config, { ...NO_OVERRIDES, networkOff: [f] })) !==
        JSON.stringify(chaos.network.config),
  );
  if (netOn.length > 1)
    yield { ...s, overrides: { ...o, networkOff: [...o.networkOff, ...netOn] }, what: "network faults off" };
  for (const f of netOn)
    yield { ...s, overrides: { ...o, networkOff: [...o.networkOff, f] }, what: `network ${f} off` };
  const diskOn = OVERRIDE_STORAGE_FAMILIES.filter(
    (f) =>
      !o.storageOff.includes(f) &&
      JSON.stringify(overrideStorageConfig(chaos.storage.config, { ...NO_OVERRIDES, storageOff: [f] })) !==
        JSON.stringify(chaos.storage.config),
  );
  if (diskOn.length > 1)
    yield { ...s, overrides: { ...o, storageOff: [...o.storageOff, ...diskOn] }, what: "storage faults off" };
  for (const f of diskOn)
    yield { ...s, overrides: { ...o, storageOff: [...o.storageOff, f] }, what: `storage ${f} off` };
  for (const [name, full] of Object.entries(first.size.sizes)) {
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
  // Strongest first: the reductions worth a few reseeded tries each (at the end of the pass).
  const strong: Candidate[] = [];
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
  for (let keep = 0; keep < recipe.length; keep++)
    yield { ...s, recipe: formatRecipe(recipe.slice(0, keep)), what: `first ${keep} recipe segment(s)` };
  for (let i = 0; i < recipe.length; i++) {
    const step = recipe[i]!;
    for (const count of ascending([step.count / 4, step.count / 2], step.count)) {
      const earlier = recipe.map((bp, j) => (j === i ? { ...bp, count } : bp));
      yield { ...s, recipe: formatRecipe(earlier), what: `recipe segment ${i + 1} at draw ${count}` };
    }
  }
  // Last resort: a reduction that diverged from the failure may still fail on another draw
  // sequence. Its last recipe segment (one added from the start for a root timeline) is reseeded.
  for (const c of strong) {
    for (let i = 0; i < RESEEDS_PER_REDUCTION; i++) {
      const reseed = childSeed(seed, recipe, `shrink:${c.what}`, i);
      yield {
        ...c,
        recipe: formatRecipe(reseeded(recipe, reseed)),
        what: `${c.what}, last segment reseeded (${i + 1})`,
      };
    }
  }
}

/**
 * Delta debugging over single fault occurrences: the run's skippable faults in 2, 4, 8, ...
 * chunks, each chunk skipped on its own, latest first (a skip changes nothing before it, so a late
 * one keeps most of the run). The caller restarts from the new best after each kept candidate.
 */
function* skipCandidates(s: State, skippable: readonly number[]): Generator<Candidate> {
  const o = s.overrides;
  const active = skippable.filter((n) => !o.skipFaults.includes(n));
  for (let chunks = 1; chunks <= active.length; chunks = chunks === active.length ? Infinity : chunks * 2) {
    const size = Math.ceil(active.length / Math.min(chunks, active.length));
    for (let end = active.length; end > 0; end -= size) {
      const chunk = active.slice(Math.max(0, end - size), end);
      const skipFaults = [...new Set([...o.skipFaults, ...chunk])].sort((a, b) => a - b);
      yield { ...s, overrides: { ...o, skipFaults }, what: `skip ${chunk.length} fault(s) from #${chunk[0]}` };
    }
  }
}

/** Draw sequences tried per strong reduction once nothing else shrinks the run. */
const RESEEDS_PER_REDUCTION = 8;

/** `recipe` with its last segment's seed replaced, or a root timeline reseeded from its first draw. */
function reseeded(recipe: Recipe, seed: number): Recipe {
  const last = recipe[recipe.length - 1];
  if (last === undefined) return [{ count: 0, seed, streams: "sim+schedule" }];
  return [...recipe.slice(0, -1), { ...last, seed }];
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
  const first = await measureRun(config, options.seed, recipe, NO_OVERRIDES);
  const failure = first.result.failures[0];
  if (failure === undefined) {
    throw new NothingToShrink(
      `seed ${options.seed}${recipe === "" ? "" : ` with recipe "${recipe}"`} passes: there is no failure to shrink. ` +
        "Give the seed (and recipe) of a failing timeline, as printed by moonpool run",
    );
  }
  const property = failureProperty(failure);
  const originalProperties = new Set(first.result.failures.map(failureProperty));
  let best: State = { overrides: NO_OVERRIDES, recipe };
  let bestRun = first;
  let bestSize = first.size;
  let runs = 1;
  let stoppedBy: ShrinkResult["stoppedBy"] = "fixpoint";
  const outOfBudget = (): boolean => {
    if (options.signal?.aborted === true) stoppedBy = "interrupted";
    else if (runs >= maxRuns) stoppedBy = "runs";
    else if (wallNowMs() - wallStart >= timeBudgetMs) stoppedBy = "time";
    else return false;
    return true;
  };
  /** Runs `candidate`; true when it becomes the new best. */
  const tryCandidate = async (candidate: Candidate): Promise<boolean> => {
    const run = await measureRun(config, options.seed, candidate.recipe, candidate.overrides);
    runs++;
    const firstFailure = run.result.failures[0];
    // The same property fails first, and nothing fails that did not fail in the original run.
    const kept =
      firstFailure !== undefined &&
      failureProperty(firstFailure) === property &&
      run.result.failures.every((f) => originalProperties.has(failureProperty(f))) &&
      smaller(run.size, bestSize);
    if (kept) {
      best = { overrides: candidate.overrides, recipe: candidate.recipe };
      bestRun = run;
      bestSize = run.size;
    }
    options.onProgress?.({ runs, maxRuns, candidate: candidate.what, kept, best: bestSize });
    return kept;
  };
  search: for (;;) {
    // Whole dimensions first (cheap when they work), then single fault occurrences.
    let changed = true;
    while (changed) {
      changed = false;
      for (const candidate of candidates(config, options.seed, first, best)) {
        if (outOfBudget()) break search;
        if (await tryCandidate(candidate)) {
          changed = true;
          // The next pass starts from the new best: its candidates depend on it.
          break;
        }
      }
    }
    const before = bestSize;
    for (;;) {
      const next = skipCandidates(best, bestRun.skippableFaults);
      let kept = false;
      for (const candidate of next) {
        if (outOfBudget()) break search;
        if (await tryCandidate(candidate)) {
          kept = true;
          break;
        }
      }
      if (!kept) break;
    }
    if (bestSize === before) break;
  }
  return {
    seed: options.seed,
    property,
    recipe: best.recipe,
    overrides: formatOverrides(best.overrides),
    before: first.size,
    after: bestSize,
    runs,
    wallMs: wallNowMs() - wallStart,
    stoppedBy,
  };
}
