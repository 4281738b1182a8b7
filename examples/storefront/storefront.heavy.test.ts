/**
 * Tier 2 (docs/contributing.md, "Test tiers"): the fsync-ing order service over 300 seeds of crash
 * attrition, DNS faults and a disk that loses half of what is unsynced at a power cut.
 * storefront.test.ts shows the same property on 12 seeds, where the lazy-fsync service fails
 * at the first.
 */
import { describe, expect, it } from "vitest";
import { orderServiceSimulation } from "./simulation.ts";

describe("the fsync-ing order service, at campaign size", () => {
  it("passes 300 seeds with crash attrition", async () => {
    const report = await orderServiceSimulation("fsync").setBaseSeed(1).setIterations(300).traceLevel("warn").run();
    expect(report.seeds).toHaveLength(300);
    expect(report.seeds.findIndex((s) => !s.ok)).toBe(-1);
    expect(report.seeds.filter((s) => (s.chaos.reboots?.crash ?? 0) > 0).length).toBeGreaterThan(100);
  });
});
