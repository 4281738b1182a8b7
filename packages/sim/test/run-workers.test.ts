/**
 * `SimulationBuilder.run({ workers })`: plain seeds on worker threads through the same pipeline as
 * `moonpool run`. Every seed's result (hash included) and the assertion table are those of the
 * in-thread run, for one worker or two; bad combinations fail before any seed runs.
 */
import { describe, expect, it } from "vitest";
import { InvalidConfiguration } from "@moonpool/core";
import { leaderElection } from "../../../examples/leader-election/leader-election.sim.ts";
import type { SimulationReport } from "../src/runner/report.ts";
import type { SimulationBuilder } from "../src/runner/builder.ts";

const SOURCE = new URL("../../../examples/leader-election/leader-election.sim.ts", import.meta.url).href;

function campaign(seeds: number, baseSeed: number): SimulationBuilder {
  return leaderElection.build().setIterations(seeds).setBaseSeed(baseSeed).simulationSource(SOURCE, "leaderElection");
}

function perSeed(report: SimulationReport): string[] {
  return report.seeds.map((s) => `${s.seed} ${s.ok} ${s.traceHash} ${s.eventsProcessed}`);
}

describe("run({ workers })", () => {
  it("gives every seed the hash of the in-thread run, with 1 and with 2 workers", async () => {
    const inThread = await campaign(4, 41).run();
    const oneWorker = await campaign(4, 41).run({ workers: 1 });
    const twoWorkers = await campaign(4, 41).run({ workers: 2 });
    expect(perSeed(oneWorker)).toEqual(perSeed(inThread));
    expect(perSeed(twoWorkers)).toEqual(perSeed(inThread));
    expect(twoWorkers.assertionDetails).toEqual(inThread.assertionDetails);
    // Different seeds run different timelines.
    expect(new Set(inThread.seeds.map((s) => s.traceHash)).size).toBeGreaterThan(1);
  });

  it("another base seed gives other seeds and other hashes on workers too", async () => {
    const a = await campaign(2, 41).run({ workers: 2 });
    const b = await campaign(2, 42).run({ workers: 2 });
    expect(a.seeds.map((s) => s.seed)).not.toEqual(b.seeds.map((s) => s.seed));
    expect(a.seeds.map((s) => s.traceHash)).not.toEqual(b.seeds.map((s) => s.traceHash));
  });

  it("refuses workers without a simulation source, with exploration, or not a whole number", async () => {
    const noSource = leaderElection.build().setIterations(1).setBaseSeed(1);
    await expect(noSource.run({ workers: 2 })).rejects.toThrow(
      /add \.simulationSource\(import\.meta\.url, "exportName"\)/,
    );
    await expect(campaign(1, 1).enableExploration().run({ workers: 2 })).rejects.toThrow(
      /enableExploration\(\{ workers: 2 \}\)/,
    );
    await expect(campaign(1, 1).run({ workers: -1 })).rejects.toBeInstanceOf(InvalidConfiguration);
    await expect(campaign(1, 1).run({ workers: 1.5 })).rejects.toThrow(/workers must be a whole number/);
  });
});
