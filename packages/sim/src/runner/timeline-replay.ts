/**
 * One timeline run again (seed and recipe, never explored) with its trace events from `debug` up,
 * for the pages that draw it; the debug events are kept aside, so the trace hash is the run's.
 */
import { parseRecipe } from "../engine/recipe.ts";
import type { TraceEvent } from "../world/trace-log.ts";
import { Campaign } from "./campaign.ts";
import type { SimulationConfig } from "./config.ts";
import type { SeedResult } from "./seed-result.ts";

export async function replayWithTrace(
  config: SimulationConfig,
  seed: number,
  recipe: string,
): Promise<{ readonly result: SeedResult; readonly events: readonly TraceEvent[] }> {
  let events: readonly TraceEvent[] = [];
  const { result } = await new Campaign(config).runSingleSeed(seed, {
    breakpoints: parseRecipe(recipe),
    explore: false,
    keepLevel: "debug",
    onTrace: (all) => (events = all),
  });
  return { result, events };
}
