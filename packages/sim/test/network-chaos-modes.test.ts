/**
 * Which network configuration each seed runs with: the baseline without a Chaos entry, random and
 * swarm draws, buggify knobs; each family fires through the runner when its configuration enables
 * it and never when it is off; the configuration used is in the seed's result and the report.
 */
import { describe, expect, it } from "vitest";
import { seedStreams } from "../src/engine/rng.ts";
import { Buggify } from "../src/chaos/buggify.ts";
import { resolveNetworkChaos, type NetworkChaosRecord } from "../src/chaos/network-chaos.ts";
import {
  Chaos,
  NETWORK_BASELINE,
  NETWORK_FAULT_KINDS,
  NETWORK_KNOBS,
  NETWORK_NO_FAULTS,
  RANDOM_NETWORK_RANGES,
  SIM_FAULT_EVENT_NAME,
  SimulationBuilder,
  SWARM_NETWORK_FAMILIES,
  TraceCursor,
  type ChaosPlan,
  type NetworkConfig,
  type SimulationReport,
} from "../src/index.ts";
import { EchoClient, EchoServer } from "./fixtures/chaos-echo.ts";

const K = NETWORK_FAULT_KINDS;

function record(plan: ChaosPlan, seed: number): { rec: NetworkChaosRecord; configDraws: number } {
  const streams = seedStreams(seed);
  const rec = resolveNetworkChaos(plan, "baseline", streams, new Buggify(streams.sim));
  return { rec, configDraws: streams.config.totalCalls };
}

const SEEDS_1000 = Array.from({ length: 1000 }, (_, i) => i);

