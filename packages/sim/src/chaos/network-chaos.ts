/**
 * Which network configuration a seed runs with, and installing it into the
 * world:
 *
 * - No `Chaos.network` entry: `NETWORK_BASELINE`, the same for every seed. The builder's
 *   `.networkFaults("none" | config)` replaces the baseline with no faults or a fixed configuration.
 * - `Chaos.network("random")`: every parameter drawn from the seed's `sim` stream within
 *   `RANDOM_NETWORK_RANGES`.
 * - `Chaos.network("swarm")`: the random configuration, then one `config`-stream draw per family in
 *   `SWARM_NETWORK_FAMILIES` order (8 draws) switches that family off with probability 1/2.
 *   The all-off subset is allowed.
 * - `Chaos.buggifyKnobs()` (only with `Chaos.network`): three knobs spike on the seeds where their
 *   buggify points fire; a family the swarm mask switched off stays off.
 *
 * The resulting `NetworkChaosRecord` (mode, mask, spiked knobs, every value) goes into the seed's
 * result, so a failing seed says which faults were on.
 */
import { powInt } from "../engine/exact-math.ts";
import type { SeedStreams } from "../engine/rng.ts";
import type { RandomStream } from "../engine/rng.ts";
import {
  CONNECT_FAILURE_MODES,
  NETWORK_FAULT_KINDS,
  NETWORK_NO_FAULTS,
  PARTITION_STRATEGIES,
  BASELINE_LATENCY_SHAPES,
  type NetworkConfig,
  type RangeUs,
} from "../world/network/config.ts";
import type { World } from "../world/world.ts";
import type { Buggify } from "./buggify.ts";
import { draw, drawFamilyMask, drawRange, randomLatency, type Draw, type LatencyDraw } from "./random-draws.ts";
import type { ChaosMode, ChaosPlan } from "./chaos.ts";

/** What `.networkFaults(...)` sets when no `Chaos.network` entry is given. */
export type NetworkFaultsSetting = "baseline" | "none" | NetworkConfig;

const MS = 1000;
const SECOND = 1_000_000;

/**
 * The baseline every simulation without a `Chaos.network` entry runs with: realistic timing plus
 * rare, buggify-gated faults (values in docs/fault-catalogue.md).
 */
export const NETWORK_BASELINE: NetworkConfig = Object.freeze({
  /** bind 50–150 µs, accept 1–6 ms, connect 1–11 ms, write 100–600 µs, all uniform. */
  latency: BASELINE_LATENCY_SHAPES,
  /** Per-pair latency off. */
  pairLatencyUs: [0, 0] as const,
  /** Connects fail when `network.connectFailure` fires (50 % of seeds × 25 % of connects)... */
  connectFailureMode: "probabilistic",
  /** ...and then hang or are refused, 50/50. */
  connectFailureProbability: 0.5,
  /** Partial writes/reads of up to 1000 bytes when `network.partialWrite`/`partialRead` fire (25 %). */
  partialWriteMaxBytes: 1000,
  partialReadMaxBytes: 1000,
  /** Rare corruption: 1 in 10,000 deliveries on seeds where `network.bitFlip` is active; 1–32 bits; no cooldown. */
  bitFlipProbability: 0.0001,
  bitFlipMinBits: 1,
  bitFlipMaxBits: 32,
  bitFlipCooldownUs: 0,
  /** Rare close: 1 in 100,000 reads/writes where `network.randomClose` is active, at most one per 5 s, 30 % RST. */
  randomCloseProbability: 0.00001,
  randomCloseCooldownUs: 5 * SECOND,
  randomCloseExplicitRatio: 0.3,
  /** Clogging off (when on: 100–300 ms). */
  clogProbability: 0,
  clogDurationUs: [100 * MS, 300 * MS] as const,
  /** Random partitions off (when on: 200 ms–2 s, random strategy). */
  partitionProbability: 0,
  partitionDurationUs: [200 * MS, 2 * SECOND] as const,
  partitionStrategy: "random",
  /** Clock drift on, up to 100 ms ahead. */
  clockDriftEnabled: true,
  clockDriftMaxUs: 100 * MS,
  /** Buggified sleep delay on: a quarter of sleeps get `100 ms · u^1000` more. */
  buggifiedDelayEnabled: true,
  buggifiedDelayMaxUs: 100 * MS,
  buggifiedDelayProbability: 0.25,
});

