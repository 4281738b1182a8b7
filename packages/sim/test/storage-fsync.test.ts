/**
 * Crash loss of unsynced writes as users dial it: `Chaos.storage` draws crash damage that finds an
 * "acknowledge before fsync" log within a few hundred seeds while a log that syncs first passes;
 * `.storageFaults(config)` fixes the configuration; `Chaos.buggifyKnobs()` raises crash damage.
 */
import { describe, expect, it } from "vitest";
import { InvalidConfiguration } from "@moonpool/core";
import { RandomStream } from "../src/engine/rng.ts";
import { randomStorageConfig } from "../src/chaos/storage-config.ts";
import {
  Chaos,
  DEFAULT_STORAGE_CONFIG,
  RANDOM_STORAGE_RANGES,
  SimulationBuilder,
  STORAGE_KNOBS,
  type SimulationReport,
} from "../src/index.ts";
import { logSimulation } from "./fixtures/fsync-log.ts";

const firstFailure = (report: SimulationReport) => report.seeds.findIndex((s) => !s.ok);

describe("crash damage ranges", () => {
  it("random: crash damage 10–100 % per unsynced write, 0–100 % of it lost whole; same stream, same draw", () => {
    const r = RANDOM_STORAGE_RANGES;
    const configs = Array.from({ length: 300 }, (_, i) => randomStorageConfig(new RandomStream(i + 1, 1n)));
    for (const c of configs) {
      expect(c.crashFaultProbability).toBeGreaterThanOrEqual(r.crashFaultProbability[0] * r.crashFaultProbability[2]);
      expect(c.crashFaultProbability).toBeLessThanOrEqual(1);
      expect(c.crashLostWriteRatio).toBeGreaterThanOrEqual(0);
      expect(c.crashLostWriteRatio).toBeLessThanOrEqual(1);
    }
    expect(Math.min(...configs.map((c) => c.crashFaultProbability))).toBeLessThan(0.2);
    expect(Math.max(...configs.map((c) => c.crashFaultProbability))).toBeGreaterThan(0.9);
    expect(new Set(configs.map((c) => c.crashLostWriteRatio)).size).toBeGreaterThan(50);
    expect(randomStorageConfig(new RandomStream(7, 1n))).toEqual(randomStorageConfig(new RandomStream(7, 1n)));
  });

  it("Chaos.buggifyKnobs() raises crash damage to 90–100 % on the seeds where its point fires", async () => {
    const report = await logSimulation("correct", [Chaos.storage("random"), Chaos.buggifyKnobs()])
      .setBaseSeed(3)
      .setIterations(40)
      .run();
    const spiked = report.seeds
      .map((s) => s.chaos.storage.spikedKnobs.crashFaultProbability)
      .filter((v) => v !== undefined);
    expect(spiked.length).toBeGreaterThan(0);
    const [lo, hi] = STORAGE_KNOBS.crashFaultProbability.range;
    expect(spiked.every((v) => v! >= lo && v! < hi)).toBe(true);
  });
});

describe("an acknowledge-before-fsync log", () => {
  // From base seed 1 the first failures are at indexes 38, 41, 65, 67, 84: 100 seeds show the bug
  // several times over, and the log that syncs first passes twice as many (2,000 in
  // storage-fsync.heavy.test.ts).
  it('fails within 100 seeds under Chaos.storage("swarm") with crash attrition', async () => {
    const report = await logSimulation("ackBeforeSync").setBaseSeed(1).setIterations(100).run();
    const index = firstFailure(report);
    expect(index).toBeGreaterThanOrEqual(0);
    expect(report.seeds[index]!.failures[0]!.message).toMatch(/no acknowledged record is lost silently/);
  });

  it("off: passes without storage faults (crashes keep every unsynced write)", async () => {
    const report = await logSimulation("ackBeforeSync", []).setBaseSeed(1).setIterations(100).run();
    expect(firstFailure(report)).toBe(-1);
    expect(report.seeds.some((s) => (s.chaos.reboots?.crash ?? 0) > 0)).toBe(true);
  });

  it("storageFaults(config) with every unsynced write lost at a crash finds it at once; recorded as custom", async () => {
    const config = { ...DEFAULT_STORAGE_CONFIG, crashFaultProbability: 1, crashLostWriteRatio: 1 };
    const report = await logSimulation("ackBeforeSync", [])
      .storageFaults(config)
      .setBaseSeed(1)
      .setIterations(40)
      .run();
    expect(firstFailure(report)).toBeGreaterThanOrEqual(0);
    expect(
      report.seeds.every(
        (s) => s.chaos.storage.mode === "custom" && s.chaos.storage.config.crashFaultProbability === 1,
      ),
    ).toBe(true);
  });

  it("storageFaults: bad input gets a typed error; it contradicts Chaos.storage", async () => {
    const builder = new SimulationBuilder();
    expect(() => builder.storageFaults({ ...DEFAULT_STORAGE_CONFIG, crashFaultProbability: 2 })).toThrow(
      InvalidConfiguration,
    );
    expect(() => builder.storageFaults({ ...DEFAULT_STORAGE_CONFIG, crashFaultProbability: 2 })).toThrow(
      /storageFaults\(config\): .*crashFaultProbability/,
    );
    expect(() => builder.storageFaults(7 as never)).toThrow(/"none" or a StorageConfig/);
    await expect(logSimulation("correct").storageFaults(DEFAULT_STORAGE_CONFIG).setIterations(1).run()).rejects.toThrow(
      /contradicts Chaos.storage/,
    );
  });
});

describe("a log that syncs before it acknowledges", () => {
  it('passes 200 seeds under Chaos.storage("swarm") with crash attrition', async () => {
    const report = await logSimulation("correct").setBaseSeed(1).setIterations(200).traceLevel("warn").run();
    expect(report.seeds).toHaveLength(200);
    expect(firstFailure(report)).toBe(-1);
    expect(report.seeds.some((s) => (s.chaos.reboots?.crash ?? 0) > 0 && s.chaos.storage.swarmMask!.crash)).toBe(true);
  });
});

describe("storage crash-damage determinism", () => {
  it("same seeds twice give identical hashes and configurations; different seeds differ", async () => {
    const seeds = Array.from({ length: 10 }, (_, i) => 500 + i);
    const run = () =>
      logSimulation("ackBeforeSync", [Chaos.storage("swarm"), Chaos.buggifyKnobs()])
        .setDebugSeeds(seeds)
        .setIterations(seeds.length)
        .run();
    const [a, b] = [await run(), await run()];
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(b.seeds.map((s) => JSON.stringify(s.chaos.storage))).toEqual(
      a.seeds.map((s) => JSON.stringify(s.chaos.storage)),
    );
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(seeds.length);
  });
});
