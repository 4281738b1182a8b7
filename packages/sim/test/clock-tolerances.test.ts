/**
 * Clock faults at the tolerances real code guards: a lock service whose client trusts its own
 * clock for a lease without a drift margin fails under the baseline clocks (no clock setting at
 * all), and an HLC store that drops changes stamped more than 5 minutes ahead fails under
 * `Chaos.clock("random")`, whose offsets reach minutes. Each has a correct variant that passes the
 * same seeds, and each bug is off with exact (or sub-second) clocks. Campaign-sized runs are in
 * clock-tolerances.heavy.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Chaos, type SimulationReport } from "../src/index.ts";
import { leaseServiceSimulation } from "./fixtures/lease-no-drift-margin.ts";
import { hlcSimulation } from "./fixtures/hlc-future-guard.ts";

const failingIndexes = (report: SimulationReport) => report.seeds.flatMap((s, i) => (s.ok ? [] : [i]));

describe("lease-no-drift-margin: a client that times its lease on its own clock with no margin", () => {
  // From base seed 1 the first failing seed is index 3 (then 10, 13, 15, ... : 7 of the first 20),
  // so 4 seeds show it; the margin variant and the exact clocks pass the same 4.
  const SEEDS = 4;

  it("fails under the baseline clocks, with no chaos entry and no clock setting", async () => {
    const report = await leaseServiceSimulation("noMargin").setBaseSeed(1).setIterations(SEEDS).run();
    expect(report.seeds.every((s) => s.chaos.clock!.mode === "baseline")).toBe(true);
    expect(failingIndexes(report)).toEqual([3]);
    expect(report.seeds[3]!.failures[0]!.message).toMatch(/lease: only the latest holder acts/);
  });

  it("off: passes the same seeds with exact clocks; the margin variant passes them under the baseline", async () => {
    // Exact clocks: no clock faults, and no network baseline, whose drift lets `timer()` run ahead.
    const exact = await leaseServiceSimulation("noMargin")
      .clockFaults("none")
      .networkFaults("none")
      .setBaseSeed(1)
      .setIterations(SEEDS)
      .run();
    expect(failingIndexes(exact)).toEqual([]);
    const margin = await leaseServiceSimulation("margin").setBaseSeed(1).setIterations(SEEDS).run();
    expect(failingIndexes(margin)).toEqual([]);
    expect(margin.assertionViolations).toEqual([]);
  });
});

describe("hlc-future-guard: a store that drops changes stamped more than 5 minutes ahead", () => {
  // From base seed 1 under Chaos.clock("random") the first failing seed is index 2 (7 of the
  // first 20 fail: a third of the seeds draw offsets of minutes), so 3 seeds show it.
  const SEEDS = 3;

  it('fails under Chaos.clock("random"): a peer minutes ahead never converges with the others', async () => {
    const report = await hlcSimulation("futureGuard")
      .enableChaos([Chaos.clock("random")])
      .setBaseSeed(1)
      .setIterations(SEEDS)
      .run();
    expect(failingIndexes(report)).toEqual([2]);
    expect(report.seeds[2]!.failures[0]!.message).toMatch(/hlc: replicas converge/);
    // A minute-scale draw: offsets or wall clock steps of a minute or more.
    const c = report.seeds[2]!.chaos.clock!.config;
    expect(Math.max(c.offsetMaxUs, c.stepMaxUs)).toBeGreaterThanOrEqual(60_000_000);
  });

  it("off: the same seeds pass under the baseline clocks (offsets of ±100 ms never reach the guard)", async () => {
    const report = await hlcSimulation("futureGuard").setBaseSeed(1).setIterations(SEEDS).run();
    expect(failingIndexes(report)).toEqual([]);
  });

  it('the textbook HLC passes the same seeds of Chaos.clock("random") and 10 of swarm with spiked knobs', async () => {
    const random = await hlcSimulation("standard")
      .enableChaos([Chaos.clock("random")])
      .setBaseSeed(1)
      .setIterations(SEEDS)
      .run();
    expect(failingIndexes(random)).toEqual([]);
    const swarm = await hlcSimulation("standard")
      .enableChaos([Chaos.clock("swarm"), Chaos.buggifyKnobs()])
      .setBaseSeed(1)
      .setIterations(10)
      .run();
    expect(failingIndexes(swarm)).toEqual([]);
  });
});
