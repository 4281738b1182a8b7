/**
 * Which storage configuration a seed runs with, as the chaos layer decides it:
 *
 * - No `Chaos.storage` entry: `DEFAULT_STORAGE_CONFIG` (realistic timing, every fault off).
 * - `Chaos.storage("random")`: every parameter drawn from the seed's `sim` stream, within
 *   `RANDOM_STORAGE_RANGES`, in the order listed there.
 * - `Chaos.storage("swarm")`: the random configuration, then one `config`-stream draw per family in
 *   `SWARM_STORAGE_FAMILIES` order (9 draws) switches that family off with probability 1/2. The
 *   all-off subset is allowed.
 * - `Chaos.buggifyKnobs()` with `Chaos.storage`: the knobs of `STORAGE_KNOBS` spike on the seeds
 *   where their buggify points fire; a family the swarm mask switched off stays off (as for the
 *   network).
 *
 * The defaults themselves are named constants of `world/storage/config.ts` (the world must be able
 * to run without the chaos layer); they are re-exported here with the rest of the storage chaos.
 */
import type { RandomStream, SeedStreams } from "../engine/rng.ts";
import { DEFAULT_STORAGE_CONFIG, validateStorageConfig, type StorageConfig } from "../world/storage/config.ts";
import type { World } from "../world/world.ts";
import type { Buggify } from "./buggify.ts";
import {
  draw,
  drawFamilyMask,
  drawScaled,
  randomLatency,
  type Draw,
  type LatencyDraw,
  type ScaledDraw,
} from "./random-draws.ts";
import type { ChaosMode } from "./chaos.ts";

const MS = 1000;
const SECOND = 1_000_000;

/** The ranges `Chaos.storage("random")` draws from (sim stream, in this order; see docs/fault-catalogue.md). */
export const RANDOM_STORAGE_RANGES = Object.freeze({
  /** 10,000–100,000 IOPS. */
  iops: [10_000, 100_001, 1] as Draw,
  /** 50–500 MB/s. */
  bandwidthBytesPerSec: [50, 501, 1_000_000] as Draw,
  /** Base latencies: start and end of the range drawn separately, the shape 1/3 each (as the network's). */
  readLatency: { startUs: [20, 100], endUs: [100, 500] } as LatencyDraw,
  writeLatency: { startUs: [50, 200], endUs: [200, 1_000] } as LatencyDraw,
  syncLatency: { startUs: [500, 2_000], endUs: [2_000, 10_000] } as LatencyDraw,
  /** Per sector read / written: 0–99 in 100,000. */
  readFaultProbability: [0, 100, 1e-5] as Draw,
  writeFaultProbability: [0, 100, 1e-5] as Draw,
  /** Per write: 0–19 in 100,000 phantom, 0–9 in 100,000 misdirected. */
  phantomWriteProbability: [0, 20, 1e-5] as Draw,
  misdirectedWriteProbability: [0, 10, 1e-5] as Draw,
  /** Per read: 0–9 in 100,000 misdirected. */
  misdirectedReadProbability: [0, 10, 1e-5] as Draw,
  /**
   * Per sync: 0–49 in 100,000 or 1–20 in 1,000 fail, half the seeds each. A bug behind one failed
   * sync among hundreds (a compaction that trusts its sync) needs rates near 1 % to show within
   * a few seeds; the rare rates stay as common for code that would give up under frequent ones.
   */
  syncFailureProbability: [
    [0, 50, 1e-5],
    [1, 21, 1e-3],
  ] as ScaledDraw,
  /**
   * Per unsynced write at a crash: 10–100 % damaged. A power cut loses most of what sits in a page
   * cache, and a missing `sync()` only shows when a crash meets the write it left exposed.
   */
  crashFaultProbability: [10, 101, 0.01] as Draw,
  /** Stall episodes: 0–99 in 100,000 per calm operation, 50–499 ms long. */
  stallProbability: [0, 100, 1e-5] as Draw,
  stallDurationUs: [50, 500, MS] as Draw,
  /** Throttle episodes: 0–99 in 100,000 per calm operation, 500–4999 ms long, IOPS and bandwidth ÷ 2–19. */
  throttleProbability: [0, 100, 1e-5] as Draw,
  throttleDurationUs: [500, 5_000, MS] as Draw,
  throttleIopsMultiplier: [2, 20, 1] as Draw,
  throttleBandwidthMultiplier: [2, 20, 1] as Draw,
  /** Of the crash-damaged writes, 0–100 % lost whole (the rest torn: one sector faulted). Drawn last. */
  crashLostWriteRatio: [0, 101, 0.01] as Draw,
});

