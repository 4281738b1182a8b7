/** A workload that acknowledges no write, so its safety assertion never runs: it "passes". */
import { SimulationBuilder, assertAlways, defineSimulation, type SimContext } from "@moonpool/sim";

export const neverChecked = defineSimulation({
  name: "never-checked",
  description: "zero acknowledged writes: the durability assertion is never evaluated",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "writer",
      async run(ctx: SimContext) {
        const acknowledged: number[] = [];
        await ctx.time.sleep(5);
        for (const write of acknowledged) assertAlways(write >= 0, "every acknowledged write is durable");
        assertAlways(true, "the writer finished");
      },
    })),
});
