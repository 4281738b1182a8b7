/** A failure message carrying terminal escapes (set the window title, clear the screen, a bell). */
import { SimulationBuilder, defineSimulation, type SimContext } from "@moonpool/sim";

export const escapes = defineSimulation({
  name: "escapes",
  description: "fails with control characters in its message",
  build: () =>
    new SimulationBuilder().workloadFactory(() => ({
      name: "printer",
      async run(ctx: SimContext) {
        await ctx.time.sleep(1);
        ctx.trace.info("title", { text: "\u001b]0;pwned\u0007" });
        throw new Error("bad \u001b]0;pwned\u0007 and \u001b[2J cleared");
      },
    })),
});
