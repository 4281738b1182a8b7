/**
 * Determinism with storage and attrition swarm enabled: two runs of the same 100 seeds produce
 * identical trace hashes (and identical chaos records), and different seeds differ.
 */
import { describe, expect, it } from "vitest";
import { IoError, isAbortError, OpenOptions } from "@moonpool/core";
import { AttritionVictims, Chaos, SimulationBuilder, type Process, type SimContext } from "../src/index.ts";

/** Appends records to a file, syncing every few; survives I/O errors by reopening after a pause. */
class TolerantJournal implements Process {
  constructor(readonly name: string) {}
  async run(ctx: SimContext): Promise<void> {
    try {
      for (;;) {
        try {
          const file = await ctx.storage.open("journal", OpenOptions.readWriteCreate);
          let records = Math.floor((await file.size()) / 64);
          ctx.trace.info("journal_open", { records });
          for (;;) {
            await ctx.time.sleep(ctx.random.randomRange(20, 200));
            await file.write(records * 64, new Uint8Array(64).fill(records & 0xff));
            records++;
            if (records % 3 === 0) await file.sync();
          }
        } catch (error) {
          if (!(error instanceof IoError)) throw error;
          ctx.trace.info("journal_io_error", { code: error.code });
          await ctx.time.sleep(100);
        }
      }
    } catch (error) {
      if (!isAbortError(error)) throw error;
    }
  }
}

function builder(baseSeed: number, iterations: number): SimulationBuilder {
  return new SimulationBuilder()
    .processes(3, () => new TolerantJournal("journal"))
    .cluster(
      { datacenters: 1, zonesPerDatacenter: 2, machinesPerZone: 2, processesPerMachine: 1 },
      () => new TolerantJournal("node"),
    )
    .workloadFactory(() => ({ name: "clock", run: (ctx) => ctx.time.sleep(12_000) }))
    .chaosDuration(10_000)
    .enableChaos([
      Chaos.network("swarm"),
      Chaos.storage("swarm"),
      Chaos.attrition(
        { maxDead: 1, probGraceful: 1, probCrash: 2, probWipe: 1, victims: AttritionVictims.group("journal") },
        "swarm",
      ),
      Chaos.attrition({ maxDead: 2, probGraceful: 1, probCrash: 1, probWipe: 0, scope: "zone" }, "swarm"),
      Chaos.buggifyKnobs(),
    ])
    .setBaseSeed(baseSeed)
    .setIterations(iterations);
}

const campaign = (baseSeed: number, iterations: number) => builder(baseSeed, iterations).run();

describe("determinism with storage and attrition swarm", () => {
  it("two runs of 100 seeds give identical trace hashes and records; different seeds differ", async () => {
    const a = await campaign(4242, 100);
    const b = await campaign(4242, 100);
    expect(a.seeds).toHaveLength(100);
    const rebooted = a.seeds.filter((s) => (s.chaos.reboots?.restarts ?? 0) > 0).length;
    expect(rebooted).toBeGreaterThan(30);
    for (let i = 0; i < 100; i++) {
      const x = a.seeds[i]!;
      const y = b.seeds[i]!;
      expect(y.seed).toBe(x.seed);
      expect(y.traceHash, `seed ${x.seed}`).toBe(x.traceHash);
      expect(y.simDraws).toBe(x.simDraws);
      expect(y.eventsProcessed).toBe(x.eventsProcessed);
      expect(y.chaos).toEqual(x.chaos);
      expect(y.ok).toBe(x.ok);
    }
    const hashes = new Set(a.seeds.map((s) => s.traceHash));
    expect(hashes.size).toBe(100);
    const masks = new Set(a.seeds.map((s) => JSON.stringify(s.chaos.attrition.map((r) => r.swarmMask))));
    expect(masks.size).toBeGreaterThan(50);
  });

  it("checkDeterminism finds no divergent draw with reboots under way", async () => {
    const result = await builder(99, 20).checkDeterminism();
    expect(result.deterministic, JSON.stringify(result.divergences[0])).toBe(true);
    expect(result.seedsChecked).toBe(20);
  });
});
