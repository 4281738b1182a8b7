/**
 * A simulation whose failing seeds call `process.abort()`: in a worker thread that fails the seed,
 * in the command's own thread it would end the process. About half the seeds abort.
 */
import { SimulationBuilder, defineSimulation, type SimContext } from "@moonpool/sim";

export const aborting = defineSimulation({
  name: "aborting",
  description: "odd seeds call process.abort()",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "aborter",
      async run(ctx: SimContext) {
        await ctx.time.sleep(ctx.random.randomRange(1, 10));
        const abort = ctx.random.randomRange(0, 2) === 1;
        ctx.trace.info("checked", { abort });
        if (abort) process.abort();
      },
    })),
});
