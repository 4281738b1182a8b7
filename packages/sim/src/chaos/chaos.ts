/**
 * `Chaos` descriptors: what `SimulationBuilder.enableChaos([...])` accepts, one entry per fault
 * surface. A discriminated union on `surface`, so each surface's issue adds its member (storage,
 * attrition) and its field of `ChaosPlan` without touching the others:
 *
 *   .enableChaos([Chaos.network("swarm"), Chaos.buggifyKnobs()])
 *
 * - `Chaos.network(mode)`: network faults drawn per seed ("random") or drawn and then thinned by
 *   a per-seed mask ("swarm"). Without it the baseline network configuration applies.
 * - `Chaos.storage(mode)`: storage faults drawn per seed ("random") or drawn and masked ("swarm"),
 *   (see `storage-config.ts`). Without it storage faults are off.
 * - `Chaos.attrition(config, mode)`: built-in process reboots within the chaos window (see
 *   `attrition.ts`); one entry per victim pool, a later one for the same pool replaces it.
 * - `Chaos.buggifyKnobs()`: spikes the knobs of the enabled surfaces on the seeds where
 *   their buggify points fire; it needs at least one such surface.
 * Later entries override earlier ones for the same surface.
 */
import { InvalidConfiguration } from "@moonpool/core";
import { addAttritionEntry, checkAttrition, type AttritionConfig, type AttritionPlan } from "./attrition.ts";

/** How a surface's configuration is chosen per seed. */
export type ChaosMode = "random" | "swarm";
export const CHAOS_MODES: readonly ChaosMode[] = ["random", "swarm"];

/** One `enableChaos` entry. */
export type Chaos =
  | { readonly surface: "network"; readonly mode: ChaosMode }
  | { readonly surface: "storage"; readonly mode: ChaosMode }
  | { readonly surface: "clock"; readonly mode: ChaosMode }
  | { readonly surface: "dns"; readonly mode: ChaosMode }
  | { readonly surface: "attrition"; readonly mode: ChaosMode; readonly config: AttritionPlan }
  | { readonly surface: "buggifyKnobs" };

/** Surfaces `Chaos.buggifyKnobs()` can spike. */
export const KNOB_SURFACES = ["network", "storage", "clock"] as const;

function checkMode(mode: unknown, call: string): ChaosMode {
  if (!CHAOS_MODES.includes(mode as ChaosMode)) {
    throw new InvalidConfiguration(
      `${call}: mode must be "random" (every parameter drawn per seed) or "swarm" (random, then each family off with probability 1/2), got ${JSON.stringify(mode) ?? String(mode)}`,
    );
  }
  return mode as ChaosMode;
}

export const Chaos = Object.freeze({
  /** Network fault families drawn per seed (`"random"`) or drawn and masked (`"swarm"`). */
  network(mode: ChaosMode): Chaos {
    return Object.freeze({ surface: "network", mode: checkMode(mode, "Chaos.network(mode)") });
  },
  /**
   * Storage fault families (read/write corruption, phantom and misdirected writes and reads, sync
   * failures, crash damage, stalls, throttling) drawn per seed (`"random"`) or
   * drawn and masked (`"swarm"`, 9 families). Without it storage faults are off.
   */
  storage(mode: ChaosMode): Chaos {
    return Object.freeze({ surface: "storage", mode: checkMode(mode, "Chaos.storage(mode)") });
  },
  /**
   * Per-process clock faults (see `world/clock-config.ts`): wall clock offsets, rate errors of
   * both clocks and wall clock steps drawn per seed (`"random"`) or drawn and masked (`"swarm"`,
   * 3 families). Without it (and without `.clockFaults(...)`) the clocks run the baseline,
   * `BASELINE_CLOCK_CONFIG`; `.clockFaults("none")` makes them exact.
   */
  clock(mode: ChaosMode): Chaos {
    return Object.freeze({ surface: "clock", mode: checkMode(mode, "Chaos.clock(mode)") });
  },
  /**
   * DNS faults (see `dns-chaos.ts`): slow answers, `ENOTFOUND`/`EAI_AGAIN` failures and stale group
   * answers after a reboot, drawn per seed (`"random"`) or drawn and masked (`"swarm"`, 3 families),
   * for names looked up by simulated processes. Without it (and without `.dnsFaults(config)`) names
   * always resolve at once.
   */
  dns(mode: ChaosMode): Chaos {
    return Object.freeze({ surface: "dns", mode: checkMode(mode, "Chaos.dns(mode)") });
  },
  /**
   * Built-in process reboots (see `attrition.ts`): every 1–5 s of the chaos window, a graceful
   * reboot, a crash or a crash-and-wipe of a live victim (or of every live victim of one failure
   * domain), within `maxDead` dead processes of the victim pool. `"swarm"` zeroes `maxDead` and
   * each weight with probability 1/2 per seed. One entry per victim pool: a later entry for the
   * same victims replaces the earlier one. Needs `.chaosDuration(ms)`.
   */
  attrition(config: AttritionConfig, mode: ChaosMode): Chaos {
    const checked = checkMode(mode, "Chaos.attrition(config, mode)");
    return Object.freeze({
      surface: "attrition",
      mode: checked,
      config: checkAttrition(config, checked, "Chaos.attrition(config, mode)"),
    });
  },
  /** Spike the knobs of the enabled surfaces on the seeds where their buggify points fire. */
  buggifyKnobs(): Chaos {
    return Object.freeze({ surface: "buggifyKnobs" });
  },
});

