/**
 * One candidate run of the shrinker and what it is measured by: whether it still violates the
 * property, its events, simulated time, injected faults, processes, sizes and recipe segments.
 */
import { PROCESS_FAULT_KINDS } from "../../chaos/reboot-kinds.ts";
import { parseRecipe } from "../../engine/recipe.ts";
import {
  isInjectionKind,
  SIM_FAULT_EVENT_NAME,
  SIM_FAULT_SKIPPED_EVENT_NAME,
  type TraceEvent,
} from "../../world/trace-log.ts";
import { Campaign } from "../campaign.ts";
import type { SimulationConfig } from "../config.ts";
import type { SeedFailure, SeedResult } from "../seed-result.ts";
import { withOverrides, type TimelineOverrides } from "./overrides.ts";

/** How big a run is: the figures the shrinker lowers and its summary prints. */
export interface RunSize {
  readonly events: number;
  readonly simulatedTimeMs: number;
  /** `sim_fault` events that inject something (heals, restarts and force-kills of a reboot are not counted). */
  readonly faults: number;
  /** Processes booted at least once. */
  readonly processes: number;
  /** `ctx.size` values the workloads got. */
  readonly sizes: Readonly<Record<string, number>>;
  readonly recipeSegments: number;
  readonly traceHash: string;
}

export interface MeasuredRun {
  readonly result: SeedResult;
  readonly size: RunSize;
  /** Ordinals (`faults.skip`) of the injected faults that can be skipped one by one, ascending. */
  readonly skippableFaults: readonly number[];
  /** Ordinals of the reboots (crashes and graceful shutdowns) the run injected, ascending (`restart.min`). */
  readonly reboots: readonly number[];
}

/** Injected kinds no site can leave out alone: states of a clock or disk, or part of a process crash. */
const NOT_SKIPPABLE = new Set([
  "clock_drift",
  "clock_skew",
  "storage_crash",
  "storage_lost_write",
  "storage_torn_write",
  "storage_wipe",
  "storage_stall",
  "storage_throttle",
]);

export function isInjectedFault(event: TraceEvent): boolean {
  return event.name === SIM_FAULT_EVENT_NAME && isInjectionKind(event.str("kind") ?? "");
}

/**
 * The identity of a failure: the violated assertion's message, or the kind and message of other
 * failures with their numbers masked (times and counts differ between runs of one property).
 */
export function failureProperty(f: SeedFailure): string {
  return f.property ?? `${f.kind}: ${f.message.replace(/\d+(\.\d+)?/g, "#")}`;
}

export async function measureRun(
  config: SimulationConfig,
  seed: number,
  recipe: string,
  overrides: TimelineOverrides,
): Promise<MeasuredRun> {
  let events: readonly TraceEvent[] = [];
  const breakpoints = parseRecipe(recipe);
  const { result } = await new Campaign(withOverrides(config, overrides)).runSingleSeed(seed, {
    breakpoints,
    explore: false,
    onTrace: (all) => (events = all),
  });
  const booted = new Set<string>();
  let faults = 0;
  // Every injected fault takes the next ordinal, and so does every skipped one.
  let ordinal = 0;
  const skippableFaults: number[] = [];
  const reboots: number[] = [];
  for (const event of events) {
    if (isInjectedFault(event)) {
      faults++;
      const kind = event.str("kind") ?? "";
      if (!NOT_SKIPPABLE.has(kind)) skippableFaults.push(ordinal);
      if (kind === PROCESS_FAULT_KINDS.crash || kind === PROCESS_FAULT_KINDS.gracefulShutdown) reboots.push(ordinal);
      ordinal++;
    } else if (event.name === SIM_FAULT_SKIPPED_EVENT_NAME) ordinal++;
    else if (event.name === "process_started") booted.add(event.source);
  }
  return {
    result,
    size: {
      events: result.eventsProcessed,
      simulatedTimeMs: result.simulatedTimeMs,
      faults,
      processes: booted.size,
      sizes: result.sizes ?? {},
      recipeSegments: breakpoints.length,
      traceHash: result.traceHash,
    },
    skippableFaults,
    reboots,
  };
}
