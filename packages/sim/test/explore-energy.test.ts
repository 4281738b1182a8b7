import { describe, expect, it } from "vitest";
import {
  InvalidConfiguration,
  SimulationBuilder,
  assertAlways,
  assertSometimesEach,
  type SimContext,
  type Workload,
} from "../src/index.ts";
import { Frontier } from "../src/internal.ts";
import type { Discovery } from "../src/chaos/assertions/index.ts";
import { GatedBug } from "./fixtures/gated-explore.sim.ts";

function discovery(key: string, drawCount: number, kind: Discovery["kind"] = "newBucket"): Discovery {
  return { kind, message: key, key, segment: 0, drawCount, seed: 1 };
}

/** A frontier over fixed visit counts: `visits[key]`, 0 when absent. */
function frontierOf(visits: Record<string, number>, entryEnergy: number): Frontier {
  return new Frontier(64, 8, (key) => visits[key] ?? 0, entryEnergy);
}

describe("frontier energy", () => {
  it("off (0): the rarest entry is chosen, whatever its age", () => {
    const frontier = frontierOf({ old: 1, young: 9 }, 0);
    frontier.addDiscoveries([], [discovery("old", 10), discovery("young", 20)]);
    expect(frontier.select()!.discovery.key).toBe("old");
  });

  it("on: the newest entry with energy is chosen first, then rarity decides", () => {
    const frontier = frontierOf({ old: 1, young: 9, newest: 50 }, 8);
    frontier.addDiscoveries([], [discovery("old", 10), discovery("young", 20)]);
    frontier.addDiscoveries([], [discovery("newest", 30, "betterQuality")]);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      const entry = frontier.select()!;
      order.push(entry.discovery.key);
      frontier.recordBatch(entry, false, 4);
    }
    // Two batches of 4 spend each entry's 8: newest, then young, then old; then the rarest (old).
    expect(order).toEqual(["newest", "newest", "young", "young", "old", "old"]);
    expect(frontier.select()!.discovery.key).toBe("old");
  });

  it("a productive batch spends energy like any other: energy is a fixed share, not a streak", () => {
    const frontier = frontierOf({ a: 5 }, 4);
    frontier.addDiscoveries([], [discovery("a", 1)]);
    const entry = frontier.select()!;
    frontier.recordBatch(entry, true, 4);
    expect(entry.energy).toBe(0);
  });
});

/**
 * Progress reported as the quality of four busy buckets (like a walker's "has the key"): every
 * improvement is a discovery, but its bucket's visits make it look common to rarity alone.
 */
class Climb implements Workload {
  readonly name = "climb";
  async run(ctx: SimContext): Promise<void> {
    let level = 0;
    for (let step = 0; step < 40; step++) {
      if (ctx.random.randomRatio() < 0.05) level++;
      assertSometimesEach("climb", { phase: step % 4 }, { level });
    }
    await ctx.time.sleep(1);
    assertAlways(level < 6, "climb bug: level 6");
  }
}

describe("exploration with entryEnergy", () => {
  const explored = (seed: number, entryEnergy: number, workload: () => Workload = () => new GatedBug()) =>
    new SimulationBuilder()
      .workloadFactory(workload)
      .enableExploration({ workers: 0, maxRunsPerSeed: 300, maxFrontier: 64, maxRecipeLen: 8, entryEnergy })
      .setDebugSeeds([seed])
      .setIterations(1)
      .run();

  it("finds the gated bug, and the same seed twice explores identically", async () => {
    const a = await explored(5, 16);
    const b = await explored(5, 16);
    expect(a.exploration!.bugsFound).toBe(1);
    expect(a.exploration!.config.entryEnergy).toBe(16);
    expect(JSON.stringify(b.exploration)).toBe(JSON.stringify(a.exploration));
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
  });

  it("changes the search (against entryEnergy 0), and two seeds explore differently", async () => {
    const on = await explored(5, 16, () => new Climb());
    const off = await explored(5, 0, () => new Climb());
    const other = await explored(6, 16, () => new Climb());
    expect(off.exploration!.config.entryEnergy).toBe(0);
    expect(on.exploration!.bugsFound).toBe(1);
    // The same discoveries followed in another order: the bug is found at another timeline.
    expect(on.exploration!.perSeed[0]!.firstBugAtTimeline).not.toBe(off.exploration!.perSeed[0]!.firstBugAtTimeline);
    expect(on.exploration!.frontierSizes).not.toEqual(off.exploration!.frontierSizes);
    expect(other.exploration!.bugRecipes[0]?.recipe).not.toBe(on.exploration!.bugRecipes[0]!.recipe);
  });

  it("refuses a negative or fractional entryEnergy, saying what it must be", () => {
    for (const bad of [-1, 1.5]) {
      expect(() => new SimulationBuilder().enableExploration({ entryEnergy: bad })).toThrow(InvalidConfiguration);
      expect(() => new SimulationBuilder().enableExploration({ entryEnergy: bad })).toThrow(
        /entryEnergy.*0 \(rarity only\) or a positive number of continuations/,
      );
    }
  });
});
