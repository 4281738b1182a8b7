/** Every seed runs the same code: code coverage is stable from the first seed. */
import { assertSometimes, defineSimulation, SimulationBuilder, type SimContext } from "@moonpool/sim";
import { handle } from "./system.ts";

export const flat = defineSimulation({
  name: "flat",
  description: "the same handler every seed",
  build: () =>
    new SimulationBuilder().workload({
      name: "driver",
      run: async (ctx: SimContext) => {
        assertSometimes(handle(ctx.random.randomRange(0, 30) >= 0 ? 3 : 4) > 0, "handled");
        await ctx.time.sleep(10);
      },
    }),
});
