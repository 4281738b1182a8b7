/**
 * A node-runtime simulation whose process masks frames with bytes from a module-level pool: a
 * seed's bytes depend on what earlier seeds in the realm left in the pool unless every seed gets
 * a fresh realm. About one seed in five fails (its first mask starts below 48).
 */
import { assertAlways, defineSimulation, SimulationBuilder, type Process } from "@moonpool/sim";
import { maskBytes } from "./mask-pool.ts";

function framer(): Process {
  return {
    name: "framer",
    async run(ctx) {
      let first = -1;
      for (let frame = 0; frame < 3; frame++) {
        const mask = maskBytes();
        if (first < 0) first = mask[0]!;
        ctx.trace.info("frame", { frame, mask: Array.from(mask).join(".") });
        await ctx.time.sleep(1 + (mask[1]! % 20));
      }
      assertAlways(first >= 48, "the first mask starts at 48 or above");
    },
  };
}

export const maskPool = defineSimulation({
  name: "mask-pool",
  description: "frames masked from a module-level byte pool (ws-style); fails in about one seed in five",
  build: () =>
    new SimulationBuilder()
      .nodeRuntime()
      .processes(1, framer)
      .workloadFactory(() => ({ name: "idle", run: (ctx) => ctx.time.sleep(200) })),
});
