/**
 * Tier 2 (docs/contributing.md, "Test tiers"): the lease with a margin for the documented rate
 * bound over 2,000 seeds of clock chaos with spiked knobs. clock-chaos.test.ts shows the same
 * property on 200 seeds, where both buggy leases fail within 20.
 */
import { describe, expect, it } from "vitest";
import { Chaos } from "../src/index.ts";
import { leaseSimulation } from "./fixtures/lease.ts";

describe("a lease that trusts its own clock, at campaign size", () => {
  it('with a margin for the documented rate bound: passes 2,000 seeds of Chaos.clock("random") with spiked knobs', async () => {
    const report = await leaseSimulation("margin", [Chaos.clock("random"), Chaos.buggifyKnobs()])
      .setBaseSeed(1)
      .setIterations(2_000)
      .run();
    expect(report.seeds).toHaveLength(2_000);
    expect(report.seeds.findIndex((s) => !s.ok)).toBe(-1);
    expect(report.seeds.some((s) => Object.keys(s.chaos.clock!.spikedKnobs).length > 0)).toBe(true);
  });
});
