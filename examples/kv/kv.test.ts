import { describe, expect, it } from "vitest";
import { kvSimulation } from "./simulation.ts";

const SOMETIMES = [
  "a get returned another client's write",
  "a put ended with an unknown outcome",
  "a quorum read found a replica behind",
  "a replica recovered writes from its log",
  "a seed checked at least 20 operations",
  "an operation failed for lack of a quorum",
];

describe("kv example", () => {
  it("the ABD store passes 60 fixed seeds under network chaos and attrition, every history linearizable", async () => {
    const report = await kvSimulation().setBaseSeed(1).setIterations(60).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.assertionViolations).toEqual([]);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    for (const message of [...SOMETIMES, "client history is linearizable"])
      expect(status[message], message).toBe("PASS");
  });

  it("finds the planted stale-read bug through the checker, and replays it to the same hash", async () => {
    const report = await kvSimulation({ bug: "stale-read" }).setBaseSeed(1).setIterations(60).run();
    expect(report.failedRuns).toBeGreaterThan(0);
    for (const seed of report.seeds.filter((s) => !s.ok)) {
      for (const failure of seed.failures)
        expect(failure.message).toContain('assertAlways("client history is linearizable") failed');
    }
    const failing = report.seeds.find((s) => !s.ok)!;
    expect(failing.failures[0]!.message).toMatch(/cannotPlace=c\d: get → /);
    const replay = await kvSimulation({ bug: "stale-read" }).setDebugSeeds([failing.seed]).setIterations(1).run();
    expect(replay.failedRuns).toBe(1);
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
    expect(replay.seeds[0]!.failures).toEqual(failing.failures.map((f) => ({ ...f })));
  });

  it("runs the same seeds to identical trace hashes (histories included), and different seeds to different ones", async () => {
    const first = await kvSimulation().setBaseSeed(7).setIterations(12).run();
    const second = await kvSimulation().setBaseSeed(7).setIterations(12).run();
    expect(second.seeds.map((s) => s.traceHash)).toEqual(first.seeds.map((s) => s.traceHash));
    expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(12);
  });
});