/**
 * The ranges `Chaos.network("random")` draws each parameter from (sim stream, in the order
 * listed). Reads have no latency of their own: a read waits for a delivery, which has one.
 */
export const RANDOM_NETWORK_RANGES = Object.freeze({
  latency: Object.freeze({
    bind: { startUs: [10, 200], endUs: [50, 300] },
    accept: { startUs: [1_000, 10_000], endUs: [5_000, 15_000] },
    connect: { startUs: [1_000, 50_000], endUs: [10_000, 100_000] },
    write: { startUs: [50, 1_000], endUs: [200, 2_000] },
  } satisfies Record<"bind" | "accept" | "connect" | "write", LatencyDraw>),
  /** Clog probability 0–19 %, duration from `[50..300) ms` to `[100..500) ms`. */
  clogProbability: [0, 20, 0.01] as Draw,
  clogDurationStartUs: [50 * MS, 300 * MS] as RangeUs,
  clogDurationEndUs: [100 * MS, 500 * MS] as RangeUs,
  /** Partition probability 0–14 % per network event, duration from `[100..1000) ms` to `[500..3000) ms`. */
  partitionProbability: [0, 15, 0.01] as Draw,
  partitionDurationStartUs: [100 * MS, 1_000 * MS] as RangeUs,
  partitionDurationEndUs: [500 * MS, 3_000 * MS] as RangeUs,
  /** Bit flip probability 1e-5 .. 1.9e-4, cooldown 0–99 ms. */
  bitFlipProbability: [1, 20, 1e-5] as Draw,
  bitFlipCooldownUs: [0, 100, MS] as Draw,
  /** Partial writes of up to 100–1999 bytes. */
  partialWriteMaxBytes: [100, 2_000, 1] as Draw,
  /** Random close probability 1e-6 .. 9.9e-5, cooldown 1–9 s, RST share 20–39 %. */
  randomCloseProbability: [1, 100, 1e-6] as Draw,
  randomCloseCooldownUs: [1, 10, SECOND] as Draw,
  randomCloseExplicitRatio: [20, 40, 0.01] as Draw,
  /** Clock drift on, up to 50–149 ms. */
  clockDriftMaxUs: [50, 150, MS] as Draw,
  /** Buggified delay on, up to 50–149 ms, on 20–29 % of sleeps. */
  buggifiedDelayMaxUs: [50, 150, MS] as Draw,
  buggifiedDelayProbability: [20, 30, 0.01] as Draw,
  /** Connect failure mode uniform over disabled / alwaysFail / probabilistic; hang share 40–59 %. */
  connectFailureProbability: [40, 60, 0.01] as Draw,
  /** Per-pair latency `[0, x)` with x drawn from 0–99 ms. */
  pairLatencyMaxUs: [0, 100, MS] as Draw,
  /** Partial reads of up to 100–1999 bytes. */
  partialReadMaxBytes: [100, 2_000, 1] as Draw,
});

/** The families the swarm mask may switch off, in the order of their `config`-stream draws. */
export const SWARM_NETWORK_FAMILIES = [
  "clog",
  "partition",
  "bitFlip",
  "randomClose",
  "connectFailure",
  "clockDrift",
  "buggifiedDelay",
  "pairLatency",
] as const;
export type SwarmNetworkFamily = (typeof SWARM_NETWORK_FAMILIES)[number];
/** Probability that the swarm mask switches one family off for a seed. */
export const SWARM_FAMILY_OFF_PROBABILITY = 0.5;

