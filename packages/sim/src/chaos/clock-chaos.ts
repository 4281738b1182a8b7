/**
 * Which clock faults a seed runs with, and drawing each process's clock from them:
 *
 * - Neither `Chaos.clock` nor `.clockFaults(...)`: the baseline, `BASELINE_CLOCK_CONFIG` (small
 *   per-process offsets and rate errors, no steps).
 * - `.clockFaults("none")`: exact wall clocks; `timer()` keeps the network chaos's forward drift
 *   (`clockDriftMaxUs`).
 * - `.clockFaults(config)`: that fixed `ClockConfig` every seed.
 * - `Chaos.clock("random")`: the configuration drawn from the seed's `sim` stream within
 *   `RANDOM_CLOCK_RANGES`, in the order listed there; the offset and step bounds first draw their
 *   scale (below a second, seconds or minutes, a third each), then a value of that scale.
 * - `Chaos.clock("swarm")`: the random configuration, then one `config`-stream draw per family in
 *   `SWARM_CLOCK_FAMILIES` order (3 draws) switches that family off with probability 1/2.
 * - `Chaos.buggifyKnobs()` with `Chaos.clock`: the knobs of `CLOCK_KNOBS` spike on the seeds where
 *   their buggify points fire; a family the swarm mask switched off stays off.
 *
 * Then, with any but exact clocks, every process and workload IP (processes first, in topology
 * order) draws its own offset, monotonic origin, rate error and first step time: from `sim`, or
 * for the baseline from `config`, so that the baseline leaves the decisions of a simulation that
 * never reads a clock or sleeps exactly as they were (its `sim` draws, its trace).
 */
import type { RandomStream, SeedStreams } from "../engine/rng.ts";
import {
  BASELINE_CLOCK_CONFIG,
  clockConfigErrors,
  CLOCK_RATE_ERROR_LIMIT,
  EXACT_CLOCK_CONFIG,
  type ClockConfig,
} from "../world/clock-config.ts";
import { nextStepGapUs, type ClockSkew, type ClockSteps } from "../world/time.ts";
import type { World } from "../world/world.ts";
import type { Buggify } from "./buggify.ts";
import { draw, drawFamilyMask, drawScaled, type Draw, type ScaledDraw } from "./random-draws.ts";
import type { ChaosMode } from "./chaos.ts";

const MS = 1000;
const SECOND = 1_000_000;
const MINUTE = 60 * SECOND;

/**
 * What `.clockFaults(...)` sets: the baseline (the builder's default), no clock faults (exact
 * wall clocks) or a fixed configuration.
 */
export type ClockFaultsSetting = "baseline" | "none" | ClockConfig;

/** The ranges `Chaos.clock("random")` draws from (sim stream, in this order). */
export const RANDOM_CLOCK_RANGES = Object.freeze({
  /**
   * Wall clock offsets within ±0–999 ms, ±1–59 s or ±1–15 min per seed, a third each: hybrid
   * logical clocks guard minutes (a change stamped 5 minutes ahead is refused), so offsets must
   * reach past such a guard on a good share of seeds while sub-second ones stay as common.
   */
  offsetMaxUs: [
    [0, 1_000, MS],
    [1, 60, SECOND],
    [1, 16, MINUTE],
  ] as ScaledDraw,
  /** Rate errors within ±0.1–2 % per seed (real quartz drifts far less; a short run needs more to show). */
  rateErrorMax: [1, 21, 0.001] as Draw,
  /** A wall clock step every 1–29 s on average per process... */
  stepMeanIntervalUs: [1, 30, SECOND] as Draw,
  /** ...of up to ±10–999 ms, ±1–59 s or ±1–10 min, a third each (an NTP correction after a long outage). */
  stepMaxUs: [
    [10, 1_000, MS],
    [1, 60, SECOND],
    [1, 11, MINUTE],
  ] as ScaledDraw,
});

/** The families the swarm mask may switch off, in the order of their `config`-stream draws. */
export const SWARM_CLOCK_FAMILIES = ["offset", "rate", "step"] as const;
export type SwarmClockFamily = (typeof SWARM_CLOCK_FAMILIES)[number];
export type ClockSwarmMask = Readonly<Record<SwarmClockFamily, boolean>>;
export const SWARM_CLOCK_FAMILY_OFF_PROBABILITY = 0.5;

