import { describe, expect, it } from "vitest";
import { mazeSimulation } from "./maze.ts";

describe("maze under exploration", () => {
  it("finds the four-lock bug from a root seed within 2,000 timelines (the explore bench's budget per root), and the recipe replays", async () => {
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

  it("replays a recipe written before recipes could reseed the schedule stream (untagged: sim draws only)", async () => {
    const legacy =
      "1365@8755213031072527 -> 1@3861323529254859 -> 1@2703457386897729 -> 1@2984796023919966 -> 17@4139358044530999 -> " +
      "1@8532198283406148 -> 110@3850710220236715 -> 1@1155529387841500 -> 1@3466211033779706 -> 24@1071203339247293 -> " +
      "1@254139714022481 -> 1@2659872232793258 -> 1@468018398155357";
    const replay = await mazeSimulation().replayTimeline(3, legacy).run();
    expect(replay.failedRuns).toBe(1);
    expect(replay.seeds[0]!.traceHash).toBe("520c1657");
    expect(replay.seeds[0]!.failures[0]!.property).toBe("maze bug: all 4 locks opened");
  });
});
