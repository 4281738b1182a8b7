/** A workload whose spawned task throws while the workload itself finishes fine. */
import { SimulationBuilder, defineSimulation, type SimContext } from "@moonpool/sim";

export const taskFailure = defineSimulation({
  name: "task-failure",
  description: "a spawned task throws; the workload returns normally",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "client",
      async run(ctx: SimContext) {
        ctx.task.spawn("flusher", async (scope) => {
          await scope.time.sleep(5);
          throw new Error("flush lost its buffer");
        });
        await ctx.time.sleep(20);
      },
    })),
});
