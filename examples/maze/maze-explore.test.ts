import { describe, expect, it } from "vitest";
import { mazeSimulation } from "./maze.ts";

describe("maze under exploration", () => {
  it("finds the four-lock bug from a root seed within the issue's budget, and the recipe replays", async () => {
    const report = await mazeSimulation()
      .enableExploration({ workers: 0, maxRunsPerSeed: 2000, branchingFactor: 4, maxFrontier: 512, maxRecipeLen: 32 })
      .setDebugSeeds([1])
      .setIterations(1)
      .run();
    const x = report.exploration!;
    expect(x.perSeed[0]!.firstBugAtTimeline).not.toBeNull();
    expect(x.perSeed[0]!.firstBugAtTimeline!).toBeLessThanOrEqual(2000);
    const bug = x.bugRecipes[0]!;
    expect(bug.property).toBe("maze bug: all 4 locks opened");

    const replay = await mazeSimulation().replayTimeline(bug.seed, bug.recipe).run();
    expect(replay.failedRuns).toBe(1);
    expect(replay.seeds[0]!.traceHash).toBe(bug.traceHash);
    expect(replay.assertionDetails.find((d) => d.message === "all locks open")?.status).toBe("PASS");
  });
});