describe("network configuration per seed", () => {
  it("no Chaos.network entry: the baseline, without any draw", () => {
    const { rec } = record({ network: null, buggifyKnobs: false }, 1);
    expect(rec.mode).toBe("baseline");
    expect(rec.config).toBe(NETWORK_BASELINE);
    expect(NETWORK_BASELINE).toMatchObject({
      connectFailureMode: "probabilistic",
      connectFailureProbability: 0.5,
      partialWriteMaxBytes: 1000,
      partialReadMaxBytes: 1000,
      bitFlipProbability: 0.0001,
      bitFlipMinBits: 1,
      bitFlipMaxBits: 32,
      bitFlipCooldownUs: 0,
      randomCloseProbability: 0.00001,
      randomCloseCooldownUs: 5_000_000,
      randomCloseExplicitRatio: 0.3,
      clogProbability: 0,
      clogDurationUs: [100_000, 300_000],
      partitionProbability: 0,
      partitionDurationUs: [200_000, 2_000_000],
      partitionStrategy: "random",
      clockDriftEnabled: true,
      clockDriftMaxUs: 100_000,
      buggifiedDelayEnabled: true,
      buggifiedDelayMaxUs: 100_000,
      buggifiedDelayProbability: 0.25,
      pairLatencyUs: [0, 0],
    });
    expect(NETWORK_BASELINE.latency.connect).toEqual({ shape: "uniform", rangeUs: [1_000, 11_000] });
  });

  it("random: every parameter drawn per seed within the documented ranges, all modes, strategies and shapes reached", () => {
    const seen = { modes: new Set<string>(), strategies: new Set<string>(), shapes: new Set<string>() };
    const within = (x: number, [lo, hi, scale]: readonly [number, number, number]) =>
      x >= lo * scale - 1e-12 && x <= (hi - 1) * scale + 1e-12;
    const r = RANDOM_NETWORK_RANGES;
    const configs = new Set<string>();
    for (const seed of SEEDS_1000.slice(0, 300)) {
      const { rec, configDraws } = record({ network: "random", buggifyKnobs: false }, seed);
      const c = rec.config;
      expect(rec.mode).toBe("random");
      expect(rec.swarmMask).toBeNull();
      expect(configDraws).toBe(0); // random mode draws from the sim stream only
      configs.add(JSON.stringify(c));
      expect(within(c.clogProbability, r.clogProbability)).toBe(true);
      expect(within(c.partitionProbability, r.partitionProbability)).toBe(true);
      expect(within(c.bitFlipProbability, r.bitFlipProbability)).toBe(true);
      expect(within(c.randomCloseProbability, r.randomCloseProbability)).toBe(true);
      expect(within(c.randomCloseExplicitRatio, r.randomCloseExplicitRatio)).toBe(true);
      expect(within(c.buggifiedDelayProbability, r.buggifiedDelayProbability)).toBe(true);
      expect(within(c.connectFailureProbability, r.connectFailureProbability)).toBe(true);
      expect(
        within(c.partialWriteMaxBytes, r.partialWriteMaxBytes) && within(c.partialReadMaxBytes, r.partialReadMaxBytes),
      ).toBe(true);
      expect(c.clockDriftEnabled && within(c.clockDriftMaxUs, r.clockDriftMaxUs)).toBe(true);
      expect(c.buggifiedDelayEnabled && within(c.buggifiedDelayMaxUs, r.buggifiedDelayMaxUs)).toBe(true);
      expect(c.pairLatencyUs[0]).toBe(0);
      expect(c.pairLatencyUs[1]).toBeLessThan(100_000);
      expect(c.clogDurationUs[0]).toBeGreaterThanOrEqual(50_000);
      expect(c.clogDurationUs[1]).toBeGreaterThan(c.clogDurationUs[0]);
      expect(c.partitionDurationUs[0]).toBeGreaterThanOrEqual(100_000);
      expect(c.partitionDurationUs[1]).toBeLessThan(3_000_000);
      seen.modes.add(c.connectFailureMode);
      seen.strategies.add(c.partitionStrategy);
      for (const op of ["bind", "accept", "connect", "write"] as const) seen.shapes.add(c.latency[op].shape);
    }
    expect(configs.size).toBe(300);
    expect(seen.modes).toEqual(new Set(["disabled", "alwaysFail", "probabilistic"]));
    expect(seen.strategies).toEqual(new Set(["random", "uniformSize", "isolateSingle"]));
    expect(seen.shapes).toEqual(new Set(["uniform", "exponential", "bimodal"]));
  });

  it("swarm over 1,000 seeds: 8 config-stream draws, each family on in 40–60 % of seeds, the all-off subset occurs", () => {
    const on = Object.fromEntries(SWARM_NETWORK_FAMILIES.map((f) => [f, 0])) as Record<string, number>;
    let allOff = 0;
    for (const seed of SEEDS_1000) {
      const { rec, configDraws } = record({ network: "swarm", buggifyKnobs: false }, seed);
      expect(configDraws).toBe(8);
      const mask = rec.swarmMask!;
      for (const f of SWARM_NETWORK_FAMILIES) if (mask[f]) on[f]!++;
      if (SWARM_NETWORK_FAMILIES.every((f) => !mask[f])) {
        allOff++;
        const c = rec.config;
        expect([
          c.clogProbability,
          c.partitionProbability,
          c.bitFlipProbability,
          c.randomCloseProbability,
          c.connectFailureProbability,
        ]).toEqual([0, 0, 0, 0, 0]);
        expect([c.connectFailureMode, c.clockDriftEnabled, c.buggifiedDelayEnabled, c.pairLatencyUs]).toEqual([
          "disabled",
          false,
          false,
          [0, 0],
        ]);
      }
      // A family the mask switched off is off in the configuration; one left on keeps its random value.
      const random = record({ network: "random", buggifyKnobs: false }, seed).rec.config;
      expect(rec.config.clogProbability).toBe(mask.clog ? random.clogProbability : 0);
      expect(rec.config.partitionProbability).toBe(mask.partition ? random.partitionProbability : 0);
      expect(rec.config.clockDriftEnabled).toBe(mask.clockDrift);
    }
    for (const f of SWARM_NETWORK_FAMILIES) {
      expect(on[f], f).toBeGreaterThanOrEqual(400);
      expect(on[f], f).toBeLessThanOrEqual(600);
    }
    expect(allOff).toBeGreaterThan(0);
  });

  it("buggifyKnobs spikes clog, partition and random-close probabilities on the seeds where their points fire", () => {
    let spikedSeeds = 0;
    for (const seed of SEEDS_1000.slice(0, 400)) {
      const { rec } = record({ network: "random", buggifyKnobs: true }, seed);
      const plain = record({ network: "random", buggifyKnobs: false }, seed).rec.config;
      expect(rec.buggifyKnobs).toBe(true);
      if (Object.keys(rec.spikedKnobs).length > 0) spikedSeeds++;
      for (const [name, value] of Object.entries(rec.spikedKnobs)) {
        const [lo, hi] = NETWORK_KNOBS[name as keyof typeof NETWORK_KNOBS].range;
        expect(value).toBeGreaterThanOrEqual(lo);
        expect(value).toBeLessThan(hi);
        expect(rec.config[name as keyof NetworkConfig]).toBe(value);
      }
      if (rec.spikedKnobs.clogProbability === undefined) expect(rec.config.clogProbability).toBe(plain.clogProbability);
    }
    // Each knob fires on 50 % × 25 % of seeds: at least one of three on roughly a third of them.
    expect(spikedSeeds).toBeGreaterThan(60);
    expect(spikedSeeds).toBeLessThan(200);
    // Swarm: a family the mask switched off stays off.
    for (const seed of SEEDS_1000.slice(0, 300)) {
      const { rec } = record({ network: "swarm", buggifyKnobs: true }, seed);
      if (!rec.swarmMask!.partition) expect(rec.config.partitionProbability).toBe(0);
      if (!rec.swarmMask!.clog) expect(rec.spikedKnobs.clogProbability).toBeUndefined();
    }
  });
});

