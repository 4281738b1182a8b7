/**
 * The grpc-service simulations for the `moonpool` command:
 *
 *   npx moonpool run grpc-service              # 30 seeds: reads keep the store's promise, clients recover
 *   npx moonpool run grpc-service -n 200       # the 200-seed run (every HTTP/2 step takes a real loop turn)
 *   npx moonpool run grpc-service-stale-cache  # the planted bug: a write leaves a stale cached read (fails on purpose)
 */
import { defineSimulation } from "@moonpool/sim";
import { grpcServiceSimulation } from "./simulation.ts";

export const grpcService = defineSimulation({
  name: "grpc-service",
  description:
    "an unmodified @grpc/grpc-js key-value server and clients with deadlines, under network chaos and reboots",
  build: () => grpcServiceSimulation().setIterations(30),
});

export const grpcServiceStaleCache = defineSimulation({
  name: "grpc-service-stale-cache",
  expectFailure: true,
  description:
    "the same with the planted bug: the server's read cache is not invalidated by a write (fails on purpose: a read returns an older value)",
  build: () => grpcServiceSimulation({ staleCache: true }).setIterations(20),
});
