/**
 * Branching on the order of same-instant events: recipe segments that reseed the `schedule`
 * stream, the shared draw clock that counts both streams, recipes written before (untagged,
 * `sim` only) still replaying, fresh timelines when a root's frontier is empty, and
 * `stopOnFailure`.
 */
import { describe, expect, it } from "vitest";
import {
  InvalidConfiguration,
  RecipeParseError,
  SimulationBuilder,
  assertAlways,
  formatRecipe,
  parseRecipe,
  type SimContext,
  type Workload,
} from "../src/index.ts";
import { RandomStream, STREAM_KEYS, seedStreams } from "../src/engine/rng.ts";
import { GatedBug } from "./fixtures/gated-explore.sim.ts";
import { RaceWorkload, raceSimulation } from "../../../examples/maze/race.ts";

const exploration = (maxRunsPerSeed: number, stopOnFailure = false) =>
  ({ workers: 0, maxRunsPerSeed, branchingFactor: 4, maxFrontier: 64, maxRecipeLen: 16, stopOnFailure }) as const;

describe("recipe text with streams", () => {
  it("round-trips tagged segments and rejects unknown streams and mixed forms", () => {
    const text = "sim+schedule:151@8837201 -> schedule:80@1293847 -> sim:3@4";
    const recipe = parseRecipe(text);
    expect(recipe).toEqual([
      { count: 151, seed: 8837201, streams: "sim+schedule" },
      { count: 80, seed: 1293847, streams: "schedule" },
      { count: 3, seed: 4, streams: "sim" },
    ]);
    expect(formatRecipe(recipe)).toBe(text);
    expect(() => parseRecipe("order:1@2")).toThrow(
      /unknown streams 'order' in segment 1.*one of sim, schedule, sim\+schedule/,
    );
    expect(() => parseRecipe("1@2 -> schedule:3@4")).toThrow(RecipeParseError);
    expect(() => parseRecipe("1@2 -> schedule:3@4")).toThrow(/mixes untagged segments/);
  });

  it("an untagged recipe counts sim draws only: schedule draws neither advance nor fire it", () => {
    const streams = seedStreams(7);
    streams.clock.setBreakpoints([{ count: 3, seed: 9 }]);
    const plainSchedule = seedStreams(7).schedule;
    for (let i = 0; i < 5; i++) expect(streams.schedule.u32()).toBe(plainSchedule.u32());
    const plainSim = seedStreams(7).sim;
    for (let i = 0; i < 3; i++) expect(streams.sim.u32()).toBe(plainSim.u32());
    expect(streams.sim.u32()).toBe(new RandomStream(9, STREAM_KEYS.sim).u32());
    expect(streams.clock.segment).toBe(1);
  });

  it("a tagged segment counts both streams and reseeds only the streams it names", () => {
    const streams = seedStreams(7);
    streams.clock.setBreakpoints([{ count: 3, seed: 9, streams: "schedule" }]);
    const plain = seedStreams(7);
    expect(streams.sim.u32()).toBe(plain.sim.u32());
    expect(streams.schedule.u32()).toBe(plain.schedule.u32());
    expect(streams.sim.u32()).toBe(plain.sim.u32());
    expect(streams.clock.calls).toBe(3);
    // The fourth draw of either stream fires the breakpoint: schedule restarts from seed 9, sim goes on.
    expect(streams.schedule.u32()).toBe(new RandomStream(9, STREAM_KEYS.schedule).u32());
    expect(streams.sim.u32()).toBe(plain.sim.u32());
    expect(streams.clock.segment).toBe(1);
    expect(streams.clock.totalCalls).toBe(5);
  });
});

describe("recipes written before schedules were explorable", () => {
  it("replay to the same failure and trace hash", async () => {
    // Produced by the explorer before tagged segments existed (GatedBug, root seed 1), when a
    // simulation without a clock setting had exact clocks: `.clockFaults("none")` today.
    const report = await new SimulationBuilder()
      .workloadFactory(() => new GatedBug())
      .clockFaults("none")
      .replayTimeline(1, "20@7701495915903741 -> 1@8962102738507020 -> 1@5232231758198729")
      .run();
    expect(report.failedRuns).toBe(1);
    expect(report.seeds[0]!.traceHash).toBe("c2e6c422");
    expect(report.seeds[0]!.failures[0]!.property).toBe("gated bug: three gates passed");
  });
});

