import { describe, expect, it } from "vitest";
import {
  DeterminismViolation,
  InvalidConfiguration,
  RecipeParseError,
  SimulationBuilder,
  assertReachable,
  childSeed,
  formatRecipe,
  parseRecipe,
  type SimContext,
  type Workload,
} from "../src/index.ts";
import { GatedBug } from "./fixtures/gated-explore.sim.ts";

const explored = (seeds: number[], maxRunsPerSeed = 300) =>
  new SimulationBuilder()
    .workloadFactory(() => new GatedBug())
    .enableExploration({ workers: 0, maxRunsPerSeed, branchingFactor: 4, maxFrontier: 64, maxRecipeLen: 8 })
    .setDebugSeeds(seeds)
    .setIterations(seeds.length);

describe("explorer", () => {
  it("finds a bug behind three nested 1-in-20 gates that the same number of random seeds misses", async () => {
    const report = await explored([1, 2, 3]).run();
    const x = report.exploration!;
    expect(x.bugsFound).toBeGreaterThanOrEqual(1);
    expect(report.failedRuns).toBeGreaterThanOrEqual(1);
    for (const bug of x.bugRecipes) expect(bug.recipe).toMatch(/^sim\+schedule:\d+@\d+( -> sim\+schedule:\d+@\d+)*$/);

    const random = await new SimulationBuilder()
      .workloadFactory(() => new GatedBug())
      .setBaseSeed(1)
      .setIterations(x.timelines)
      .run();
    expect(random.failedRuns).toBe(0);
  });

  it("every bug recipe replays to the same failure and trace hash on a fresh builder", async () => {
    const report = await explored([1, 2]).run();
    const bugs = report.exploration!.bugRecipes;
    expect(bugs.length).toBeGreaterThan(0);
    for (const bug of bugs) {
      const replay = await new SimulationBuilder()
        .workloadFactory(() => new GatedBug())
        .replayTimeline(bug.seed, bug.recipe)
        .run();
      expect(replay.failedRuns).toBe(1);
      expect(replay.seeds[0]!.traceHash).toBe(bug.traceHash);
      expect(replay.seeds[0]!.failures[0]!.property).toBe("gated bug: three gates passed");
      expect(replay.exploration).toBeNull();
    }
  });

  it("an explored root whose own timeline passed is recorded as its failing timeline: hash and recipe replay", async () => {
    const report = await explored([1, 2]).run();
    const failing = report.seeds.filter((s) => !s.ok);
    expect(failing.length).toBeGreaterThan(0);
    for (const seed of failing) {
      expect(seed.recipe).toMatch(/^sim\+schedule:/);
      const replay = await new SimulationBuilder()
        .workloadFactory(() => new GatedBug())
        .replayTimeline(seed.seed, seed.recipe!)
        .run();
      expect(replay.seeds[0]!.traceHash).toBe(seed.traceHash);
      expect(replay.seeds[0]!.simulatedTimeMs).toBe(seed.simulatedTimeMs);
    }
    const json = report.toJSON() as { seeds: { ok: boolean; recipe?: string }[] };
    expect(json.seeds.filter((s) => !s.ok).every((s) => typeof s.recipe === "string")).toBe(true);
    // Passing roots carry no recipe.
    expect(json.seeds.filter((s) => s.ok).some((s) => "recipe" in s)).toBe(false);
  });

  it("every failure found by exploration names its own timeline: recipe and trace hash", async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() => new GatedBug())
      .enableExploration({ maxRunsPerSeed: 300, stopOnFailure: false })
      .setDebugSeeds([1, 2, 3])
      .setIterations(3)
      .run();
    const byRecipe = new Map(report.exploration!.bugRecipes.map((b) => [`${b.seed}|${b.recipe}`, b.traceHash]));
    const explored = report.seeds.flatMap((s) =>
      s.failures.filter((f) => f.recipe !== undefined).map((f) => ({ seed: s.seed, f })),
    );
    expect(explored.length).toBeGreaterThan(0);
    for (const { seed, f } of explored) expect(f.traceHash, f.message).toBe(byRecipe.get(`${seed}|${f.recipe}`));
    // A root's own failures carry neither: they are the record's timeline.
    for (const s of report.seeds)
      for (const f of s.failures) if (f.recipe === undefined) expect(f.traceHash).toBeUndefined();
  });

  it("is deterministic: the same campaign twice gives the same bugs and statistics", async () => {
    const a = await explored([5], 200).run();
    const b = await explored([5], 200).run();
    expect(JSON.stringify(b.exploration)).toBe(JSON.stringify(a.exploration));
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
  });

  it("reports statistics: timelines, frontier over time, discoveries by kind, replay overhead", async () => {
    const report = await explored([7], 120).run();
    const x = report.exploration!;
    expect(x.timelines).toBeGreaterThan(1);
    expect(x.timelines).toBeLessThanOrEqual(120);
    expect(x.perSeed).toHaveLength(1);
    expect(x.perSeed[0]!.timelines).toBe(x.timelines);
    expect(x.discoveriesByKind.newBucket).toBeGreaterThanOrEqual(2);
    expect(x.frontierSizes.length).toBeGreaterThan(1);
    expect(x.replayOverhead.drawsReplayed).toBeGreaterThan(0);
    expect(x.replayOverhead.drawsNew).toBeGreaterThan(0);
    expect(x.config.branchingFactor).toBe(4);
    expect(report.toString()).toContain("--- Exploration ---");
  });

  it("stops at maxRunsPerSeed and keeps recipes within maxRecipeLen", async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() => new GatedBug())
      .enableExploration({ maxRunsPerSeed: 40, maxRecipeLen: 1 })
      .setDebugSeeds([3])
      .setIterations(1)
      .run();
    expect(report.exploration!.timelines).toBeLessThanOrEqual(40);
    for (const bug of report.exploration!.bugRecipes) expect(parseRecipe(bug.recipe).length).toBeLessThanOrEqual(1);
  });

  it("refuses workload(instance) with exploration, and bad options", () => {
    expect(() => new SimulationBuilder().workload(new GatedBug()).enableExploration().build()).toThrow(
      /workloadFactory/,
    );
    expect(() => new SimulationBuilder().enableExploration({ branchingFactor: 0 })).toThrow(InvalidConfiguration);
    expect(() => new SimulationBuilder().enableExploration({ maxDepth: 3 } as never)).toThrow(
      /unknown option 'maxDepth'/,
    );
  });
});

