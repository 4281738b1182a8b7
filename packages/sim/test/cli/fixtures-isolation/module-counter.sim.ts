/**
 * A provider-only simulation (no `nodeRuntime()`) with a module-level counter: every seed counts
 * itself and traces the count, so a seed's trace hash depends on how many seeds ran before it in
 * its realm unless every seed gets a fresh one.
 */
import { defineSimulation, SimulationBuilder } from "@moonpool/sim";

/** Seeds this realm has run: 1 in every seed when each seed has a realm of its own. */
let seedsInRealm = 0;

export const moduleCounter = defineSimulation({
  name: "module-counter",
  description: "a workload that traces a module-level count of the seeds before it",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "counter",
      async run(ctx) {
        seedsInRealm += 1;
        ctx.trace.info("count", { seedsInRealm, draw: ctx.random.randomRange(0, 1_000_000) });
        await ctx.time.sleep(1 + ctx.random.randomRange(0, 20));
      },
    })),
});