/** The families the swarm mask may switch off, in the order of their `config`-stream draws. */
export const SWARM_STORAGE_FAMILIES = [
  "read",
  "write",
  "crash",
  "misdirectRead",
  "misdirectWrite",
  "phantom",
  "sync",
  "stall",
  "throttle",
] as const;
export type SwarmStorageFamily = (typeof SWARM_STORAGE_FAMILIES)[number];
export type StorageSwarmMask = Readonly<Record<SwarmStorageFamily, boolean>>;
/** Probability that the swarm mask switches one storage family off for a seed. */
export const SWARM_STORAGE_FAMILY_OFF_PROBABILITY = 0.5;

type StorageProbabilityField =
  | "readFaultProbability"
  | "writeFaultProbability"
  | "crashFaultProbability"
  | "misdirectedReadProbability"
  | "misdirectedWriteProbability"
  | "phantomWriteProbability"
  | "syncFailureProbability"
  | "stallProbability"
  | "throttleProbability";

/** The probability field each family is switched on and off by. */
export const STORAGE_FAMILY_PROBABILITY: Readonly<Record<SwarmStorageFamily, StorageProbabilityField>> = Object.freeze({
  read: "readFaultProbability",
  write: "writeFaultProbability",
  crash: "crashFaultProbability",
  misdirectRead: "misdirectedReadProbability",
  misdirectWrite: "misdirectedWriteProbability",
  phantom: "phantomWriteProbability",
  sync: "syncFailureProbability",
  stall: "stallProbability",
  throttle: "throttleProbability",
});

/** What `Chaos.buggifyKnobs()` spikes, with buggify ids and spike ranges `[lo, hi)`. */
export const STORAGE_KNOBS = Object.freeze({
  iops: { id: "chaos.storage.iops", range: [100, 5_000] as const, family: null },
  bandwidthBytesPerSec: { id: "chaos.storage.bandwidth", range: [1_000_000, 20_000_000] as const, family: null },
  syncFailureProbability: { id: "chaos.storage.syncFailureProbability", range: [0.05, 0.2] as const, family: "sync" },
  stallProbability: { id: "chaos.storage.stallProbability", range: [0.1, 0.5] as const, family: "stall" },
  stallDurationUs: { id: "chaos.storage.stallDuration", range: [100 * MS, 500 * MS] as const, family: "stall" },
  throttleProbability: { id: "chaos.storage.throttleProbability", range: [0.1, 0.5] as const, family: "throttle" },
  throttleDurationUs: {
    id: "chaos.storage.throttleDuration",
    range: [1 * SECOND, 5 * SECOND] as const,
    family: "throttle",
  },
  crashFaultProbability: { id: "chaos.storage.crashFaultProbability", range: [0.9, 1] as const, family: "crash" },
} satisfies Record<string, { id: string; range: readonly [number, number]; family: SwarmStorageFamily | null }>);
export type StorageKnobName = keyof typeof STORAGE_KNOBS;

