/**
 * The rejoin example's simulations, and the planted never-rejoin bug once more without
 * `expectFailure`, so that the reports show its liveness failure as a failure.
 */
import { defineSimulation } from "@moonpool/sim";
import { rejoinSimulation } from "../../../../../examples/rejoin/simulation.ts";

export { rejoin, rejoinNeverRejoin } from "../../../../../examples/rejoin/rejoin.sim.ts";

export const neverRejoinFails = defineSimulation({
  name: "never-rejoin-fails",
  description: "the planted never-rejoin bug, failing the run",
  build: () => rejoinSimulation({ bug: "never-rejoin" }).setIterations(2),
});
