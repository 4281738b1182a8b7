/** Simulations that fail on purpose (expectFailure): one finds its bug, one no longer does. */
import { SimulationBuilder, assertAlways, defineSimulation, type SimContext } from "@moonpool/sim";

function buggy(rate: number) {
  return () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "writer",
      async run(ctx: SimContext) {
        await ctx.time.sleep(ctx.random.randomRange(1, 20));
        assertAlways(ctx.random.randomRatio() >= rate, "the planted bug stays hidden");
      },
    }));
}

export const expectedFound = defineSimulation({ name: "expected-found", expectFailure: true, build: buggy(1) });
export const expectedMissing = defineSimulation({ name: "expected-missing", expectFailure: true, build: buggy(0) });
