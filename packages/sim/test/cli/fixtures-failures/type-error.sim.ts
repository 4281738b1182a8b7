/** A workload with a plain bug: it reads a property of undefined on its first step. */
import { SimulationBuilder, defineSimulation, type SimContext } from "@moonpool/sim";

interface Peer {
  readonly port: number;
}

export const typeError = defineSimulation({
  name: "type-error",
  description: "a TypeError in the workload",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "client",
      async run(ctx: SimContext) {
        await ctx.time.sleep(ctx.random.randomRange(1, 20));
        const peers: Peer[] = [];
        ctx.trace.info("connecting", { port: peers[0]!.port });
      },
    })),
});