/** The knobs `Chaos.buggifyKnobs()` spikes, their buggify ids and spike ranges `[lo, hi)`. */
export const NETWORK_KNOBS = Object.freeze({
  clogProbability: { id: "chaos.network.clogProbability", range: [0.5, 1.0] as const },
  partitionProbability: { id: "chaos.network.partitionProbability", range: [0.3, 0.8] as const },
  randomCloseProbability: { id: "chaos.network.randomCloseProbability", range: [0.01, 0.1] as const },
});
type KnobName = keyof typeof NETWORK_KNOBS;

/** What a seed's network ran with. */
export interface NetworkChaosRecord {
  /** "baseline" (no Chaos.network), "none" / "custom" (`.networkFaults`), or the Chaos.network mode. */
  readonly mode: "baseline" | "none" | "custom" | ChaosMode;
  /** Swarm only: each family the mask left on (true) or switched off (false). */
  readonly swarmMask: Readonly<Record<SwarmNetworkFamily, boolean>> | null;
  /** Whether `Chaos.buggifyKnobs()` applied to the network. */
  readonly buggifyKnobs: boolean;
  /** The knobs that spiked this seed, with their value. */
  readonly spikedKnobs: Readonly<Partial<Record<KnobName, number>>>;
  /** Every value the seed ran with. */
  readonly config: NetworkConfig;
}

/** A configuration with every parameter drawn from `sim`. */
export function randomNetworkConfig(sim: RandomStream): NetworkConfig {
  const r = RANDOM_NETWORK_RANGES;
  const latency = {
    bind: randomLatency(sim, r.latency.bind),
    accept: randomLatency(sim, r.latency.accept),
    connect: randomLatency(sim, r.latency.connect),
    write: randomLatency(sim, r.latency.write),
  };
  const clogProbability = draw(sim, r.clogProbability);
  const clogDurationUs = drawRange(sim, r.clogDurationStartUs, r.clogDurationEndUs);
  const partitionProbability = draw(sim, r.partitionProbability);
  const partitionDurationUs = drawRange(sim, r.partitionDurationStartUs, r.partitionDurationEndUs);
  const bitFlipProbability = draw(sim, r.bitFlipProbability);
  const bitFlipCooldownUs = draw(sim, r.bitFlipCooldownUs);
  const partialWriteMaxBytes = draw(sim, r.partialWriteMaxBytes);
  const randomCloseProbability = draw(sim, r.randomCloseProbability);
  const randomCloseCooldownUs = draw(sim, r.randomCloseCooldownUs);
  const randomCloseExplicitRatio = draw(sim, r.randomCloseExplicitRatio);
  const clockDriftMaxUs = draw(sim, r.clockDriftMaxUs);
  const buggifiedDelayMaxUs = draw(sim, r.buggifiedDelayMaxUs);
  const buggifiedDelayProbability = draw(sim, r.buggifiedDelayProbability);
  const connectFailureMode = CONNECT_FAILURE_MODES[sim.rangeInt(0, CONNECT_FAILURE_MODES.length)]!;
  const connectFailureProbability = draw(sim, r.connectFailureProbability);
  const partitionStrategy = PARTITION_STRATEGIES[sim.rangeInt(0, PARTITION_STRATEGIES.length)]!;
  const pairLatencyUs: RangeUs = [0, draw(sim, r.pairLatencyMaxUs)];
  const partialReadMaxBytes = draw(sim, r.partialReadMaxBytes);
  return Object.freeze({
    latency,
    pairLatencyUs,
    connectFailureMode,
    connectFailureProbability,
    partialWriteMaxBytes,
    partialReadMaxBytes,
    bitFlipProbability,
    bitFlipMinBits: NETWORK_BASELINE.bitFlipMinBits,
    bitFlipMaxBits: NETWORK_BASELINE.bitFlipMaxBits,
    bitFlipCooldownUs,
    randomCloseProbability,
    randomCloseCooldownUs,
    randomCloseExplicitRatio,
    clogProbability,
    clogDurationUs,
    partitionProbability,
    partitionDurationUs,
    partitionStrategy,
    clockDriftEnabled: true,
    clockDriftMaxUs,
    buggifiedDelayEnabled: true,
    buggifiedDelayMaxUs,
    buggifiedDelayProbability,
  });
}