describe("schedule branches", () => {
  const replayRace = async (seed: number, recipe: string) => {
    const workload = new RaceWorkload();
    const report = await new SimulationBuilder()
      .workloadFactory(() => workload)
      .replayTimeline(seed, recipe)
      .run();
    return { log: workload.log.join(" "), hash: report.seeds[0]!.traceHash };
  };

  it("reseeding the schedule stream changes the order of same-instant events, the same way every time", async () => {
    const root = await replayRace(3, "");
    const hashes = new Set<string>();
    const logs = new Set<string>();
    for (let s = 1; s <= 6; s++) {
      const a = await replayRace(3, `schedule:4@${s}`);
      const b = await replayRace(3, `schedule:4@${s}`);
      expect(b, "same recipe, same timeline").toEqual(a);
      hashes.add(a.hash);
      logs.add(a.log);
    }
    expect(hashes.size, "different reseeds give different timelines").toBeGreaterThan(1);
    expect([...logs].some((log) => log !== root.log)).toBe(true);
    expect([...hashes].some((h) => h !== root.hash)).toBe(true);
  });

  it("a workload that never draws from sim still gets explored: the race bug is found and replays", async () => {
    const found: string[] = [];
    for (const seed of [1, 2, 3, 4]) {
      const report = await raceSimulation()
        .enableExploration(exploration(150, true))
        .setDebugSeeds([seed])
        .setIterations(1)
        .run();
      const x = report.exploration!;
      for (const bug of x.bugRecipes) {
        expect(bug.recipe).toMatch(/^sim\+schedule:/);
        const replay = await raceSimulation().replayTimeline(bug.seed, bug.recipe).run();
        expect(replay.seeds[0]!.traceHash).toBe(bug.traceHash);
        expect(replay.failedRuns).toBe(1);
        found.push(bug.property);
      }
    }
    expect(found.length).toBeGreaterThanOrEqual(3);
    expect(new Set(found)).toEqual(new Set(["race bug: c and b finished before a"]));
  });

  it("exploration of the race is deterministic and differs between roots", async () => {
    const explore = (seed: number) =>
      raceSimulation().enableExploration(exploration(60)).setDebugSeeds([seed]).setIterations(1).run();
    const [a, b, c] = [await explore(5), await explore(5), await explore(6)];
    expect(JSON.stringify(b.exploration)).toBe(JSON.stringify(a.exploration));
    expect(JSON.stringify(c.exploration)).not.toBe(JSON.stringify(a.exploration));
  });
});

/** A bug in 1 of 40 seeds and no sometimes signal: the frontier never has anything to expand. */
class SilentBug implements Workload {
  readonly name = "silent";
  async run(ctx: SimContext): Promise<void> {
    await ctx.time.sleep(1);
    assertAlways(ctx.random.randomRatio() >= 0.025, "silent bug");
  }
}

describe("fresh timelines", () => {
  const silent = (maxRunsPerSeed: number, stopOnFailure = false) =>
    new SimulationBuilder()
      .workloadFactory(() => new SilentBug())
      .enableExploration(exploration(maxRunsPerSeed, stopOnFailure));

  it("a root with an empty frontier spends its whole budget on fresh timelines, which find what random seeds find", async () => {
    const report = await silent(200).setDebugSeeds([11]).setIterations(1).run();
    const x = report.exploration!;
    expect(x.timelines).toBe(200);
    expect(x.freshTimelines).toBe(199);
    expect(x.perSeed[0]!.firstBugAtTimeline).not.toBeNull();
    const bug = x.bugRecipes[0]!;
    expect(bug.recipe).toMatch(/^sim\+schedule:0@\d+$/);
    const replay = await new SimulationBuilder()
      .workloadFactory(() => new SilentBug())
      .replayTimeline(bug.seed, bug.recipe)
      .run();
    expect(replay.seeds[0]!.traceHash).toBe(bug.traceHash);
  });

  it("a root whose frontier has entries branches from them instead", async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() => new GatedBug())
      .enableExploration(exploration(120))
      .setDebugSeeds([2])
      .setIterations(1)
      .run();
    const x = report.exploration!;
    expect(x.timelines).toBe(120);
    expect(x.freshTimelines).toBeLessThan(x.timelines - 1);
  });
});

describe("stopOnFailure", () => {
  it("ends a root at its first failing timeline; off, the root spends its budget", async () => {
    const build = (stopOnFailure: boolean) =>
      new SimulationBuilder()
        .workloadFactory(() => new SilentBug())
        .enableExploration(exploration(200, stopOnFailure))
        .setDebugSeeds([11])
        .setIterations(1);
    const stopped = (await build(true).run()).exploration!;
    const full = (await build(false).run()).exploration!;
    const first = full.perSeed[0]!.firstBugAtTimeline!;
    expect(first).toBeLessThan(200);
    expect(stopped.perSeed[0]!.firstBugAtTimeline).toBe(first);
    expect(stopped.timelines).toBe(first);
    expect(full.timelines).toBe(200);
    expect(stopped.config.stopOnFailure).toBe(true);
  });

  it("must be a boolean", () => {
    expect(() => new SimulationBuilder().enableExploration({ stopOnFailure: "yes" as unknown as boolean })).toThrow(
      InvalidConfiguration,
    );
    expect(() => new SimulationBuilder().enableExploration({ stopOnFailure: 1 as unknown as boolean })).toThrow(
      /stopOnFailure.*true or false/,
    );
  });
});