// --- each family through the runner -----------------------------------------------------------

interface FamilyCase {
  readonly name: string;
  readonly kinds: readonly string[];
  readonly on: Partial<NetworkConfig>;
  readonly off: Partial<NetworkConfig>;
}

const FAMILIES: readonly FamilyCase[] = [
  {
    name: "connect failure (refused)",
    kinds: [K.connectRefused],
    on: { connectFailureMode: "alwaysFail" },
    off: { connectFailureMode: "disabled" },
  },
  {
    name: "connect failure (hang)",
    kinds: [K.connectHang],
    on: { connectFailureMode: "probabilistic", connectFailureProbability: 1 },
    off: { connectFailureMode: "disabled" },
  },
  {
    name: "partial write",
    kinds: [K.partialWrite],
    on: { partialWriteMaxBytes: 16 },
    off: { partialWriteMaxBytes: 0 },
  },
  { name: "partial read", kinds: [K.partialRead], on: { partialReadMaxBytes: 16 }, off: { partialReadMaxBytes: 0 } },
  { name: "bit flip", kinds: [K.bitFlip], on: { bitFlipProbability: 0.2 }, off: { bitFlipProbability: 0 } },
  {
    name: "random close",
    kinds: [K.randomClose],
    on: { randomCloseProbability: 0.05, randomCloseCooldownUs: 0 },
    off: { randomCloseProbability: 0 },
  },
  {
    name: "clog",
    kinds: [K.clog],
    on: { clogProbability: 0.2, clogDurationUs: [10_000, 50_000] },
    off: { clogProbability: 0 },
  },
  {
    name: "random partition",
    kinds: [K.partitionCreated, K.partitionHealed],
    on: { partitionProbability: 0.05, partitionDurationUs: [50_000, 200_000] },
    off: { partitionProbability: 0 },
  },
  {
    name: "clock drift",
    kinds: [K.clockDrift],
    on: { clockDriftEnabled: true, clockDriftMaxUs: 50_000 },
    off: { clockDriftEnabled: false },
  },
  {
    name: "buggified sleep delay",
    kinds: [K.sleepDelayed],
    on: { buggifiedDelayEnabled: true, buggifiedDelayMaxUs: 100_000, buggifiedDelayProbability: 1 },
    off: { buggifiedDelayEnabled: false },
  },
];

async function faultKinds(
  builder: SimulationBuilder,
  seeds = 8,
  rounds = 30,
): Promise<{ kinds: Map<string, number>; report: SimulationReport }> {
  const kinds = new Map<string, number>();
  const cursor = new TraceCursor();
  // Exact clocks: the network's families alone (its own `timer()` drift included), no clock_skew.
  const report = await builder
    .clockFaults("none")
    .processes(1, () => new EchoServer())
    .workloadFactory(() => new EchoClient({ rounds, timeoutMs: 2_000 }))
    .invariantFn("fault-kinds", (q) => {
      for (const e of q.since(SIM_FAULT_EVENT_NAME, cursor)) {
        expect(e.source).toBe("sim");
        kinds.set(e.str("kind")!, (kinds.get(e.str("kind")!) ?? 0) + 1);
      }
    })
    .beforeIteration(() => cursor.reset())
    .setBaseSeed(77)
    .setIterations(seeds)
    .run();
  return { kinds, report };
}

