/**
 * A failure at the same step on every draw sequence and without a fault (as
 * test/fixtures/fixed-failure.ts): the shrinker's best comes at once, then its stall rule ends the search.
 * Exact clocks (`.clockFaults("none")`): no fault of any kind, the baseline clocks' included.
 */
import { assertAlways, defineSimulation, SimulationBuilder, type SimContext } from "@moonpool/sim";

export const fixedFailure = defineSimulation({
  name: "fixed-failure",
  description: "fails at its 100th tick on every seed",
  build: () =>
    new SimulationBuilder()
      .networkFaults("none")
      .clockFaults("none")
      .processes(1, () => ({
        name: "node",
        async run(ctx: SimContext) {
          for (let tick = 1; ; tick++) {
            await ctx.time.sleep(10);
            assertAlways(tick < 100, "a node never reaches tick 100");
          }
        },
      }))
      .workloadFactory(() => ({
        name: "ticker",
        async run(ctx: SimContext) {
          for (let i = 0; i < 200; i++) await ctx.time.sleep(10);
        },
      }))
      .chaosDuration(2_000),
});
