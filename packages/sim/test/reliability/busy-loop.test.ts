import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";

describe("the busy-loop detector under the default chaos", () => {
  it("catches `for (;;) await sleep(0)` although the baseline network buggifies sleeps", async () => {
    const report = await new SimulationBuilder()
      .setBaseSeed(17)
      .setIterations(5)
      .maxStepsPerInstant(20_000)
      .workloadFactory(() => ({
        name: "spinner",
        async run(ctx: SimContext) {
          for (;;) await ctx.time.sleep(0);
        },
      }))
      .run();
    expect(report.seeds.map((s) => s.failures.map((f) => f.kind))).toEqual(
      Array.from({ length: 5 }, () => ["busyLoop"]),
    );
    // Each seed stops at the detector's limit, not at the simulated run-time budget.
    for (const s of report.seeds) expect(s.eventsProcessed).toBeLessThan(25_000);
  });

  it("leaves a loop that sleeps a real duration alone", async () => {
    const report = await new SimulationBuilder()
      .setBaseSeed(17)
      .setIterations(2)
      .maxStepsPerInstant(20_000)
      .workloadFactory(() => ({
        name: "poller",
        async run(ctx: SimContext) {
          for (let i = 0; i < 30_000; i++) await ctx.time.sleep(1);
        },
      }))
      .run();
    expect(report.failedRuns).toBe(0);
  });
});
