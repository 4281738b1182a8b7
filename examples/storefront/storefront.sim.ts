/**
 * The storefront simulations for the `moonpool` command:
 *
 *   npx moonpool run storefront              # 50 seeds: every acknowledged order survives
 *   npx moonpool run storefront-lazy-fsync   # acknowledges before the fsync: loses orders (fails on purpose)
 */
import { defineSimulation } from "@moonpool/sim";
import { orderServiceSimulation } from "./simulation.ts";

export const storefront = defineSimulation({
  name: "storefront",
  description:
    "an order API on node:http that prices orders with fetch calls to the pricing service by name and fsyncs each order to its log through node:fs, under crashes and DNS faults: no acknowledged order is lost",
  build: () => orderServiceSimulation("fsync").setIterations(50),
});

export const storefrontLazyFsync = defineSimulation({
  name: "storefront-lazy-fsync",
  expectFailure: true,
  description:
    "the same service acknowledging an order once it is appended and fsyncing its log on a 250 ms timer: a crash in between loses acknowledged orders",
  build: () => orderServiceSimulation("lazy-fsync").setIterations(10),
});