/** The swarm mask, 8 `config`-stream draws in `SWARM_NETWORK_FAMILIES` order (true = family stays on). */
export function drawSwarmMask(config: RandomStream): Record<SwarmNetworkFamily, boolean> {
  return drawFamilyMask(config, SWARM_NETWORK_FAMILIES, SWARM_FAMILY_OFF_PROBABILITY);
}

/** What switching each swarm family off sets; the compiler checks every family has an entry. */
export const SWARM_NETWORK_FAMILY_OFF = Object.freeze({
  clog: { clogProbability: 0 },
  partition: { partitionProbability: 0 },
  bitFlip: { bitFlipProbability: 0 },
  randomClose: { randomCloseProbability: 0 },
  connectFailure: { connectFailureMode: "disabled", connectFailureProbability: 0 },
  clockDrift: { clockDriftEnabled: false },
  buggifiedDelay: { buggifiedDelayEnabled: false },
  pairLatency: { pairLatencyUs: [0, 0] },
} satisfies Record<SwarmNetworkFamily, Partial<NetworkConfig>>);

/** Switches off the families the mask left off. */
export function applySwarmMask(
  config: NetworkConfig,
  mask: Readonly<Record<SwarmNetworkFamily, boolean>>,
): NetworkConfig {
  let masked: NetworkConfig = config;
  for (const family of SWARM_NETWORK_FAMILIES) {
    if (!mask[family]) masked = { ...masked, ...SWARM_NETWORK_FAMILY_OFF[family] };
  }
  return Object.freeze({ ...masked });
}

const KNOB_FAMILY: Record<KnobName, SwarmNetworkFamily> = {
  clogProbability: "clog",
  partitionProbability: "partition",
  randomCloseProbability: "randomClose",
};

/** Spikes the knobs whose buggify points fire, leaving masked-off families off. */
function spikeKnobs(
  config: NetworkConfig,
  buggify: Buggify,
  mask: Readonly<Record<SwarmNetworkFamily, boolean>> | null,
): { config: NetworkConfig; spiked: Partial<Record<KnobName, number>> } {
  const spiked: Partial<Record<KnobName, number>> = {};
  const next: Record<KnobName, number> = {
    clogProbability: config.clogProbability,
    partitionProbability: config.partitionProbability,
    randomCloseProbability: config.randomCloseProbability,
  };
  for (const name of Object.keys(NETWORK_KNOBS) as KnobName[]) {
    if (mask !== null && !mask[KNOB_FAMILY[name]]) continue;
    const { id, range } = NETWORK_KNOBS[name];
    const value = buggify.knob(id, config[name], range[0], range[1]);
    if (value !== config[name]) {
      spiked[name] = value;
      next[name] = value;
    }
  }
  return { config: Object.freeze({ ...config, ...next }), spiked };
}

/**
 * The network configuration of one seed. Draw order: random parameters (`sim`), then the swarm
 * mask (`config`), then the knobs (`sim`, through buggify).
 */
export function resolveNetworkChaos(
  plan: ChaosPlan,
  fixed: NetworkFaultsSetting,
  streams: SeedStreams,
  buggify: Buggify,
): NetworkChaosRecord {
  const mode = plan.network;
  if (mode === null) {
    const config = fixed === "baseline" ? NETWORK_BASELINE : fixed === "none" ? NETWORK_NO_FAULTS : fixed;
    const recordMode = fixed === "baseline" ? "baseline" : fixed === "none" ? "none" : "custom";
    return Object.freeze({ mode: recordMode, swarmMask: null, buggifyKnobs: false, spikedKnobs: {}, config });
  }
  let config = randomNetworkConfig(streams.sim);
  let swarmMask: Record<SwarmNetworkFamily, boolean> | null = null;
  if (mode === "swarm") {
    swarmMask = drawSwarmMask(streams.config);
    config = applySwarmMask(config, swarmMask);
  }
  let spikedKnobs: Partial<Record<KnobName, number>> = {};
  if (plan.buggifyKnobs) ({ config, spiked: spikedKnobs } = spikeKnobs(config, buggify, swarmMask));
  return Object.freeze({ mode, swarmMask, buggifyKnobs: plan.buggifyKnobs, spikedKnobs, config });
}

