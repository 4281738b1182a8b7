/**
 * Which seeds a campaign runs, as a function of the seed index: the same formula as
 * `Campaign.run` (debug seeds first, then `deriveSeed(baseSeed, index)`), so the CLI runs the
 * seeds the library would. Shards are blocks of indexes (see `shard.ts`).
 */
import { deriveSeed, MAX_SEED } from "../engine/rng.ts";
import { natives } from "../engine/natives.ts";
import { DEFAULT_ITERATION_CONTROL, type SimulationConfig } from "../runner/config.ts";
import type { ResolvedConfig } from "./config-file.ts";
import { DEFAULT_RUN_MIN_SEEDS } from "../runner/coverage-stop-rule.ts";
import { UsageError } from "./errors.ts";

export type SeedPlan =
  /** `--seed S` / `--seeds a,b,c`: exactly these seeds. */
  | { readonly kind: "list"; readonly seeds: readonly number[] }
  /** A fixed number of seeds from a base seed (after the simulation's debug seeds). */
  | { readonly kind: "fixed"; readonly baseSeed: number; readonly debugSeeds: readonly number[]; readonly count: number }
  /** Seeds until assertion coverage is stable, at most `maxSeeds`. */
  | {
      readonly kind: "untilStable";
      readonly baseSeed: number;
      readonly debugSeeds: readonly number[];
      readonly quietSeeds: number;
      readonly maxSeeds: number;
      /** Seeds spent before coverage may stop the campaign (absent: none). */
      readonly minSeeds?: number;
    };

/** Where the base seed came from: only a fixed one lets shards on several machines agree. */
export type BaseSeedSource = "flag" | "simulation" | "wallClock" | "none";

export interface SeedFlags {
  readonly seed?: number;
  readonly seeds?: readonly number[];
  readonly iterations?: number;
  readonly untilStable?: { readonly quietSeeds: number; readonly maxSeeds: number; readonly minSeeds?: number };
  readonly baseSeed?: number;
  /** `--quick`: the library default without the minimum budget (stops as soon as coverage is stable). */
  readonly quick?: boolean;
}

/** The number of seeds the plan runs, or at most runs (until-stable). */
export function planSize(plan: SeedPlan): number {
  return plan.kind === "list" ? plan.seeds.length : plan.kind === "fixed" ? plan.count : plan.maxSeeds;
}

export function seedAt(plan: SeedPlan, index: number): number {
  if (plan.kind === "list") return plan.seeds[index]!;
  return index < plan.debugSeeds.length ? plan.debugSeeds[index]! : deriveSeed(plan.baseSeed, index);
}

/** Same formula as the library's default (the campaign's wall clock), printed so a run can be repeated. */
function wallClockBaseSeed(): number {
  return Math.floor(natives.dateNow() * 1000 + natives.performanceNow() * 1000) % MAX_SEED;
}

/**
 * Precedence: command-line flags, then the simulation's own builder settings, then the config
 * file's defaults, then the library's default (until coverage is stable, 10 quiet seeds, at most 1,000).
 */
export function resolveSeedPlan(flags: SeedFlags, sim: SimulationConfig, file: ResolvedConfig): { plan: SeedPlan; baseSeedSource: BaseSeedSource } {
  const chosen = [flags.seed !== undefined && "--seed", flags.seeds !== undefined && "--seeds", flags.iterations !== undefined && "--iterations", flags.untilStable !== undefined && "--until-stable"].filter(Boolean);
  if (flags.quick === true) chosen.push("--quick");
  if (chosen.length > 1) throw new UsageError(`${chosen.join(" and ")} both choose the seeds: use one of --seed, --seeds, --iterations, --until-stable, --quick`);
  if (flags.seed !== undefined) return { plan: { kind: "list", seeds: [flags.seed] }, baseSeedSource: "none" };
  if (flags.seeds !== undefined) return { plan: { kind: "list", seeds: flags.seeds.slice() }, baseSeedSource: "none" };

  const baseSeedSource: BaseSeedSource = flags.baseSeed !== undefined ? "flag" : sim.baseSeed !== undefined ? "simulation" : "wallClock";
  const baseSeed = flags.baseSeed ?? sim.baseSeed ?? wallClockBaseSeed();
  const debugSeeds = sim.debugSeeds.slice();
  if (flags.iterations !== undefined) return { plan: { kind: "fixed", baseSeed, debugSeeds, count: flags.iterations }, baseSeedSource };
  if (flags.untilStable !== undefined) return { plan: { kind: "untilStable", baseSeed, debugSeeds, ...flags.untilStable }, baseSeedSource };
  // The builder keeps the very DEFAULT_ITERATION_CONTROL object until setIterations/untilCoverageStable is called.
  const simChoseIterations = sim.iteration !== DEFAULT_ITERATION_CONTROL;
  if (flags.quick === true) {
    const quick = simChoseIterations ? sim.iteration : DEFAULT_ITERATION_CONTROL;
    if (quick.kind === "fixed") {
      return { plan: { kind: "fixed", baseSeed, debugSeeds, count: quick.iterations }, baseSeedSource };
    }
    const { quietSeeds, maxSeeds } = quick;
    return { plan: { kind: "untilStable", baseSeed, debugSeeds, quietSeeds, maxSeeds }, baseSeedSource };
  }
  const control = simChoseIterations
    ? sim.iteration
    : file.iterations !== null
      ? ({ kind: "fixed", iterations: file.iterations } as const)
      : file.untilStable !== null
        ? ({ kind: "untilCoverageStable", ...file.untilStable } as const)
        : // The command's own default also spends a minimum budget: rare bugs need seeds, not a plateau.
          ({ ...DEFAULT_ITERATION_CONTROL, minSeeds: DEFAULT_RUN_MIN_SEEDS } as const);
  if (control.kind === "fixed") return { plan: { kind: "fixed", baseSeed, debugSeeds, count: control.iterations }, baseSeedSource };
  const minSeeds = control.minSeeds ?? 0;
  const { quietSeeds, maxSeeds } = control;
  const plan: SeedPlan = { kind: "untilStable", baseSeed, debugSeeds, quietSeeds, maxSeeds, ...(minSeeds > 0 ? { minSeeds } : {}) };
  return { plan, baseSeedSource };
}

/** One line: what the plan runs. */
export function describePlan(plan: SeedPlan): string {
  switch (plan.kind) {
    case "list":
      return plan.seeds.length === 1 ? `seed ${plan.seeds[0]}` : `${plan.seeds.length} listed seeds`;
    case "fixed":
      return `${plan.count} seeds from base seed ${plan.baseSeed}${plan.debugSeeds.length > 0 ? ` (after ${plan.debugSeeds.length} debug seeds)` : ""}`;
    case "untilStable": {
      const least = plan.minSeeds !== undefined ? `at least ${plan.minSeeds}, ` : "";
      return `seeds until coverage is stable for ${plan.quietSeeds} seeds (${least}at most ${plan.maxSeeds}) from base seed ${plan.baseSeed}`;
    }
  }
}
