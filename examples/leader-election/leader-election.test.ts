import { describe, expect, it } from "vitest";
import { leaderElectionSimulation } from "./simulation.ts";

/** The guidance signals node.ts declares; a healthy campaign must reach every one. */
const SOMETIMES = [
  "a candidate won an election",
  "an election ended without a majority",
  "a term had more than one candidate",
  "a deposed leader stepped down",
  "elections went past the first term",
];

describe("leader-election example", () => {
  it("the correct protocol passes 30 fixed seeds and reaches every sometimes signal", async () => {
    const report = await leaderElectionSimulation().setBaseSeed(1).setIterations(30).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.assertionViolations).toEqual([]);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    for (const message of [...SOMETIMES, "one leader per term", "a leader is elected"]) {
      expect(status[message], message).toBe("PASS");
    }
  });

  // From base seed 1 the bug splits the brain at seed indexes 0, 4, 7, 8, ...: 20 seeds find it
  // several times, enough to check that every failure is the split brain and nothing else.
  it("finds the planted vote-twice bug as a split brain within 20 seeds, and replays it", async () => {
    const report = await leaderElectionSimulation({ bug: "vote-twice" }).setBaseSeed(1).setIterations(20).run();
    expect(report.failedRuns).toBeGreaterThan(0);
    expect(report.assertionViolations.join("\n")).toContain("one leader per term");
    // The bug shows up as split brain and nothing else (liveness still holds).
    for (const seed of report.seeds.filter((s) => !s.ok)) {
      for (const failure of seed.failures) expect(failure.message).toContain("one leader per term");
    }

    const failing = report.seeds.find((s) => !s.ok)!;
    const replay = await leaderElectionSimulation({ bug: "vote-twice" })
      .setDebugSeeds([failing.seed])
      .setIterations(1)
      .run();
    expect(replay.failedRuns).toBe(1);
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
    expect(replay.seeds[0]!.failures).toEqual(failing.failures.map((f) => ({ ...f })));
  });

  it("runs the same seeds to identical trace hashes, and different seeds to different ones", async () => {
    const first = await leaderElectionSimulation().setBaseSeed(42).setIterations(20).run();
    const second = await leaderElectionSimulation().setBaseSeed(42).setIterations(20).run();
    expect(second.seedsUsed).toEqual(first.seedsUsed);
    expect(second.seeds.map((s) => s.traceHash)).toEqual(first.seeds.map((s) => s.traceHash));
    expect(second.seeds.map((s) => s.simulatedTimeMs)).toEqual(first.seeds.map((s) => s.simulatedTimeMs));
    expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(20);
  });
});
