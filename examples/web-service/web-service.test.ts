import { describe, expect, it } from "vitest";
import { webServiceSimulation } from "./simulation.ts";

describe("web-service example", () => {
  it("keeps the API's promises under network chaos, and reaches every outcome", async () => {
    const report = await webServiceSimulation().setBaseSeed(1).setIterations(30).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    for (const message of [
      "health answers 200",
      "a create answers 201 or 500",
      "a read returns what was created or 500",
      "an unknown id answers 404 or 500",
      "a create answered 201",
      "a create answered 500",
      "a read answered 200 with the created value",
      "a read answered 500",
      "an unknown id answered 404",
      "an unknown id answered 500",
    ]) {
      expect(status[message], message).toBe("PASS");
    }
  });

  it("finds the planted lost write, and its seed replays to the same trace hash", async () => {
    const report = await webServiceSimulation({ lostWrite: true }).setBaseSeed(1).setIterations(20).run();
    expect(report.failedRuns).toBeGreaterThan(0);
    const failing = report.seeds.find((s) => s.failures.length > 0)!;
    expect(failing.failures[0]!.message).toContain('assertAlways("a read returns what was created or 500") failed');
    const replay = await webServiceSimulation({ lostWrite: true }).setDebugSeeds([failing.seed]).setIterations(1).run();
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
    expect(replay.failedRuns).toBe(1);
  });

  it("50 seeds run twice give identical trace hashes, and different seeds differ", async () => {
    const a = await webServiceSimulation().setBaseSeed(7).setIterations(50).run();
    const b = await webServiceSimulation().setBaseSeed(7).setIterations(50).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(50);
  });

  it("yielding to the real event loop after every step gives the same timelines (Node's streams settle within a step)", async () => {
    const fast = await webServiceSimulation().setBaseSeed(3).setIterations(5).run();
    const paranoid = await webServiceSimulation().setBaseSeed(3).setIterations(5).steppingMode("paranoid").run();
    expect(paranoid.seeds.map((s) => s.traceHash)).toEqual(fast.seeds.map((s) => s.traceHash));
  });
});
