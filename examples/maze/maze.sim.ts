/**
 * The maze for the `moonpool` command:
 *
 *   npx moonpool run maze     # one root seed explored: the four locks open (fails on purpose)
 *
 * Plain random seeds never open all four locks (README.md, "Numbers"); the explorer branches at the
 * gates' buckets and finds it on root seed 1 well inside its 2,000 timelines, so the campaign takes
 * about a second. `expectFailure: true`: the run passes when the bug is found.
 */
import { defineSimulation } from "@moonpool/sim";
import { mazeSimulation } from "./maze.ts";

export const maze = defineSimulation({
  name: "maze",
  expectFailure: true,
  description: "four locks behind twenty 1-in-20 gates, found by exploration (fails on purpose: all locks open)",
  build: () =>
    mazeSimulation()
      .enableExploration({ maxRunsPerSeed: 2000, branchingFactor: 4, maxFrontier: 512, stopOnFailure: true })
      .setDebugSeeds([1])
      .setIterations(1),
});
