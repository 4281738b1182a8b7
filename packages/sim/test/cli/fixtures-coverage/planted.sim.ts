/** One draw per seed decides whether the seed runs the planted branch of system.ts. */
import { assertAlways, assertSometimes, defineSimulation, SimulationBuilder, type SimContext } from "@moonpool/sim";
import { route } from "./system.ts";

export const planted = defineSimulation({
  name: "planted",
  description: "a quarter of the seeds take the planted branch",
  build: () =>
    new SimulationBuilder().workload({
      name: "driver",
      run: async (ctx: SimContext) => {
        const way = route(ctx.random.randomRange(0, 4));
        ctx.trace.info("routed", { way });
        assertAlways(way === "planted" || way === "common", "a known way");
        assertSometimes(way === "planted", "took the planted branch");
        await ctx.time.sleep(10);
      },
    }),
});
