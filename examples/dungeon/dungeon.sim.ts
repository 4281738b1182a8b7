/**
 * The dungeon for the `moonpool` command:
 *
 *   npx moonpool run dungeon  # one root seed explored to the treasure on floor 8 (fails on purpose)
 *
 * The settings are the benches' (bench/dungeon.ts, README.md "Exploring it"): recipes of up to 120
 * reseed points for eight floors, `entryEnergy: 16` so quality gains in busy buckets get followed,
 * `reviveRetired` so the last floors' entries come back once the frontier is dry. Root seed 2 finds
 * the treasure at timeline 4,134, so the campaign is a few seconds; 24,000 plain seeds find nothing.
 */
import { defineSimulation } from "@moonpool/sim";
import { dungeonSimulation } from "./dungeon.ts";

export const dungeon = defineSimulation({
  name: "dungeon",
  expectFailure: true,
  description:
    "an 8-floor roguelike walked at random, explored down to the treasure (fails on purpose: treasure found)",
  build: () =>
    dungeonSimulation()
      .enableExploration({
        maxRunsPerSeed: 6000,
        branchingFactor: 4,
        maxFrontier: 512,
        maxRecipeLen: 120,
        entryEnergy: 16,
        reviveRetired: true,
        stopOnFailure: true,
      })
      .setDebugSeeds([2])
      .setIterations(1),
});
