/**
 * Tier 2 (docs/contributing.md, "Test tiers"): the log that syncs before it acknowledges, over
 * 2,000 seeds of swarm storage faults with crash attrition. storage-fsync.test.ts shows the same
 * property on 200 seeds, where the acknowledge-before-fsync log fails within 100.
 */
import { describe, expect, it } from "vitest";
import { logSimulation } from "./fixtures/fsync-log.ts";

describe("a log that syncs before it acknowledges, at campaign size", () => {
  it('passes 2,000 seeds under Chaos.storage("swarm") with crash attrition', async () => {
    const report = await logSimulation("correct").setBaseSeed(1).setIterations(2_000).traceLevel("warn").run();
    expect(report.seeds).toHaveLength(2_000);
    expect(report.seeds.findIndex((s) => !s.ok)).toBe(-1);
    expect(report.seeds.some((s) => (s.chaos.reboots?.crash ?? 0) > 0 && s.chaos.storage.swarmMask!.crash)).toBe(true);
  });
});
