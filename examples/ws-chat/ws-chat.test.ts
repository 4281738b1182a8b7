import { describe, expect, it } from "vitest";
import { wsChatSimulation } from "./simulation.ts";

describe("ws-chat example (unmodified ws over the simulated node:http)", () => {
  it("50 seeds under network chaos and server crashes: no message missed, every outcome reached", async () => {
    const report = await wsChatSimulation().setBaseSeed(1).setIterations(50).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    for (const message of [
      "a member sees every message of the room once, in order",
      "after the chaos a member catches up with the room",
      "a member caught up after reconnecting",
      "a member found the room restarted",
      "a member saw its own post in the room",
      "a member's connection broke (1006)",
    ]) {
      expect(status[message], message).toBe("PASS");
    }
  });

  it("finds the planted skip on resume, and a failing seed replays to the campaign's trace hash", async () => {
    const report = await wsChatSimulation({ skipOnResume: true }).setBaseSeed(1).setIterations(20).run();
    expect(report.failedRuns).toBeGreaterThan(0);
    // The last failing seed: it ran after others in the campaign, and must not depend on them.
    const failing = report.seeds.filter((s) => s.failures.length > 0).at(-1)!;
    expect(failing.failures[0]!.message).toContain(
      'assertAlways("a member sees every message of the room once, in order") failed',
    );
    const replay = await wsChatSimulation({ skipOnResume: true }).setDebugSeeds([failing.seed]).setIterations(1).run();
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
    expect(replay.failedRuns).toBe(1);
  });

  it("30 seeds run twice give identical trace hashes, and different seeds differ", async () => {
    const a = await wsChatSimulation().setBaseSeed(7).setIterations(30).run();
    const b = await wsChatSimulation().setBaseSeed(7).setIterations(30).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(30);
  });

  it("yielding to the real event loop after every step gives the same timelines", async () => {
    const fast = await wsChatSimulation().setBaseSeed(3).setIterations(5).run();
    const paranoid = await wsChatSimulation().setBaseSeed(3).setIterations(5).steppingMode("paranoid").run();
    expect(paranoid.seeds.map((s) => s.traceHash)).toEqual(fast.seeds.map((s) => s.traceHash));
  });
});
