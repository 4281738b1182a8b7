/**
 * The seed plan `moonpool run` chooses from its flags, the simulation's builder settings and the
 * config file. The plan itself, and the seed at each index, are the runner's (`runner/seed-plan.ts`),
 * so the CLI runs the seeds the library would.
 */
import { DEFAULT_ITERATION_CONTROL, DEFAULT_STOP_RULE, type SimulationConfig } from "../runner/config.ts";
import type { ResolvedConfig } from "./config-file.ts";
import { planOfControl, wallClockBaseSeed, type SeedPlan } from "../runner/seed-plan.ts";
import { UsageError } from "./errors.ts";

export { describePlan, planSize, seedAt, type SeedPlan } from "../runner/seed-plan.ts";

/** Where the base seed came from: only a fixed one lets shards on several machines agree. */
export type BaseSeedSource = "flag" | "simulation" | "wallClock" | "none";

export interface SeedFlags {
  readonly seed?: number;
  readonly seeds?: readonly number[];
  readonly iterations?: number;
  readonly untilStable?: { readonly quietSeeds: number; readonly maxSeeds: number; readonly minSeeds?: number };
  /** `--budget N`: the adaptive campaign with a budget of N timelines. */
  readonly budget?: number;
  readonly baseSeed?: number;
  /** `--quick`: until coverage is stable (10 quiet seeds, at most 1,000), no minimum and no budget. */
  readonly quick?: boolean;
}

/**
 * Precedence: command-line flags, then the simulation's own builder settings, then the config
 * file's defaults, then the library's default (the adaptive campaign, `DEFAULT_CAMPAIGN_TIMELINES`).
 */
export function resolveSeedPlan(
  flags: SeedFlags,
  sim: SimulationConfig,
  file: ResolvedConfig,
): { plan: SeedPlan; baseSeedSource: BaseSeedSource } {
  const chosen = [
    flags.seed !== undefined && "--seed",
    flags.seeds !== undefined && "--seeds",
    flags.iterations !== undefined && "--iterations",
    flags.untilStable !== undefined && "--until-stable",
    flags.budget !== undefined && "--budget",
  ].filter(Boolean);
  if (flags.quick === true) chosen.push("--quick");
  if (chosen.length > 1)
    throw new UsageError(
      `${chosen.join(" and ")} both choose the seeds: use one of --seed, --seeds, --iterations, --until-stable, --budget, --quick`,
    );
  if (flags.seed !== undefined) return { plan: { kind: "list", seeds: [flags.seed] }, baseSeedSource: "none" };
  if (flags.seeds !== undefined) return { plan: { kind: "list", seeds: flags.seeds.slice() }, baseSeedSource: "none" };

  const baseSeedSource: BaseSeedSource =
    flags.baseSeed !== undefined ? "flag" : sim.baseSeed !== undefined ? "simulation" : "wallClock";
  const baseSeed = flags.baseSeed ?? sim.baseSeed ?? wallClockBaseSeed();
  const debugSeeds = sim.debugSeeds.slice();
  if (flags.iterations !== undefined)
    return { plan: { kind: "fixed", baseSeed, debugSeeds, count: flags.iterations }, baseSeedSource };
  if (flags.untilStable !== undefined)
    return { plan: { kind: "untilStable", baseSeed, debugSeeds, ...flags.untilStable }, baseSeedSource };
  if (flags.budget !== undefined)
    return { plan: { kind: "adaptive", baseSeed, debugSeeds, timelines: flags.budget }, baseSeedSource };
  // The builder keeps the very DEFAULT_ITERATION_CONTROL object until setIterations/untilCoverageStable is called.
  const simChoseIterations = sim.iteration !== DEFAULT_ITERATION_CONTROL;
  if (flags.quick === true) {
    // A simulation's own stop rule without its minimum; otherwise the plain stop rule.
    const own = simChoseIterations && sim.iteration.kind !== "adaptive" ? sim.iteration : DEFAULT_STOP_RULE;
    return {
      plan: planOfControl(own.kind === "fixed" ? own : { ...own, minSeeds: 0 }, baseSeed, debugSeeds),
      baseSeedSource,
    };
  }
  const control = simChoseIterations
    ? sim.iteration
    : file.iterations !== null
      ? ({ kind: "fixed", iterations: file.iterations } as const)
      : file.untilStable !== null
        ? ({ kind: "untilCoverageStable", ...file.untilStable } as const)
        : DEFAULT_ITERATION_CONTROL;
  return { plan: planOfControl(control, baseSeed, debugSeeds), baseSeedSource };
}
