/**
 * Which seeds a campaign runs, as a function of the seed index: debug seeds first, then
 * `deriveSeed(baseSeed, index)`. The one formula behind `SimulationBuilder.run()`,
 * `checkDeterminism()` and `moonpool run` (whose shards are blocks of these indexes).
 */
import { deriveSeed, MAX_SEED } from "../engine/rng.ts";
import { natives } from "../engine/natives.ts";
import type { IterationControl, SimulationConfig } from "./config.ts";

export type SeedPlan =
  /** Exactly these seeds (`--seed`, `--seeds`, a replay). */
  | { readonly kind: "list"; readonly seeds: readonly number[] }
  /** A fixed number of seeds from a base seed (after the simulation's debug seeds). */
  | {
      readonly kind: "fixed";
      readonly baseSeed: number;
      readonly debugSeeds: readonly number[];
      readonly count: number;
    }
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

/** Seed indexes `[start, end)`. */
export interface IndexRange {
  readonly start: number;
  readonly end: number;
}

/** The number of seeds the plan runs, or at most runs (until-stable). */
export function planSize(plan: SeedPlan): number {
  return plan.kind === "list" ? plan.seeds.length : plan.kind === "fixed" ? plan.count : plan.maxSeeds;
}

/** The seed at campaign position `index` (0-based, below `planSize(plan)`). */
export function seedAt(plan: SeedPlan, index: number): number {
  const seed =
    plan.kind === "list"
      ? plan.seeds[index]
      : index < plan.debugSeeds.length
        ? plan.debugSeeds[index]
        : deriveSeed(plan.baseSeed, index);
  if (seed === undefined) throw new RangeError(`seed index ${index} is outside the plan's ${planSize(plan)} seeds`);
  return seed;
}

/** The default base seed: the wall clock, printed by the CLI so that a run can be repeated. */
export function wallClockBaseSeed(): number {
  return Math.floor(natives.dateNow() * 1000 + natives.performanceNow() * 1000) % MAX_SEED;
}

/** The plan of an iteration control, from `baseSeed` after `debugSeeds`. */
export function planOfControl(control: IterationControl, baseSeed: number, debugSeeds: readonly number[]): SeedPlan {
  if (control.kind === "fixed") return { kind: "fixed", baseSeed, debugSeeds, count: control.iterations };
  const { quietSeeds, maxSeeds } = control;
  const minSeeds = control.minSeeds ?? 0;
  return { kind: "untilStable", baseSeed, debugSeeds, quietSeeds, maxSeeds, ...(minSeeds > 0 ? { minSeeds } : {}) };
}

/** What a configuration runs by itself: its iteration control, debug seeds and base seed (default: the wall clock). */
export function configSeedPlan(
  config: SimulationConfig,
  baseSeed: number = config.baseSeed ?? wallClockBaseSeed(),
): SeedPlan {
  return planOfControl(config.iteration, baseSeed, config.debugSeeds);
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

/** The seeds `checkDeterminism` runs: from base seed 0 by default; an until-stable campaign checks its debug seeds (at least one seed). */
export function seedsForCheck(config: SimulationConfig, replaySeed: number | null): number[] {
  if (replaySeed !== null) return [replaySeed];
  const plan = configSeedPlan(config, config.baseSeed ?? 0);
  const count = plan.kind === "fixed" ? plan.count : Math.max(config.debugSeeds.length, 1);
  return Array.from({ length: count }, (_, i) => seedAt(plan, i));
}