describe("each family through the runner", () => {
  for (const family of FAMILIES) {
    it(`${family.name}: fires with its sim_fault event when its configuration enables it, never when it is off`, async () => {
      const enabled = await faultKinds(new SimulationBuilder().networkFaults({ ...NETWORK_NO_FAULTS, ...family.on }));
      expect(enabled.report.failedRuns, enabled.report.toString()).toBe(0);
      for (const kind of family.kinds) expect(enabled.kinds.get(kind) ?? 0, kind).toBeGreaterThan(0);
      // Nothing else fires: the family is isolated.
      expect([...enabled.kinds.keys()].filter((k) => !family.kinds.includes(k))).toEqual([]);
      // The baseline with this family switched off never produces its events.
      const off = await faultKinds(
        new SimulationBuilder().networkFaults({
          ...NETWORK_BASELINE,
          ...family.off,
          clogProbability: 0.01,
          partitionProbability: 0.002,
          ...family.off,
        }),
      );
      for (const kind of family.kinds) expect(off.kinds.get(kind) ?? 0, kind).toBe(0);
      expect(off.kinds.size).toBeGreaterThan(0); // other families did fire meanwhile
    });
  }

  it("bit flips surface as checksum failures in the echo, never as silent corruption", async () => {
    const echoes = new Map<string, number>();
    const cursor = new TraceCursor();
    await new SimulationBuilder()
      .networkFaults({ ...NETWORK_NO_FAULTS, bitFlipProbability: 0.3 })
      .processes(1, () => new EchoServer())
      .workloadFactory(() => new EchoClient({ rounds: 40 }))
      .invariantFn("echo", (q) => {
        for (const name of ["echo_ok", "echo_corrupt", "echo_failed"])
          for (const _ of q.since(name, cursor)) echoes.set(name, (echoes.get(name) ?? 0) + 1);
      })
      .beforeIteration(() => cursor.reset())
      .setBaseSeed(5)
      .setIterations(6)
      .run();
    expect(echoes.get("echo_corrupt") ?? 0).toBeGreaterThan(0);
    expect(echoes.get("echo_ok") ?? 0).toBeGreaterThan(0);
  });

  it("the default (no Chaos entry) is the baseline: faults fire across seeds; networkFaults('none') has none", async () => {
    // A baseline sleep is lengthened by ≥ 1 µs about 1 time in 360: enough sleeps to see some.
    const baseline = await faultKinds(new SimulationBuilder(), 24, 60);
    expect(baseline.report.seeds.every((s) => s.chaos.network.mode === "baseline")).toBe(true);
    expect((baseline.kinds.get(K.partialRead) ?? 0) + (baseline.kinds.get(K.partialWrite) ?? 0)).toBeGreaterThan(0);
    expect(baseline.kinds.get(K.sleepDelayed) ?? 0).toBeGreaterThan(0);
    expect(baseline.kinds.get(K.clockDrift) ?? 0).toBeGreaterThan(0);
    const none = await faultKinds(new SimulationBuilder().networkFaults("none"), 12);
    expect(none.kinds.size).toBe(0);
    expect(none.report.seeds[0]!.chaos.network.mode).toBe("none");
  });
});

describe("the configuration in the report", () => {
  it("every seed's result and report.toJSON() carry mode, mask, knobs and every value; a failing seed prints them", async () => {
    const report = await new SimulationBuilder()
      .enableChaos([Chaos.network("random"), Chaos.network("swarm"), Chaos.buggifyKnobs()]) // the later network entry wins
      .chaosDuration(1_000)
      .processes(1, () => new EchoServer())
      .workloadFactory(() => ({
        name: "fails",
        async run(ctx) {
          await ctx.time.sleep(10);
          throw new Error("planted failure");
        },
      }))
      .setBaseSeed(3)
      .setIterations(3)
      .run();
    const json = report.toJSON() as { seeds: { chaos: { network: NetworkChaosRecord; chaosDurationMs: number } }[] };
    for (const [i, seed] of report.seeds.entries()) {
      expect(seed.chaos.network.mode).toBe("swarm");
      expect(seed.chaos.chaosDurationMs).toBe(1_000);
      const direct = record({ network: "swarm", buggifyKnobs: true }, seed.seed).rec;
      expect(Object.keys(direct.swarmMask!)).toEqual([...SWARM_NETWORK_FAMILIES]);
      expect(json.seeds[i]!.chaos.network.swarmMask).toEqual(seed.chaos.network.swarmMask);
      expect(Object.keys(json.seeds[i]!.chaos.network.config).sort()).toEqual(Object.keys(NETWORK_BASELINE).sort());
    }
    const text = report.toString();
    expect(text).toMatch(
      /chaos: network=swarm on=\[[a-zA-Z,]*\] off=\[[a-zA-Z,]*\] knobs=\[.*\] faults=\[.*\] window=1000ms/,
    );
    expect(JSON.parse(JSON.stringify(json)).seeds[0].chaos.network.config.latency.write.shape).toMatch(
      /uniform|exponential|bimodal/,
    );
  });
});
