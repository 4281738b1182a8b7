import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext, type SteppingMode } from "../../src/index.ts";

/** A workload that logs around many awaits: long enough (wall time) for fast mode to yield. */
function loggingSimulation(mode: SteppingMode): SimulationBuilder {
  return new SimulationBuilder()
    .steppingMode(mode)
    .setBaseSeed(4242)
    .setIterations(20)
    .workloadFactory(() => ({
      name: "logger",
      async run(ctx: SimContext) {
        for (let i = 0; i < 1500; i++) {
          await ctx.time.sleep(ctx.random.randomRange(0, 3));
          console.log("step", i, ctx.time.now());
          await Promise.resolve();
          console.warn("after a microtask", i);
        }
      },
    }));
}

describe("the guard and console capture stay on for every continuation of a step", () => {
  for (const mode of ["fast", "paranoid"] as const) {
    it(`console output of simulated code gives the same per-seed hashes in 3 runs (${mode})`, async () => {
      const runs: string[][] = [];
      for (let r = 0; r < 3; r++) {
        const report = await loggingSimulation(mode).run();
        expect(report.failedRuns).toBe(0);
        runs.push(report.seeds.map((s) => s.traceHash));
      }
      expect(runs[1]).toEqual(runs[0]);
      expect(runs[2]).toEqual(runs[0]);
      expect(new Set(runs[0]).size).toBe(20);
    });

    it(`an escape after an await fails the seed (${mode})`, async () => {
      let calls = 0;
      const report = await new SimulationBuilder()
        .steppingMode(mode)
        .setDebugSeeds([7])
        .setIterations(1)
        .workloadFactory(() => ({
          name: "w",
          async run(ctx: SimContext) {
            for (let i = 0; i < 1000; i++) {
              await ctx.time.sleep(1);
              await Promise.resolve();
              try {
                Math.random();
                calls++;
              } catch {
                // The escape is recorded before the throw.
              }
            }
          },
        }))
        .run();
      expect(calls).toBe(0);
      expect(report.seeds[0]!.failures.filter((f) => f.kind === "escape").length).toBe(1000);
    });
  }
});
