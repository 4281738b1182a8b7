/**
 * The orders-service simulations for the `moonpool` command:
 *
 *   npx moonpool run orders-service                         # the correct service passes
 *   npx moonpool run orders-service-unlocked-stock          # planted: read-modify-write outside the transaction
 *   npx moonpool run orders-service-key-outside-transaction # planted: idempotency key checked outside it
 */
import { defineSimulation } from "@moonpool/sim";
import { ordersSimulation } from "./simulation.ts";

export const ordersService = defineSimulation({
  name: "orders-service",
  description: "an HTTP orders service with a pg Pool and its Postgres (PGlite) under network, storage and crash chaos",
  build: () => ordersSimulation().setIterations(20),
});

export const ordersServiceUnlockedStock = defineSimulation({
  name: "orders-service-unlocked-stock",
  expectFailure: true,
  description: "planted bug: the stock is read before the transaction and written back (a lost decrement)",
  build: () => ordersSimulation("unlockedStock").setIterations(10),
});

export const ordersServiceKeyOutsideTransaction = defineSimulation({
  name: "orders-service-key-outside-transaction",
  expectFailure: true,
  description: "planted bug: the idempotency key is checked outside the writing transaction (a retry orders twice)",
  build: () => ordersSimulation("keyOutsideTransaction").setIterations(10),
});