/** What `Chaos.buggifyKnobs()` spikes for clocks, with buggify ids and spike ranges `[lo, hi)`. */
export const CLOCK_KNOBS = Object.freeze({
  offsetMaxUs: { id: "chaos.clock.offsetMax", range: [1 * MINUTE, 15 * MINUTE] as const, family: "offset" },
  rateErrorMax: { id: "chaos.clock.rateErrorMax", range: [0.02, CLOCK_RATE_ERROR_LIMIT] as const, family: "rate" },
  stepMeanIntervalUs: { id: "chaos.clock.stepMeanInterval", range: [100 * MS, 1 * SECOND] as const, family: "step" },
  stepMaxUs: { id: "chaos.clock.stepMax", range: [1 * MINUTE, 10 * MINUTE] as const, family: "step" },
} satisfies Record<string, { id: string; range: readonly [number, number]; family: SwarmClockFamily }>);
export type ClockKnobName = keyof typeof CLOCK_KNOBS;

export function randomClockConfig(sim: RandomStream): ClockConfig {
  const r = RANDOM_CLOCK_RANGES;
  const offsetMaxUs = drawScaled(sim, r.offsetMaxUs);
  const rateErrorMax = draw(sim, r.rateErrorMax);
  const stepMeanIntervalUs = draw(sim, r.stepMeanIntervalUs);
  const stepMaxUs = drawScaled(sim, r.stepMaxUs);
  return Object.freeze({ offsetMaxUs, rateErrorMax, stepMeanIntervalUs, stepMaxUs });
}

/** Switches off the families the mask left off. */
export function applyClockSwarmMask(config: ClockConfig, mask: ClockSwarmMask): ClockConfig {
  return Object.freeze({
    offsetMaxUs: mask.offset ? config.offsetMaxUs : 0,
    rateErrorMax: mask.rate ? config.rateErrorMax : 0,
    stepMeanIntervalUs: mask.step ? config.stepMeanIntervalUs : 0,
    stepMaxUs: mask.step ? config.stepMaxUs : 0,
  });
}

function spikeClockKnobs(
  config: ClockConfig,
  buggify: Buggify,
  mask: ClockSwarmMask | null,
): { config: ClockConfig; spiked: Partial<Record<ClockKnobName, number>> } {
  const spiked: Partial<Record<ClockKnobName, number>> = {};
  const next: Partial<Record<ClockKnobName, number>> = {};
  for (const name of Object.keys(CLOCK_KNOBS) as ClockKnobName[]) {
    const { id, range, family } = CLOCK_KNOBS[name];
    if (mask !== null && !mask[family]) continue;
    const value = buggify.knob(id, config[name], range[0], range[1]);
    if (value !== config[name]) spiked[name] = next[name] = value;
  }
  return { config: Object.freeze({ ...config, ...next }), spiked };
}

/** What a seed's clocks ran with. */
export interface ClockChaosRecord {
  /**
   * "baseline" (neither `Chaos.clock` nor `.clockFaults`), "none" (exact wall clocks), "custom"
   * (`.clockFaults(config)`) or the `Chaos.clock` mode.
   */
  readonly mode: "baseline" | "none" | "custom" | ChaosMode;
  readonly swarmMask: ClockSwarmMask | null;
  readonly buggifyKnobs: boolean;
  readonly spikedKnobs: Readonly<Partial<Record<ClockKnobName, number>>>;
  readonly config: ClockConfig;
}

/**
 * The clock configuration of one seed. Draw order: random parameters (`sim`), the swarm mask
 * (`config`), then the knobs (`sim`, through buggify). The baseline, "none" and a fixed
 * configuration draw nothing here.
 */