/** The drift bound each process clock gets (0 = no drift). */
export function clockDriftMaxUs(config: NetworkConfig): number {
  return config.clockDriftEnabled ? config.clockDriftMaxUs : 0;
}

/**
 * The buggified sleep delay of `config` (every sleep, with probability p, adds `max · u^1000`): a power law that is almost always below a microsecond and now and then long.
 */
export function buggifiedSleepDelay(world: World, config: NetworkConfig): (ip: string) => number {
  const p = config.buggifiedDelayProbability;
  const maxUs = config.buggifiedDelayMaxUs;
  if (!config.buggifiedDelayEnabled || p <= 0 || maxUs <= 0) return () => 0;
  const sim = world.engine.streams.sim;
  return (ip) => {
    if (!sim.bool(p)) return 0;
    // powInt, not Math.pow: the delay must not depend on the Node version (engine/exact-math.ts).
    const delayUs = Math.floor(maxUs * powInt(sim.ratio(), 1000));
    if (delayUs <= 0) return 0;
    if (world.skipFault(NETWORK_FAULT_KINDS.sleepDelayed)) return 0;
    world.recordFault(NETWORK_FAULT_KINDS.sleepDelayed, { ip, delayMs: delayUs / 1000 });
    return delayUs;
  };
}

/** Installs the seed's network configuration: faults, buggify gate, sleep delay. (Clocks take `clockDriftMaxUs`.) */
export function installNetworkChaos(world: World, record: NetworkChaosRecord, buggify: Buggify): void {
  world.network.config = record.config;
  world.network.gate = buggify;
  world.extraSleepUs = buggifiedSleepDelay(world, record.config);
}

/** One line for reports: `network=swarm off=[partition,bitFlip] knobs=[clogProbability=0.73]`. */
export function describeNetworkChaos(record: NetworkChaosRecord): string {
  const parts = [`network=${record.mode}`];
  if (record.swarmMask !== null) {
    const off = SWARM_NETWORK_FAMILIES.filter((f) => !record.swarmMask![f]);
    const on = SWARM_NETWORK_FAMILIES.filter((f) => record.swarmMask![f]);
    parts.push(`on=[${on.join(",")}]`, `off=[${off.join(",")}]`);
  }
  const knobs = Object.entries(record.spikedKnobs).map(([k, v]) => `${k}=${Number(v).toPrecision(3)}`);
  if (record.buggifyKnobs) parts.push(`knobs=[${knobs.join(",")}]`);
  const c = record.config;
  const active: string[] = [];
  if (c.connectFailureMode !== "disabled") active.push(`connectFailure:${c.connectFailureMode}`);
  if (c.partialWriteMaxBytes > 0) active.push("partialWrite");
  if (c.partialReadMaxBytes > 0) active.push("partialRead");
  if (c.bitFlipProbability > 0) active.push(`bitFlip:${c.bitFlipProbability.toPrecision(2)}`);
  if (c.randomCloseProbability > 0) active.push(`randomClose:${c.randomCloseProbability.toPrecision(2)}`);
  if (c.clogProbability > 0) active.push(`clog:${c.clogProbability.toPrecision(2)}`);
  if (c.partitionProbability > 0)
    active.push(`partition:${c.partitionProbability.toPrecision(2)}/${c.partitionStrategy}`);
  if (c.clockDriftEnabled && c.clockDriftMaxUs > 0) active.push(`drift:${c.clockDriftMaxUs / 1000}ms`);
  if (c.buggifiedDelayEnabled && c.buggifiedDelayProbability > 0) active.push("sleepDelay");
  if (c.pairLatencyUs[1] > 0) active.push(`pairLatency:<${c.pairLatencyUs[1] / 1000}ms`);
  parts.push(`faults=[${active.join(",")}]`);
  return parts.join(" ");
}
