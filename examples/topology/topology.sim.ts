/**
 * The topology simulation for the `moonpool` command:
 *
 *   npx moonpool run topology     # the kv store across 3 datacenters under correlated attrition
 */
import { defineSimulation } from "@moonpool/sim";
import { topologySimulation } from "./simulation.ts";

export const topology = defineSimulation({
  name: "topology",
  description: "kv store across 3 datacenters x 2 zones; machine, zone and datacenter outages; histories linearizable",
  build: () => topologySimulation().setIterations(40),
});
