/**
 * The transport example's simulations for the `moonpool` command:
 *
 *   npx moonpool run transport                       # seeds until coverage is stable (at most 500)
 *   npx moonpool run transport --iterations 500      # exactly 500 seeds
 *   npx moonpool run transport-drop-promise          # the planted bug: a dropped reply, exits 1
 */
import { defineSimulation } from "@moonpool/sim";
import { transportSimulation } from "./simulation.ts";

export const transport = defineSimulation({
  name: "transport",
  description: "Hash-chained append log over the transport layer: 1 server, 2-3 clients, network swarm",
  build: () => transportSimulation().untilCoverageStable(20, 500),
});

export const transportDropPromise = defineSimulation({
  name: "transport-drop-promise",
  expectFailure: true,
  description: "the same with the planted bug 'drop-promise' (fails on purpose: an empty block's reply is dropped)",
  build: () => transportSimulation({ bug: "drop-promise" }).setIterations(100),
});
