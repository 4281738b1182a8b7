/**
 * The key-value simulations for the `moonpool` command:
 *
 *   npx moonpool run kv                 # 100 seeds (--iterations 200 for more); histories linearizable
 *   npx moonpool run kv-stale-read      # the planted bug: reads from one replica, found by the checker
 */
import { defineSimulation } from "@moonpool/sim";
import { kvSimulation } from "./simulation.ts";

export const kv = defineSimulation({
  name: "kv",
  description:
    "replicated key-value store (ABD quorums) under network chaos and attrition; histories checked for linearizability",
  build: () => kvSimulation().setIterations(100),
});

export const kvStaleRead = defineSimulation({
  name: "kv-stale-read",
  expectFailure: true,
  description: "the same with the planted stale-read bug (fails on purpose: a non-linearizable read)",
  build: () => kvSimulation({ bug: "stale-read" }).setIterations(40),
});
