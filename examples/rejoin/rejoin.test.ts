/**
 * The rejoin example: the planted never-rejoin bug fails every seed as a liveness failure (its
 * own group in the report, the time it waited in the JSON), the correct membership passes the
 * same seeds, and seeds replay to their trace hashes.
 */
import { describe, expect, it } from "vitest";
import { rejoinSimulation } from "./simulation.ts";

describe("the rejoin example", () => {
  it("never-rejoin fails as liveness, grouped apart with its wait; the correct protocol passes the same seeds", async () => {
    const buggy = await rejoinSimulation({ bug: "never-rejoin" }).setBaseSeed(1).setIterations(4).run();
    expect(buggy.failedRuns).toBe(4);
    for (const seed of buggy.seeds)
      expect(seed.failures.map((f) => [f.kind, f.property, f.waitedMs])).toEqual([
        ["liveness", "every node sees every peer up", 2_000],
      ]);
    expect(buggy.assertionViolations).toEqual([]);
    expect(buggy.toString()).toContain('✗ liveness "every node sees every peer up" did not converge: 4 seeds of 4');
    const json = JSON.parse(JSON.stringify(buggy.toJSON()));
    expect(json.seeds[0].failures[0]).toMatchObject({ kind: "liveness", waitedMs: 2_000 });

    const correct = await rejoinSimulation().setBaseSeed(1).setIterations(4).run();
    expect(correct.failedRuns, correct.toString()).toBe(0);
  });

  it("the same seed twice gives the same trace hash, two seeds differ", async () => {
    const a = await rejoinSimulation().setBaseSeed(7).setIterations(2).run();
    const b = await rejoinSimulation().setBaseSeed(7).setIterations(2).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(a.seeds[0]!.traceHash).not.toBe(a.seeds[1]!.traceHash);
  });
});
