import { describe, expect, it } from "vitest";
import { yjsSyncSimulation } from "./simulation.ts";

const ASSERTIONS = [
  "an insert was acknowledged",
  "a peer reconnected to another after its connection broke",
  "every document has its own clientID",
  "every document converges after the chaos window",
  "no acknowledged insert is lost",
];

describe("yjs-sync example (unmodified Yjs on the virtual Node runtime)", () => {
  it("passes 50 fixed seeds under network chaos and reaches every assertion", async () => {
    const report = await yjsSyncSimulation().setBaseSeed(1).setIterations(50).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    for (const message of ASSERTIONS) expect(status[message], message).toBe("PASS");
  });

  it("finds the planted missing resync within 40 seeds, and replays it with the same trace hash", async () => {
    const bug = { bug: "no-resync-on-reconnect" } as const;
    const report = await yjsSyncSimulation(bug).setBaseSeed(1).setIterations(40).run();
    expect(report.failedRuns).toBeGreaterThan(0);
    expect(report.assertionViolations.join("\n")).toContain("every document converges after the chaos window");
    const failing = report.seeds.find((s) => !s.ok)!;
    const replay = await yjsSyncSimulation(bug).setDebugSeeds([failing.seed]).setIterations(1).run();
    expect(replay.failedRuns).toBe(1);
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
  });

  it("runs 50 seeds twice to identical trace hashes (Yjs clientIDs, timers and clocks included)", async () => {
    const first = await yjsSyncSimulation().setBaseSeed(7).setIterations(50).run();
    const second = await yjsSyncSimulation().setBaseSeed(7).setIterations(50).run();
    expect(second.seeds.map((s) => s.traceHash)).toEqual(first.seeds.map((s) => s.traceHash));
    expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(50);
  });
});
