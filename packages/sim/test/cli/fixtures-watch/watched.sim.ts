/** A simulation the watch test edits: it passes until the test makes it fail. */
import { assertAlways, defineSimulation, SimulationBuilder, type SimContext } from "@moonpool/sim";
import { TICKS } from "./limit.ts";

const FAIL_AT_TICK = 1_000;

export const watched = defineSimulation({
  name: "watched",
  description: "ticks TICKS times; fails from tick FAIL_AT_TICK",
  build: () =>
    new SimulationBuilder().networkFaults("none").workloadFactory(() => ({
      name: "ticker",
      async run(ctx: SimContext) {
        for (let tick = 1; tick <= TICKS; tick++) {
          await ctx.time.sleep(10);
          assertAlways(tick < FAIL_AT_TICK, "ticks stay below the limit");
        }
      },
    })),
});
