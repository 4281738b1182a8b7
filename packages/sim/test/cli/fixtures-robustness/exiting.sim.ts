/** Every seed calls process.exit(7): in a worker that ends the thread, in the command's thread the process. */
import { SimulationBuilder, defineSimulation, type SimContext } from "@moonpool/sim";

export const exiting = defineSimulation({
  name: "exiting",
  description: "every seed calls process.exit",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "quitter",
      async run(ctx: SimContext) {
        await ctx.time.sleep(1);
        process.exit(7);
      },
    })),
});
