/**
 * Planted bugs (expectFailure) for sharding: "planted-rare" fails in about one seed in five, so
 * some shards of a small campaign hold no failing seed; "planted-never" never fails.
 */
import { SimulationBuilder, assertAlways, defineSimulation, type SimContext } from "@moonpool/sim";

const writer = (failRatio: number) => () => ({
  name: "writer",
  async run(ctx: SimContext) {
    await ctx.time.sleep(ctx.random.randomRange(1, 20));
    const corrupt = ctx.random.randomRatio() < failRatio;
    ctx.trace.info("checked", { corrupt });
    assertAlways(!corrupt, "writes are never corrupt");
  },
});

export const plantedRare = defineSimulation({
  name: "planted-rare",
  description: "a planted bug found in about one seed in five",
  expectFailure: true,
  build: () => new SimulationBuilder().workloadFactory(writer(0.2)),
});

export const plantedNever = defineSimulation({
  name: "planted-never",
  description: "a planted bug that is never found",
  expectFailure: true,
  build: () => new SimulationBuilder().workloadFactory(writer(0)),
});