export function resolveClockChaos(
  mode: ChaosMode | null,
  fixed: ClockFaultsSetting,
  knobs: boolean,
  streams: SeedStreams,
  buggify: Buggify,
): ClockChaosRecord {
  if (mode === null) {
    const config = fixed === "none" ? EXACT_CLOCK_CONFIG : fixed === "baseline" ? BASELINE_CLOCK_CONFIG : fixed;
    return Object.freeze({
      mode: typeof fixed === "string" ? fixed : "custom",
      swarmMask: null,
      buggifyKnobs: false,
      spikedKnobs: {},
      config,
    });
  }
  let config = randomClockConfig(streams.sim);
  let swarmMask: ClockSwarmMask | null = null;
  if (mode === "swarm") {
    swarmMask = Object.freeze(drawFamilyMask(streams.config, SWARM_CLOCK_FAMILIES, SWARM_CLOCK_FAMILY_OFF_PROBABILITY));
    config = applyClockSwarmMask(config, swarmMask);
  }
  let spikedKnobs: Partial<Record<ClockKnobName, number>> = {};
  if (knobs) ({ config, spiked: spikedKnobs } = spikeClockKnobs(config, buggify, swarmMask));
  const errors = clockConfigErrors(config);
  if (errors.length > 0) throw new Error(`internal: drew an invalid clock configuration: ${errors.join("; ")}`);
  return Object.freeze({ mode, swarmMask, buggifyKnobs: knobs, spikedKnobs, config });
}

/** True when `config` makes any clock differ from true time. */
export function clockFaultsActive(config: ClockConfig): boolean {
  return config.offsetMaxUs > 0 || config.rateErrorMax > 0 || (config.stepMeanIntervalUs > 0 && config.stepMaxUs > 0);
}

/** The clocks of one seed: each IP's drawn skew, looked up when its clock is created. */
export class SeedClocks {
  private readonly skews = new Map<string, { skew: ClockSkew; firstStepAtUs: number }>();
  private readonly steps: ClockSteps | null;

  constructor(
    readonly record: ClockChaosRecord,
    world: World,
    ips: readonly string[],
  ) {
    const c = record.config;
    const active = clockFaultsActive(c);
    this.steps =
      active && c.stepMeanIntervalUs > 0 && c.stepMaxUs > 0
        ? { meanIntervalUs: c.stepMeanIntervalUs, maxUs: c.stepMaxUs, cutoffUs: Infinity }
        : null;
    if (!active) return;
    const streams = world.engine.streams;
    const sim = record.mode === "baseline" ? streams.config : streams.sim;
    for (const ip of ips) {
      // Four draws per IP, always in this order, so one family switched off shifts no other value.
      const offsetUs = sim.rangeInt(-c.offsetMaxUs, c.offsetMaxUs + 1);
      const monotonicOriginUs = sim.rangeInt(0, c.offsetMaxUs + 1);
      const rateError = c.rateErrorMax * (2 * sim.ratio() - 1);
      const firstStepAtUs = this.steps === null ? Infinity : nextStepGapUs(sim.ratio(), this.steps.meanIntervalUs);
      this.skews.set(ip, { skew: Object.freeze({ offsetUs, monotonicOriginUs, rateError }), firstStepAtUs });
    }
    const steps = this.steps;
    if (steps !== null) world.onRecoveryMode(() => (steps.cutoffUs = world.engine.nowUs));
  }

  /** The skew of `ip`'s clocks, or null (exact clocks, or an IP drawn nothing for). */
  skewOf(ip: string): { skew: ClockSkew; steps: ClockSteps | null; firstStepAtUs: number } | null {
    const entry = this.skews.get(ip);
    return entry === undefined ? null : { ...entry, steps: this.steps };
  }
}

/** One line for reports: `clock=swarm off=[step] offset<=412ms rate<=1.3%`; empty for exact clocks. */
export function describeClockChaos(record: ClockChaosRecord): string {
  if (record.mode === "none") return "";
  const parts = [`clock=${record.mode}`];
  if (record.swarmMask !== null)
    parts.push(`off=[${SWARM_CLOCK_FAMILIES.filter((f) => !record.swarmMask![f]).join(",")}]`);
  if (record.buggifyKnobs) parts.push(`knobs=[${Object.keys(record.spikedKnobs).join(",")}]`);
  const c = record.config;
  const active: string[] = [];
  if (c.offsetMaxUs > 0) active.push(`offset:±${c.offsetMaxUs / MS}ms`);
  if (c.rateErrorMax > 0) active.push(`rate:±${(c.rateErrorMax * 100).toPrecision(2)}%`);
  if (c.stepMeanIntervalUs > 0 && c.stepMaxUs > 0)
    active.push(`step:±${c.stepMaxUs / MS}ms/${c.stepMeanIntervalUs / MS}ms`);
  parts.push(`faults=[${active.join(",")}]`);
  return parts.join(" ");
}