/** A configuration with every parameter drawn from `sim`, in `RANDOM_STORAGE_RANGES` order. */
export function randomStorageConfig(sim: RandomStream): StorageConfig {
  const r = RANDOM_STORAGE_RANGES;
  const iops = draw(sim, r.iops);
  const bandwidthBytesPerSec = draw(sim, r.bandwidthBytesPerSec);
  const readLatencyUs = randomLatency(sim, r.readLatency);
  const writeLatencyUs = randomLatency(sim, r.writeLatency);
  const syncLatencyUs = randomLatency(sim, r.syncLatency);
  const readFaultProbability = draw(sim, r.readFaultProbability);
  const writeFaultProbability = draw(sim, r.writeFaultProbability);
  const phantomWriteProbability = draw(sim, r.phantomWriteProbability);
  const misdirectedWriteProbability = draw(sim, r.misdirectedWriteProbability);
  const misdirectedReadProbability = draw(sim, r.misdirectedReadProbability);
  const syncFailureProbability = drawScaled(sim, r.syncFailureProbability);
  const crashFaultProbability = draw(sim, r.crashFaultProbability);
  const stallProbability = draw(sim, r.stallProbability);
  const stallDurationUs = draw(sim, r.stallDurationUs);
  const throttleProbability = draw(sim, r.throttleProbability);
  const throttleDurationUs = draw(sim, r.throttleDurationUs);
  const throttleIopsMultiplier = draw(sim, r.throttleIopsMultiplier);
  const throttleBandwidthMultiplier = draw(sim, r.throttleBandwidthMultiplier);
  const crashLostWriteRatio = draw(sim, r.crashLostWriteRatio);
  return Object.freeze({
    iops,
    bandwidthBytesPerSec,
    readLatencyUs,
    writeLatencyUs,
    syncLatencyUs,
    readFaultProbability,
    writeFaultProbability,
    phantomWriteProbability,
    misdirectedWriteProbability,
    misdirectedReadProbability,
    syncFailureProbability,
    crashFaultProbability,
    crashLostWriteRatio,
    stallProbability,
    stallDurationUs,
    throttleProbability,
    throttleDurationUs,
    throttleIopsMultiplier,
    throttleBandwidthMultiplier,
  });
}

/** The swarm mask, 9 `config`-stream draws in `SWARM_STORAGE_FAMILIES` order (true = family stays on). */
export function drawStorageSwarmMask(config: RandomStream): Record<SwarmStorageFamily, boolean> {
  return drawFamilyMask(config, SWARM_STORAGE_FAMILIES, SWARM_STORAGE_FAMILY_OFF_PROBABILITY);
}

/** Switches off the families the mask left off (their probability becomes 0). */
export function applyStorageSwarmMask(config: StorageConfig, mask: StorageSwarmMask): StorageConfig {
  const off: Partial<Record<StorageProbabilityField, number>> = {};
  for (const family of SWARM_STORAGE_FAMILIES) if (!mask[family]) off[STORAGE_FAMILY_PROBABILITY[family]] = 0;
  return Object.freeze({ ...config, ...off });
}

/** The swarm configuration: the random configuration (`sim`), then the mask (`config`). */
export function swarmStorageConfig(
  sim: RandomStream,
  config: RandomStream,
): { config: StorageConfig; mask: StorageSwarmMask } {
  const random = randomStorageConfig(sim);
  const mask = Object.freeze(drawStorageSwarmMask(config));
  return { config: applyStorageSwarmMask(random, mask), mask };
}

/**
 * Buggify knobs: each knob asks buggify (`sim` draws) whether it spikes this seed, in
 * `STORAGE_KNOBS` order; knobs of families `mask` switched off are skipped (no draw).
 */
export function applyStorageKnobs(
  config: StorageConfig,
  buggify: Buggify,
  mask: StorageSwarmMask | null = null,
): { config: StorageConfig; spiked: Partial<Record<StorageKnobName, number>> } {
  const spiked: Partial<Record<StorageKnobName, number>> = {};
  const next: Partial<Record<StorageKnobName, number>> = {};
  for (const name of Object.keys(STORAGE_KNOBS) as StorageKnobName[]) {
    const { id, range, family } = STORAGE_KNOBS[name];
    if (mask !== null && family !== null && !mask[family]) continue;
    const current = config[name];
    const value = buggify.knob(id, current, range[0], range[1]);
    if (value !== current) spiked[name] = next[name] = value;
  }
  return { config: Object.freeze({ ...config, ...next }), spiked };
}

/** What a seed's storage ran with. */
export interface StorageChaosRecord {
  /** "baseline" (no Chaos.storage entry), "custom" (`.storageFaults(config)`) or the Chaos.storage mode. */
  readonly mode: "baseline" | "custom" | ChaosMode;
  /** Swarm only: each family the mask left on (true) or switched off (false). */
  readonly swarmMask: StorageSwarmMask | null;
  /** Whether `Chaos.buggifyKnobs()` applied to storage. */
  readonly buggifyKnobs: boolean;
  /** The knobs that spiked this seed, with their value. */
  readonly spikedKnobs: Readonly<Partial<Record<StorageKnobName, number>>>;
  readonly config: StorageConfig;
}

