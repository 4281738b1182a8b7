/**
 * Storage chaos configurations: the baseline, `random` (every value within its
 * range), `swarm` (9 config-stream draws in the documented order, each family on for about half of
 * the seeds), the buggify knobs, validation, and the report description.
 */
import { describe, expect, it } from "vitest";
import { InvalidConfiguration } from "@moonpool/core";
import { seedStreams, RandomStream, STREAM_KEYS } from "../src/engine/rng.ts";
import { Buggify } from "../src/chaos/buggify.ts";
import {
  applyStorageKnobs,
  describeStorageChaos,
  describeStorageConfig,
  enabledStorageFamilies,
  installStorageChaos,
  randomStorageConfig,
  resolveStorageChaos,
  STORAGE_FAMILY_PROBABILITY,
  STORAGE_KNOBS,
  SWARM_STORAGE_FAMILIES,
  swarmStorageConfig,
} from "../src/chaos/storage-config.ts";
import {
  DEFAULT_STORAGE_CONFIG,
  validateStorageConfig,
  withoutStorageFaults,
  type StorageConfig,
} from "../src/world/storage/config.ts";
import { World } from "../src/world/world.ts";

const SEEDS = 1_000;

describe("storage configurations", () => {
  it("the baseline has the default timing and every fault family off", () => {
    expect(DEFAULT_STORAGE_CONFIG).toMatchObject({
      iops: 25_000,
      bandwidthBytesPerSec: 150_000_000,
      readLatencyUs: { shape: "uniform", rangeUs: [50, 200] },
      writeLatencyUs: { shape: "uniform", rangeUs: [100, 500] },
      syncLatencyUs: { shape: "uniform", rangeUs: [1_000, 5_000] },
    });
    expect(enabledStorageFamilies(DEFAULT_STORAGE_CONFIG)).toEqual([]);
    expect(new World({ seed: 1 }).storage.config).toBe(DEFAULT_STORAGE_CONFIG);
  });

  it("random mode draws every value within its documented range, from the sim stream only", () => {
    for (let seed = 0; seed < 300; seed++) {
      const streams = seedStreams(seed);
      const c = randomStorageConfig(streams.sim);
      expect(streams.config.totalCalls).toBe(0);
      validateStorageConfig(c);
      expect(c.iops).toBeGreaterThanOrEqual(10_000);
      expect(c.iops).toBeLessThanOrEqual(100_000);
      expect(c.bandwidthBytesPerSec).toBeGreaterThanOrEqual(50e6);
      expect(c.bandwidthBytesPerSec).toBeLessThanOrEqual(500e6);
      expect(c.readFaultProbability).toBeLessThan(100e-5);
      expect(c.writeFaultProbability).toBeLessThan(100e-5);
      expect(c.phantomWriteProbability).toBeLessThan(20e-5);
      expect(c.misdirectedWriteProbability).toBeLessThan(10e-5);
      expect(c.misdirectedReadProbability).toBeLessThan(10e-5);
      // Two scales: rare (below 0.05 %) or 0.1–2 % per sync.
      const rare = c.syncFailureProbability < 50e-5;
      expect(rare || (c.syncFailureProbability >= 1e-3 && c.syncFailureProbability <= 20e-3)).toBe(true);
      expect(c.crashFaultProbability).toBeGreaterThanOrEqual(0.1);
      expect(c.crashFaultProbability).toBeLessThanOrEqual(1);
      expect(c.crashLostWriteRatio).toBeGreaterThanOrEqual(0);
      expect(c.crashLostWriteRatio).toBeLessThanOrEqual(1);
      expect(c.stallProbability).toBeLessThan(100e-5);
      expect(c.stallDurationUs).toBeGreaterThanOrEqual(50_000);
      expect(c.stallDurationUs).toBeLessThan(500_000);
      expect(c.throttleDurationUs).toBeGreaterThanOrEqual(500_000);
      expect(c.throttleDurationUs).toBeLessThan(5_000_000);
      for (const m of [c.throttleIopsMultiplier, c.throttleBandwidthMultiplier]) {
        expect(m).toBeGreaterThanOrEqual(2);
        expect(m).toBeLessThan(20);
      }
      const sync = c.syncLatencyUs;
      const syncStartUs =
        sync.shape === "uniform" ? sync.rangeUs[0] : sync.shape === "exponential" ? sync.minUs : sync.fastUs[0];
      expect(syncStartUs).toBeGreaterThanOrEqual(500);
      expect(syncStartUs).toBeLessThan(2_000);
    }
  });

  it("random mode fails syncs at 0.1–2 % on about half the seeds, and rarely (below 0.05 %) on the others", () => {
    const rates = Array.from(
      { length: 1_000 },
      (_, seed) => randomStorageConfig(seedStreams(seed).sim).syncFailureProbability,
    );
    const percentScale = rates.filter((p) => p >= 1e-3).length;
    expect(percentScale).toBeGreaterThan(430);
    expect(percentScale).toBeLessThan(570);
    expect(rates.filter((p) => p >= 0.9e-2 && p <= 1.1e-2).length).toBeGreaterThan(0);
  });

  it("random mode mixes the three latency shapes, about a third each", () => {
    const shapes: Record<string, number> = { uniform: 0, exponential: 0, bimodal: 0 };
    for (let seed = 0; seed < SEEDS; seed++) shapes[randomStorageConfig(seedStreams(seed).sim).writeLatencyUs.shape]!++;
    for (const count of Object.values(shapes)) {
      expect(count).toBeGreaterThan(280);
      expect(count).toBeLessThan(390);
    }
  });

  it("swarm mode makes exactly 9 config-stream draws, in the documented family order", () => {
    const streams = seedStreams(42);
    const { mask } = swarmStorageConfig(streams.sim, streams.config);
    expect(streams.config.totalCalls).toBe(9);
    const replay = new RandomStream(42, STREAM_KEYS.config);
    const expected = SWARM_STORAGE_FAMILIES.map((family) => [family, !replay.bool(0.5)]);
    expect(Object.entries(mask)).toEqual(expected);
    expect(SWARM_STORAGE_FAMILIES).toEqual([
      "read",
      "write",
      "crash",
      "misdirectRead",
      "misdirectWrite",
      "phantom",
      "sync",
      "stall",
      "throttle",
    ]);
  });

  it(`swarm mode: each family is on in 40–60 % of ${SEEDS} seeds, and a masked-off family is exactly 0`, () => {
    const on = Object.fromEntries(SWARM_STORAGE_FAMILIES.map((f) => [f, 0])) as Record<string, number>;
    let allOff = 0;
    for (let seed = 0; seed < SEEDS; seed++) {
      const streams = seedStreams(seed);
      const { config, mask } = swarmStorageConfig(streams.sim, streams.config);
      const enabled = enabledStorageFamilies(config);
      for (const family of SWARM_STORAGE_FAMILIES) {
        if (!mask[family]) expect(config[STORAGE_FAMILY_PROBABILITY[family]]).toBe(0);
      }
      for (const family of enabled) on[family]!++;
      if (enabled.length === 0) allOff++;
    }
    for (const family of SWARM_STORAGE_FAMILIES) {
      expect(on[family], family).toBeGreaterThanOrEqual(0.4 * SEEDS);
      expect(on[family], family).toBeLessThanOrEqual(0.6 * SEEDS);
    }
    expect(allOff).toBeGreaterThan(0); // the all-off subset is allowed
    expect(allOff).toBeLessThan(10);
  });

  it("buggify knobs spike within their ranges on some seeds, leave others alone, and skip masked-off families", () => {
    const spikes: Record<string, number> = {};
    for (let seed = 0; seed < SEEDS; seed++) {
      const streams = seedStreams(seed);
      const base = randomStorageConfig(streams.sim);
      const { config, spiked } = applyStorageKnobs(base, new Buggify(streams.sim));
      for (const [name, value] of Object.entries(spiked) as [keyof typeof STORAGE_KNOBS, number][]) {
        spikes[name] = (spikes[name] ?? 0) + 1;
        const [lo, hi] = STORAGE_KNOBS[name].range;
        expect(value).toBeGreaterThanOrEqual(lo);
        expect(value).toBeLessThan(hi);
        expect(config[name]).toBe(value);
      }
      for (const name of Object.keys(STORAGE_KNOBS) as (keyof typeof STORAGE_KNOBS)[]) {
        if (!(name in spiked)) expect(config[name]).toBe(base[name]);
      }
    }
    // Activation 50 % × firing 25 % = 12.5 % of seeds per knob.
    for (const name of Object.keys(STORAGE_KNOBS)) {
      expect(spikes[name], name).toBeGreaterThan(80);
      expect(spikes[name], name).toBeLessThan(180);
    }
    const streams = seedStreams(1);
    const allOff = Object.fromEntries(SWARM_STORAGE_FAMILIES.map((f) => [f, false])) as Record<
      (typeof SWARM_STORAGE_FAMILIES)[number],
      boolean
    >;
    const before = streams.sim.totalCalls;
    const { spiked } = applyStorageKnobs(DEFAULT_STORAGE_CONFIG, new Buggify(streams.sim), allOff);
    expect(Object.keys(spiked).every((k) => k === "iops" || k === "bandwidthBytesPerSec")).toBe(true);
    expect(streams.sim.totalCalls - before).toBeLessThanOrEqual(2 * 3); // only the two unmasked knobs drew
  });

  it("resolveStorageChaos: baseline draws nothing; swarm records its mask; install sets the world's config", () => {
    const streams = seedStreams(5);
    const baseline = resolveStorageChaos(null, true, streams, new Buggify(streams.sim));
    expect(baseline).toMatchObject({ mode: "baseline", swarmMask: null, config: DEFAULT_STORAGE_CONFIG });
    expect(streams.sim.totalCalls + streams.config.totalCalls).toBe(0);
    const swarm = resolveStorageChaos("swarm", true, streams, new Buggify(streams.sim));
    expect(swarm.mode).toBe("swarm");
    expect(Object.keys(swarm.swarmMask!)).toEqual([...SWARM_STORAGE_FAMILIES]);
    expect(describeStorageChaos(swarm)).toMatch(/^storage=swarm on=\[.*\] off=\[.*\] knobs=\[.*\] faults=\[.*\]$/);
    const world = new World({ seed: 5 });
    installStorageChaos(world, swarm);
    expect(world.storage.config).toBe(swarm.config);
    // The same seed resolves to the same configuration.
    const again = seedStreams(5);
    resolveStorageChaos(null, true, again, new Buggify(again.sim));
    expect(resolveStorageChaos("swarm", true, again, new Buggify(again.sim))).toEqual(swarm);
  });

  it("describeStorageConfig is plain JSON with every value and the families that are on", () => {
    const config: StorageConfig = {
      ...DEFAULT_STORAGE_CONFIG,
      syncFailureProbability: 0.01,
      stallProbability: 0.001,
      stallDurationUs: 120_000,
    };
    const described = describeStorageConfig(config);
    expect(JSON.parse(JSON.stringify(described))).toEqual(described);
    expect(described).toMatchObject({
      enabledFamilies: ["sync", "stall"],
      iops: 25_000,
      syncFailureProbability: 0.01,
      stallDurationMs: 120,
      readLatencyUs: { shape: "uniform", rangeUs: [50, 200] },
    });
    expect(enabledStorageFamilies(withoutStorageFaults(config))).toEqual([]);
  });

  it("validation names the field that cannot work", () => {
    expect(() => validateStorageConfig({ ...DEFAULT_STORAGE_CONFIG, iops: 0 })).toThrow(InvalidConfiguration);
    expect(() => validateStorageConfig({ ...DEFAULT_STORAGE_CONFIG, readFaultProbability: 2 })).toThrow(
      /readFaultProbability/,
    );
    expect(() => validateStorageConfig({ ...DEFAULT_STORAGE_CONFIG, throttleIopsMultiplier: 0.5 })).toThrow(
      /throttleIopsMultiplier/,
    );
    expect(() =>
      validateStorageConfig({ ...DEFAULT_STORAGE_CONFIG, syncLatencyUs: { shape: "uniform", rangeUs: [10, 5] } }),
    ).toThrow(/syncLatencyUs/);
    expect(() => new World({ seed: 1 }).storage.setConfig({ ...DEFAULT_STORAGE_CONFIG, stallDurationUs: -1 })).toThrow(
      /stallDurationUs/,
    );
  });
});