/** The chaos surfaces of a simulation, resolved from the `enableChaos` entries. */
export interface ChaosPlan {
  /** The network's mode, or null without a `Chaos.network` entry (the baseline applies). */
  readonly network: ChaosMode | null;
  /** The storage's mode; absent without a `Chaos.storage` entry (storage faults off). */
  readonly storage?: ChaosMode;
  /** The clocks' mode; absent without a `Chaos.clock` entry. */
  readonly clock?: ChaosMode;
  /** The DNS faults' mode; absent without a `Chaos.dns` entry. */
  readonly dns?: ChaosMode;
  /** The `Chaos.attrition` entries, one per victim pool (absent without any). */
  readonly attrition?: readonly AttritionPlan[];
  readonly buggifyKnobs: boolean;
}

export const NO_CHAOS: ChaosPlan = Object.freeze({ network: null, buggifyKnobs: false });

/**
 * Folds `entries` into `plan` (later entries win for their surface). Throws
 * `InvalidConfiguration` for anything that is not a `Chaos.*(...)` descriptor.
 */
export function applyChaosEntries(plan: ChaosPlan, entries: readonly Chaos[]): ChaosPlan {
  if (!Array.isArray(entries)) {
    throw new InvalidConfiguration(
      'enableChaos(entries): entries must be an array, e.g. enableChaos([Chaos.network("swarm"), Chaos.buggifyKnobs()])',
    );
  }
  let network = plan.network;
  let storage = plan.storage;
  let clock = plan.clock;
  let dns = plan.dns;
  let attrition = plan.attrition;
  let buggifyKnobs = plan.buggifyKnobs;
  entries.forEach((entry: Chaos, i) => {
    const surface = (entry as { surface?: unknown } | null)?.surface;
    switch (surface) {
      case "network":
        network = checkMode((entry as { mode?: unknown }).mode, `enableChaos: entry ${i} (network)`);
        break;
      case "storage":
        storage = checkMode((entry as { mode?: unknown }).mode, `enableChaos: entry ${i} (storage)`);
        break;
      case "clock":
        clock = checkMode((entry as { mode?: unknown }).mode, `enableChaos: entry ${i} (clock)`);
        break;
      case "dns":
        dns = checkMode((entry as { mode?: unknown }).mode, `enableChaos: entry ${i} (dns)`);
        break;
      case "attrition": {
        const { mode, config } = entry as { mode?: unknown; config?: unknown };
        const checked = checkMode(mode, `enableChaos: entry ${i} (attrition)`);
        attrition = Object.freeze(
          addAttritionEntry(
            attrition ?? [],
            checkAttrition(config as AttritionConfig, checked, `enableChaos: entry ${i} (attrition)`),
          ),
        );
        break;
      }
      case "buggifyKnobs":
        buggifyKnobs = true;
        break;
      default:
        throw new InvalidConfiguration(
          `enableChaos: entry ${i} is not a chaos descriptor (got ${JSON.stringify(entry) ?? String(entry)}); create entries with Chaos.network("random" | "swarm"), Chaos.storage("random" | "swarm"), Chaos.clock("random" | "swarm"), Chaos.dns("random" | "swarm"), Chaos.attrition(config, "random" | "swarm") or Chaos.buggifyKnobs()`,
        );
    }
  });
  return Object.freeze({
    network,
    storage,
    buggifyKnobs,
    ...(clock !== undefined ? { clock } : {}),
    ...(dns !== undefined ? { dns } : {}),
    ...(attrition !== undefined ? { attrition } : {}),
  });
}

/** Configuration mistakes of a plan alone, as messages that say what to change. */
export function chaosPlanErrors(plan: ChaosPlan): string[] {
  const errors: string[] = [];
  const knobSurfaceEnabled = KNOB_SURFACES.some((surface) => (plan[surface] ?? null) !== null);
  if (plan.buggifyKnobs && !knobSurfaceEnabled) {
    errors.push(
      'Chaos.buggifyKnobs() spikes the knobs of enabled chaos surfaces and none is enabled: add Chaos.network("random" | "swarm"), Chaos.storage("random" | "swarm") or Chaos.clock("random" | "swarm") to enableChaos([...]), or drop Chaos.buggifyKnobs()',
    );
  }
  return errors;
}
