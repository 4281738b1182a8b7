/**
 * The key-value simulations for the `moonpool` command:
 *
 *   npx moonpool run kv                 # 200 seeds; every client history must be linearizable
 *   npx moonpool run kv-stale-read      # the planted bug: reads from one replica, found by the checker
 */
import { defineSimulation } from "@moonpool/sim";
import { kvSimulation } from "./simulation.ts";

export const kv = defineSimulation({
  name: "kv",
  description: "replicated key-value store (ABD quorums) under network chaos and attrition; histories checked for linearizability",
  build: () => kvSimulation().setIterations(200),
});

export const kvStaleRead = defineSimulation({
  name: "kv-stale-read",
  description: "the same with the planted stale-read bug (fails on purpose: a non-linearizable read)",
  build: () => kvSimulation({ bug: "stale-read" }).setIterations(200),
});