describe("recipes", () => {
  it("round-trips text and rejects malformed segments by name", () => {
    const recipe = parseRecipe("151@8837201 -> 80@1293847");
    expect(recipe).toEqual([
      { count: 151, seed: 8837201 },
      { count: 80, seed: 1293847 },
    ]);
    expect(formatRecipe(recipe)).toBe("151@8837201 -> 80@1293847");
    expect(parseRecipe("")).toEqual([]);
    expect(() => parseRecipe("151@8837201 -> 80")).toThrow(/missing '@' in segment 2 \("80"\)/);
    expect(() => parseRecipe("x@1")).toThrow(/invalid count 'x' in segment 1/);
    expect(() => parseRecipe("1@-5")).toThrow(RecipeParseError);
    expect(() => new SimulationBuilder().replayTimeline(1, "1@2 -> oops")).toThrow(/segment 2/);
  });

  it("derives different child seeds for different marks, parents and indexes", () => {
    const a = childSeed(1, [], "0:10", 0);
    expect(childSeed(1, [], "0:10", 0)).toBe(a);
    expect(childSeed(1, [], "0:11", 0)).not.toBe(a);
    expect(childSeed(1, [], "0:10", 1)).not.toBe(a);
    expect(childSeed(2, [], "0:10", 0)).not.toBe(a);
    expect(childSeed(1, [{ count: 3, seed: 4 }], "0:10", 0)).not.toBe(a);
  });
});

describe("checkDeterminism", () => {
  const stable = (): Workload => ({
    name: "stable",
    async run(ctx) {
      for (let i = 0; i < 5; i++) await ctx.time.sleep(ctx.random.randomRange(1, 10));
      assertReachable("stable ran");
    },
  });

  it("passes a deterministic campaign", async () => {
    const result = await new SimulationBuilder()
      .workloadFactory(stable)
      .setBaseSeed(1)
      .setIterations(5)
      .checkDeterminism();
    expect(result.seedsChecked).toBe(5);
    expect(result.deterministic).toBe(true);
    expect(result.violation).toBeNull();
  });

  it("catches a planted Math.random branch and pinpoints the draw, the actor and the line", async () => {
    const result = await new SimulationBuilder()
      .workloadFactory(() => ({
        name: "flaky",
        async run(ctx: SimContext) {
          await ctx.time.sleep(1);
          ctx.random.random();
          for (let i = 0; i < 50; i++) {
            if (Math.random() < 0.5) ctx.random.random(); // planted nondeterminism
            await ctx.time.sleep(1);
          }
        },
      }))
      .allowGlobal("Math.random")
      .setDebugSeeds([9])
      .setIterations(1)
      .checkDeterminism();
    expect(result.deterministic).toBe(false);
    const d = result.divergences[0]!;
    expect(d.seed).toBe(9);
    expect(d.drawIndex).not.toBeNull();
    expect(d.drawIndex!).toBeGreaterThanOrEqual(1);
    expect(d.first?.actor ?? d.second?.actor).toBe("flaky@10.0.0.1");
    const stacks = [d.first?.stack, d.second?.stack].filter((s) => s !== undefined).join("\n");
    expect(stacks).toContain("explore.test.ts");
    expect(result.violation).toBeInstanceOf(DeterminismViolation);
    expect(result.violation!.message).toContain("seed 9 is not deterministic");
  });
});
