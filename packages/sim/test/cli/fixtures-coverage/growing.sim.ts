/** Every seed reaches one of thirty handlers: new code keeps being reached long after the assertions are stable. */
import { assertSometimes, defineSimulation, SimulationBuilder, type SimContext } from "@moonpool/sim";
import { handle } from "./system.ts";

export const growing = defineSimulation({
  name: "growing",
  description: "one of thirty handlers per seed",
  build: () =>
    new SimulationBuilder().workload({
      name: "driver",
      run: async (ctx: SimContext) => {
        assertSometimes(handle(ctx.random.randomRange(0, 30)) > 0, "handled");
        await ctx.time.sleep(10);
      },
    }),
});
