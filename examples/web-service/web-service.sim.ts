/**
 * The web-service simulations for the `moonpool` command:
 *
 *   npx moonpool run web-service              # 200 seeds: every answer keeps the API's promises
 *   npx moonpool run web-service-lost-write   # the planted bug: a failed write answered 201 (fails on purpose)
 */
import { defineSimulation } from "@moonpool/sim";
import { webServiceSimulation } from "./simulation.ts";

export const webService = defineSimulation({
  name: "web-service",
  description: "a REST service on plain node:http with a flaky store, called over http.request under network chaos",
  build: () => webServiceSimulation().setIterations(200),
});

export const webServiceLostWrite = defineSimulation({
  name: "web-service-lost-write",
  expectFailure: true,
  description:
    "the same with the planted bug: a failed store write answered 201 (fails on purpose: a created item reads 404)",
  build: () => webServiceSimulation({ lostWrite: true }).setIterations(20),
});
