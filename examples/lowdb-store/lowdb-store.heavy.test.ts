/**
 * Tier 2 (docs/contributing.md, "Test tiers"): the fsync-ing lowdb store over 2,000 seeds of crash
 * attrition on a disk that loses half of what is unsynced at a power cut. lowdb-store.test.ts shows
 * the same property on 20 seeds, where lowdb's own JSONFile fails at the first.
 */
import { describe, expect, it } from "vitest";
import { lowdbStoreSimulation } from "./simulation.ts";

describe("the fsync-ing lowdb store, at campaign size", () => {
  it("passes 2,000 seeds with crash attrition", async () => {
    const report = await lowdbStoreSimulation("fsync").setBaseSeed(1).setIterations(2_000).traceLevel("warn").run();
    expect(report.seeds).toHaveLength(2_000);
    expect(report.seeds.findIndex((s) => !s.ok)).toBe(-1);
    expect(report.seeds.filter((s) => (s.chaos.reboots?.crash ?? 0) > 0).length).toBeGreaterThan(200);
  });
});