/**
 * The storage configuration of one seed. Draw order: random parameters (`sim`), the swarm mask
 * (`config`), then the knobs (`sim`, through buggify). Baseline draws nothing.
 */
export function resolveStorageChaos(
  mode: ChaosMode | null,
  knobs: boolean,
  streams: SeedStreams,
  buggify: Buggify,
  fixed: StorageConfig | null = null,
): StorageChaosRecord {
  if (mode === null) {
    if (fixed !== null) {
      return Object.freeze({ mode: "custom", swarmMask: null, buggifyKnobs: false, spikedKnobs: {}, config: fixed });
    }
    return Object.freeze({
      mode: "baseline",
      swarmMask: null,
      buggifyKnobs: false,
      spikedKnobs: {},
      config: DEFAULT_STORAGE_CONFIG,
    });
  }
  let config: StorageConfig;
  let swarmMask: StorageSwarmMask | null = null;
  if (mode === "swarm") ({ config, mask: swarmMask } = swarmStorageConfig(streams.sim, streams.config));
  else config = randomStorageConfig(streams.sim);
  let spikedKnobs: Partial<Record<StorageKnobName, number>> = {};
  if (knobs) ({ config, spiked: spikedKnobs } = applyStorageKnobs(config, buggify, swarmMask));
  validateStorageConfig(config);
  return Object.freeze({ mode, swarmMask, buggifyKnobs: knobs, spikedKnobs, config });
}

/** Installs the seed's storage configuration into the world. */
export function installStorageChaos(world: World, record: StorageChaosRecord): void {
  world.storage.setConfig(record.config);
}

/** The families whose probability is above zero in `config`, in swarm order. */
export function enabledStorageFamilies(config: StorageConfig): SwarmStorageFamily[] {
  return SWARM_STORAGE_FAMILIES.filter((family) => config[STORAGE_FAMILY_PROBABILITY[family]] > 0);
}

/** Plain JSON-safe data for the report: every value of `config` and which families are on. */
export function describeStorageConfig(config: StorageConfig): Record<string, unknown> {
  return {
    enabledFamilies: enabledStorageFamilies(config),
    iops: config.iops,
    bandwidthBytesPerSec: config.bandwidthBytesPerSec,
    readLatencyUs: structuredClone(config.readLatencyUs),
    writeLatencyUs: structuredClone(config.writeLatencyUs),
    syncLatencyUs: structuredClone(config.syncLatencyUs),
    readFaultProbability: config.readFaultProbability,
    writeFaultProbability: config.writeFaultProbability,
    phantomWriteProbability: config.phantomWriteProbability,
    misdirectedWriteProbability: config.misdirectedWriteProbability,
    misdirectedReadProbability: config.misdirectedReadProbability,
    syncFailureProbability: config.syncFailureProbability,
    crashFaultProbability: config.crashFaultProbability,
    crashLostWriteRatio: config.crashLostWriteRatio,
    stallProbability: config.stallProbability,
    stallDurationMs: config.stallDurationUs / MS,
    throttleProbability: config.throttleProbability,
    throttleDurationMs: config.throttleDurationUs / MS,
    throttleIopsMultiplier: config.throttleIopsMultiplier,
    throttleBandwidthMultiplier: config.throttleBandwidthMultiplier,
  };
}

/** One line for reports: `storage=swarm on=[read,sync] off=[...] knobs=[iops=340]`. */
export function describeStorageChaos(record: StorageChaosRecord): string {
  const parts = [`storage=${record.mode}`];
  if (record.swarmMask !== null) {
    parts.push(`on=[${SWARM_STORAGE_FAMILIES.filter((f) => record.swarmMask![f]).join(",")}]`);
    parts.push(`off=[${SWARM_STORAGE_FAMILIES.filter((f) => !record.swarmMask![f]).join(",")}]`);
  }
  if (record.buggifyKnobs) {
    parts.push(
      `knobs=[${Object.entries(record.spikedKnobs)
        .map(([k, v]) => `${k}=${Number(v).toPrecision(3)}`)
        .join(",")}]`,
    );
  }
  parts.push(`faults=[${enabledStorageFamilies(record.config).join(",")}]`);
  return parts.join(" ");
}
