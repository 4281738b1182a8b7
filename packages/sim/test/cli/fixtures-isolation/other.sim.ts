/**
 * Another simulation file whose top level takes bytes from the shared pool module: loaded in the
 * same realm as mask-pool.sim.ts (a replay that imported every file), it would shift every mask
 * that simulation draws.
 */
import { defineSimulation, SimulationBuilder } from "@moonpool/sim";
import { maskBytes } from "./mask-pool.ts";

/** Taken when the module loads: the side effect under test. */
export const LOADED_MASK = maskBytes();

export const other = defineSimulation({
  name: "other",
  description: "a workload that only sleeps",
  build: () => new SimulationBuilder().workloadFactory(() => ({ name: "sleeper", run: (ctx) => ctx.time.sleep(10) })),
});
