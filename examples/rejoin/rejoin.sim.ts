/**
 * The membership simulations for the `moonpool` command:
 *
 *   npx moonpool run rejoin                  # every node rejoins after the partition heals
 *   npx moonpool run rejoin-never-rejoin     # the planted bug: a liveness failure, on purpose
 */
import { defineSimulation } from "@moonpool/sim";
import { rejoinSimulation } from "./simulation.ts";

export const rejoin = defineSimulation({
  name: "rejoin",
  description: "three membership nodes, one partitioned in the chaos window: every view heals within 2 s",
  build: () => rejoinSimulation().setIterations(20),
});

export const rejoinNeverRejoin = defineSimulation({
  name: "rejoin-never-rejoin",
  description: "the same with the planted never-rejoin bug (fails on purpose: a liveness failure)",
  expectFailure: true,
  build: () => rejoinSimulation({ bug: "never-rejoin" }).setIterations(20),
});
