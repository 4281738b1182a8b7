import { describe, expect, it } from "vitest";
import { transportSimulation } from "./simulation.ts";

const SOMETIMES = [
  "a reply was received",
  "a maybe-delivered outcome was observed",
  "a terminal error was observed",
  "a wrong endpoint returns EndpointNotFound",
  "a fire-and-forget append was sent",
  "handled an empty block",
  "handled a max-size block",
];

const ALWAYS = [
  "the server's log is a gapless chain",
  "every reply matches the server's log",
  "the reply's hash matches the reference model",
  "an at-most-once append runs at most once",
  "a request reported never sent does not run",
  "an at-least-once append is answered after the network heals",
];

describe("transport example (hash-chained append log)", () => {
  it("passes 30 fixed seeds under network chaos and reaches every sometimes signal", async () => {
    const report = await transportSimulation().setBaseSeed(1).setIterations(30).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.assertionViolations).toEqual([]);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    for (const message of [...SOMETIMES, ...ALWAYS]) expect(status[message], message).toBe("PASS");
  });

  it("finds the planted dropped promise within 40 seeds, and replays it with the same trace hash", async () => {
    const report = await transportSimulation({ bug: "drop-promise" }).setBaseSeed(1).setIterations(40).run();
    expect(report.failedRuns).toBeGreaterThan(0);
    expect(report.assertionViolations.join("\n")).toContain("the server never drops an append's promise");
    const failing = report.seeds.find((s) => !s.ok)!;
    const replay = await transportSimulation({ bug: "drop-promise" })
      .setDebugSeeds([failing.seed])
      .setIterations(1)
      .run();
    expect(replay.failedRuns).toBe(1);
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
    expect(replay.seeds[0]!.failures).toEqual(failing.failures.map((f) => ({ ...f })));
  });

  it("runs the same seeds to identical trace hashes, and different seeds to different ones", async () => {
    const first = await transportSimulation().setBaseSeed(7).setIterations(8).run();
    const second = await transportSimulation().setBaseSeed(7).setIterations(8).run();
    expect(second.seeds.map((s) => s.traceHash)).toEqual(first.seeds.map((s) => s.traceHash));
    expect(second.seeds.map((s) => s.simulatedTimeMs)).toEqual(first.seeds.map((s) => s.simulatedTimeMs));
    expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(8);
  });
});
