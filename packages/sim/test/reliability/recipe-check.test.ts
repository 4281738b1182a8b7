import { describe, expect, it } from "vitest";
import { RecipeParseError } from "../../src/engine/recipe.ts";
import { SimulationBuilder, type Recipe } from "../../src/index.ts";

describe("builder.replayTimeline checks a recipe given as an array", () => {
  const bad: [string, unknown, RegExp][] = [
    ["not an array", { count: 1, seed: 2 }, /a recipe is a string like .* or an array of \{ count, seed \}/],
    ["a step that is not an object", [3], /step 1 of the recipe \(3\): each step is an object/],
    ["a fractional count", [{ count: 1.5, seed: 2 }], /step 1 .*count must be a non-negative integer/],
    [
      "a negative count",
      [
        { count: 1, seed: 2 },
        { count: -1, seed: 2 },
      ],
      /step 2 .*count must be a non-negative integer/,
    ],
    ["a seed as a string", [{ count: 1, seed: "2" }], /step 1 .*seed must be a non-negative integer/],
  ];
  for (const [what, recipe, message] of bad) {
    it(`refuses ${what} with a typed error`, () => {
      const call = () => new SimulationBuilder().replayTimeline(1, recipe as Recipe);
      expect(call).toThrow(RecipeParseError);
      expect(call).toThrow(message);
    });
  }

  it("accepts a well-formed array (a copy: later edits of the caller's array do not leak in)", async () => {
    const recipe = [{ count: 2, seed: 9 }];
    const builder = new SimulationBuilder()
      .workloadFactory(() => ({
        name: "w",
        run: async (ctx) => void (await ctx.time.sleep(ctx.random.randomRange(1, 5))),
      }))
      .replayTimeline(4, recipe);
    recipe[0]!.count = -5;
    const report = await builder.run();
    expect(report.failedRuns).toBe(0);
  });
});
