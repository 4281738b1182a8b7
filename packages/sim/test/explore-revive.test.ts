import { describe, expect, it } from "vitest";
import { InvalidConfiguration, SimulationBuilder } from "../src/index.ts";
import { Frontier } from "../src/internal.ts";
import { MAX_UNPRODUCTIVE_BATCHES } from "../src/explore/index.ts";
import type { Discovery } from "../src/chaos/assertions/index.ts";
import { Vault } from "./fixtures/vault.ts";

function discovery(key: string, drawCount: number): Discovery {
  return { kind: "newBucket", message: key, key, segment: 0, drawCount, seed: 1 };
}

/** Runs batches of 4 unproductive continuations on the selected entry until it retires. */
function retireSelected(frontier: Frontier): string {
  const entry = frontier.select()!;
  for (let i = 0; i < MAX_UNPRODUCTIVE_BATCHES; i++) frontier.recordBatch(entry, false, 4);
  return entry.discovery.key;
}

describe("frontier revival", () => {
  it("on: retired entries are kept and the rarest comes back with a new allowance", () => {
    const visits: Record<string, number> = { common: 9, rare: 2 };
    const frontier = new Frontier(64, 8, (key) => visits[key] ?? 0, 0, true);
    frontier.addDiscoveries([], [discovery("common", 10), discovery("rare", 20)]);
    expect([retireSelected(frontier), retireSelected(frontier)]).toEqual(["rare", "common"]);
    expect(frontier.size).toBe(0);
    expect(frontier.retiredSize).toBe(2);
    expect(frontier.select()).toBeUndefined();

    const revived = frontier.revive()!;
    expect(revived.discovery.key).toBe("rare");
    expect(revived.unproductiveBatches).toBe(0);
    expect(frontier.select()).toBe(revived);
    expect([frontier.size, frontier.retiredSize, frontier.revived]).toEqual([1, 1, 1]);
    // It retires again after a full allowance, and can come back again.
    expect(retireSelected(frontier)).toBe("rare");
    expect(frontier.retired).toBe(3);
    expect(frontier.revive()!.discovery.key).toBe("rare");
  });

  it("on: at most maxFrontier retired entries are kept, the most visited dropped first", () => {
    const visits: Record<string, number> = { a: 1, b: 5, c: 3 };
    const frontier = new Frontier(2, 8, (key) => visits[key] ?? 0, 0, true);
    frontier.addDiscoveries([], [discovery("a", 1), discovery("b", 2)]);
    retireSelected(frontier);
    retireSelected(frontier);
    frontier.addDiscoveries([], [discovery("c", 3)]);
    retireSelected(frontier);
    expect(frontier.retiredSize).toBe(2);
    expect([frontier.revive()!.discovery.key, frontier.revive()!.discovery.key]).toEqual(["a", "c"]);
    expect(frontier.revive()).toBeUndefined();
  });

  it("off (the default): retired entries are gone and nothing can be revived", () => {
    const frontier = new Frontier(64, 8, () => 0);
    frontier.addDiscoveries([], [discovery("a", 1)]);
    retireSelected(frontier);
    expect([frontier.size, frontier.retiredSize, frontier.retired]).toEqual([0, 0, 1]);
    expect(frontier.revive()).toBeUndefined();
  });
});

describe("exploration with reviveRetired", () => {
  const explored = (seed: number, reviveRetired?: boolean, entriesPerRound = 1) =>
    new SimulationBuilder()
      .workloadFactory(() => new Vault())
      .enableExploration({
        workers: 0,
        maxRunsPerSeed: 1500,
        maxFrontier: 64,
        maxRecipeLen: 8,
        entriesPerRound,
        ...(reviveRetired === undefined ? {} : { reviveRetired }),
      })
      .setDebugSeeds([seed])
      .setIterations(1)
      .run();

  it("off: once the lock's entry retires the budget goes to fresh timelines, which miss the vault", async () => {
    const off = (await explored(2, false)).exploration!;
    expect(off.config.reviveRetired).toBe(false);
    expect(off.perSeed[0]!.firstBugAtTimeline).toBeNull();
    expect(off.entriesRetired).toBe(2);
    expect(off.entriesRevived).toBe(0);
    expect(off.freshTimelines).toBeGreaterThan(1000);
    // The default is off: leaving the option out explores identically.
    const unset = (await explored(2)).exploration!;
    expect(JSON.stringify(unset)).toBe(JSON.stringify(off));
  });

  it("on: revived entries open the vault; fresh timelines still get half of each dry spell", async () => {
    const on = (await explored(2, true)).exploration!;
    expect(on.config.reviveRetired).toBe(true);
    expect(on.perSeed[0]!.firstBugAtTimeline).toBe(327);
    expect(on.bugRecipes[0]!.property).toBe("vault bug: the lock opened");
    expect(on.entriesRevived).toBe(5);
    expect(on.freshTimelines).toBeGreaterThan(500);
    // Root seed 6 too is found only with revival.
    const off6 = (await explored(6, false)).exploration!;
    const on6 = (await explored(6, true)).exploration!;
    expect([off6.perSeed[0]!.firstBugAtTimeline, on6.perSeed[0]!.firstBugAtTimeline]).toEqual([null, 721]);
  });

  it("the same seed twice explores identically, and two seeds explore differently", async () => {
    const a = await explored(4, true);
    const b = await explored(4, true);
    expect(JSON.stringify(b.exploration)).toBe(JSON.stringify(a.exploration));
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    const other = await explored(2, true);
    expect(other.exploration!.bugRecipes[0]!.recipe).not.toBe(a.exploration!.bugRecipes[0]!.recipe);
    // (The vault's trace records no drawn value, so failing timelines share a trace hash.)
    expect(other.exploration!.perSeed[0]!.firstBugAtTimeline).not.toBe(a.exploration!.perSeed[0]!.firstBugAtTimeline);
  });

  it("with rounds of several entries: revived entries fill a round slot by slot, deterministically", async () => {
    const a = (await explored(2, true, 3)).exploration!;
    const b = (await explored(2, true, 3)).exploration!;
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.entriesRevived).toBeGreaterThan(0);
    expect(a.freshTimelines).toBeGreaterThan(0);
    // Without revival the same rounds never bring a retired entry back.
    const off = (await explored(2, false, 3)).exploration!;
    expect(off.entriesRevived).toBe(0);
    expect(JSON.stringify(off)).not.toBe(JSON.stringify(a));
  });

  it("refuses a reviveRetired that is not a boolean, saying what it must be", () => {
    const bad = { reviveRetired: "yes" } as unknown as { reviveRetired: boolean };
    expect(() => new SimulationBuilder().enableExploration(bad)).toThrow(InvalidConfiguration);
    expect(() => new SimulationBuilder().enableExploration(bad)).toThrow(/reviveRetired.*must be true or false/);
  });
});
