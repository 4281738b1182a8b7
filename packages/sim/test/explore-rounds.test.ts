/**
 * Rounds of several frontier entries (`enableExploration({ entriesPerRound })`): a round runs
 * `branchingFactor` continuations of each of the k best entries from one base table. 1 (the
 * default) is one entry per round.
 */
import { describe, expect, it } from "vitest";
import { InvalidConfiguration, SimulationBuilder } from "../src/index.ts";
import { Frontier } from "../src/internal.ts";
import type { Discovery } from "../src/chaos/assertions/index.ts";
import { GatedBug } from "./fixtures/gated-explore.sim.ts";

function discovery(key: string, drawCount: number): Discovery {
  return { kind: "newBucket", message: key, key, segment: 0, drawCount, seed: 1 };
}

const explored = (seed: number, entriesPerRound?: number) =>
  new SimulationBuilder()
    .workloadFactory(() => new GatedBug())
    .enableExploration({
      workers: 0,
      maxRunsPerSeed: 300,
      maxFrontier: 64,
      maxRecipeLen: 8,
      ...(entriesPerRound === undefined ? {} : { entriesPerRound }),
    })
    .setDebugSeeds([seed])
    .setIterations(1)
    .run();

describe("frontier selection for a round", () => {
  it("takes the best entry, then the next best, never one already taken", () => {
    const visits: Record<string, number> = { a: 3, b: 1, c: 2 };
    const frontier = new Frontier(64, 8, (key) => visits[key] ?? 0);
    frontier.addDiscoveries([], [discovery("a", 10), discovery("b", 20), discovery("c", 30)]);
    const taken = new Set([frontier.select()!]);
    taken.add(frontier.select(taken)!);
    taken.add(frontier.select(taken)!);
    expect([...taken].map((e) => e.discovery.key)).toEqual(["b", "c", "a"]);
    expect(frontier.select(taken)).toBeUndefined();
    expect(frontier.select()!.discovery.key, "without exclusions: the best").toBe("b");
  });
});

describe("exploration with entriesPerRound", () => {
  it("1 (the default) explores exactly as before: same report as leaving it out", async () => {
    const omitted = await explored(5);
    const one = await explored(5, 1);
    expect(omitted.exploration!.config.entriesPerRound).toBe(1);
    expect(JSON.stringify(one.exploration)).toBe(JSON.stringify(omitted.exploration));
    expect(one.seeds.map((s) => s.traceHash)).toEqual(omitted.seeds.map((s) => s.traceHash));
  });

  it("the same seed twice explores identically, and records the setting", async () => {
    const a = await explored(5, 4);
    const b = await explored(5, 4);
    expect(a.exploration!.config.entriesPerRound).toBe(4);
    expect(a.exploration!.timelines).toBe(300);
    expect(JSON.stringify(b.exploration)).toBe(JSON.stringify(a.exploration));
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
  });

  it("changes the search (against 1), and two seeds explore differently", async () => {
    const rounds = await explored(5, 4);
    const single = await explored(5, 1);
    const other = await explored(6, 4);
    // Siblings of a round do not see each other's discoveries: other entries, other frontier.
    expect(rounds.exploration!.frontierSizes).not.toEqual(single.exploration!.frontierSizes);
    expect(other.exploration!.frontierSizes).not.toEqual(rounds.exploration!.frontierSizes);
    expect(other.exploration!.replayOverhead).not.toEqual(rounds.exploration!.replayOverhead);
  });

  it("a round holds branchingFactor continuations of each entry taken, cut at the budget", async () => {
    // Frontier samples are taken after the root and after every round: their timeline counts
    // step by the round size (here up to 3 entries x 2 continuations, more than one entry in some
    // rounds), the last one cut at 50.
    const report = await new SimulationBuilder()
      .workloadFactory(() => new GatedBug())
      .enableExploration({ maxRunsPerSeed: 50, branchingFactor: 2, entriesPerRound: 3, maxFrontier: 64 })
      .setDebugSeeds([5])
      .setIterations(1)
      .run();
    const at = report.exploration!.frontierSizes.map(([timeline]) => timeline);
    expect(at[0]).toBe(1);
    expect(at.at(-1)).toBe(50);
    const steps = at.slice(1).map((t, i) => t - at[i]!);
    expect(Math.max(...steps)).toBeGreaterThan(2);
    expect(steps.every((s) => s >= 1 && s <= 6)).toBe(true);
  });

  it("refuses 0, negative or fractional values, saying what it must be", () => {
    for (const bad of [0, -1, 1.5]) {
      expect(() => new SimulationBuilder().enableExploration({ entriesPerRound: bad })).toThrow(InvalidConfiguration);
      expect(() => new SimulationBuilder().enableExploration({ entriesPerRound: bad })).toThrow(
        /entriesPerRound.*must be a positive integer/,
      );
    }
  });
});
