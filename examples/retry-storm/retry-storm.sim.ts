/**
 * The retry-storm simulations for the `moonpool` command:
 *
 *   npx moonpool run retry-storm           # budgeted retries with backoff: goodput recovers
 *   npx moonpool run retry-storm-naive     # naive retries: the metastable failure (fails on purpose)
 */
import { defineSimulation } from "@moonpool/sim";
import { retryStormSimulation } from "./simulation.ts";

export const retryStorm = defineSimulation({
  name: "retry-storm",
  description:
    "open-loop load, a slow-dependency trigger, retries with a budget and jittered backoff: goodput recovers",
  build: () => retryStormSimulation("budgeted").setIterations(30),
});

export const retryStormNaive = defineSimulation({
  name: "retry-storm-naive",
  expectFailure: true,
  description: "the same with naive immediate retries (fails on purpose: a metastable retry storm)",
  build: () => retryStormSimulation("naive").setIterations(3),
});
