import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, SimulationFailed, assertAlways, defineSimulation, type SimContext } from "@moonpool/sim";
import { runSimulationTest } from "@moonpool/sim/vitest";

/** Fails in about one seed in four: an always-assertion on a value drawn from the seed. */
function flakyWriter(): SimulationBuilder {
  return new SimulationBuilder()
    .setBaseSeed(7)
    .setIterations(12)
    .workloadFactory(() => ({
      name: "writer",
      async run(ctx: SimContext) {
        await ctx.time.sleep(ctx.random.randomRange(1, 50));
        const corrupt = ctx.random.randomRatio() < 0.25;
        assertAlways(!corrupt, "writes are never corrupt"); // FAILING LINE
      },
    }));
}

const thisFile = readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n");
const failingLine = thisFile.findIndex((l) => l.endsWith("// FAILING LINE")) + 1;

async function failureOf(run: Promise<unknown>): Promise<SimulationFailed> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SimulationFailed);
  return error as SimulationFailed;
}

describe("runSimulationTest (@moonpool/sim/vitest)", () => {
  it("returns the report of a passing simulation", async () => {
    const report = await runSimulationTest(() => flakyWriter().setIterations(1).setDebugSeeds([passingSeed]));
    expect(report.passed).toBe(true);
    expect(report.iterations).toBe(1);
  });

  it("fails with the failing seed's summary, the pinning option and the user's line as the stack", async () => {
    const error = await failureOf(runSimulationTest(flakyWriter));
    const seed = Number(/seed (\d+) failed/.exec(error.message)![1]);
    expect(error.message).toContain("writes are never corrupt");
    expect(error.message).toContain(`Pin it as a regression test: runSimulationTest(simulation, { seed: ${seed} })`);
    expect(error.message).toContain("seeds failed"); // the whole report follows the summary
    const firstFrame = error.stack!.split("\n").find((l) => l.trim().startsWith("at "))!;
    expect(firstFrame).toContain(`vitest-helper.test.ts:${failingLine}:`);
  });

  it("names one seed in one syntax: the headline pins the seed the report recommends (the earliest failure)", async () => {
    // Every seed fails, each at the simulated time its first draw says: the earliest is not seed #0.
    const lateOrEarly = () =>
      new SimulationBuilder()
        .setBaseSeed(3)
        .setIterations(6)
        .workloadFactory(() => ({
          name: "writer",
          async run(ctx: SimContext) {
            await ctx.time.sleep(ctx.random.randomRange(1, 1_000));
            assertAlways(false, "writes are never lost");
          },
        }));
    const error = await failureOf(runSimulationTest(lateOrEarly));
    const headline = Number(/^seed (\d+) failed/.exec(error.message)![1]);
    const earliest = Number(/earliest: seed (\d+) \(#(\d+)\)/.exec(error.message)![1]);
    const index = Number(/earliest: seed \d+ \(#(\d+)\)/.exec(error.message)![1]);
    expect(index).toBeGreaterThan(0); // the campaign's first seed is not its earliest failure
    expect(headline).toBe(earliest);
    expect(error.message).toContain(
      `Pin it as a regression test: runSimulationTest(simulation, { seed: ${headline} })`,
    );
    expect(error.message).toContain(`pin it: runSimulationTest(simulation, { seed: ${headline} })`);
    expect(error.message).toContain("each pinned as runSimulationTest(simulation, { seed })");
    expect(error.message).not.toContain("builder.");
    expect(error.message).not.toContain("npx moonpool");
  });

  it("pins a failing seed: the same seed fails the same way, alone", async () => {
    const first = await failureOf(runSimulationTest(flakyWriter));
    const seed = Number(/seed (\d+) failed/.exec(first.message)![1]);
    const pinned = await failureOf(runSimulationTest(flakyWriter, { seed }));
    expect(pinned.message).toContain(`seed ${seed} failed (1 of 1 seeds failed)`);
    const again = await failureOf(runSimulationTest(flakyWriter, { seed }));
    expect(again.message.split("\n\n")[0]).toBe(pinned.message.split("\n\n")[0]);
  });

  it("takes a defineSimulation(...) and rejects what is not a simulation with a typed error", async () => {
    const definition = defineSimulation({ name: "flaky-writer", build: flakyWriter });
    await failureOf(runSimulationTest(definition));
    await expect(runSimulationTest((() => 42) as never)).rejects.toThrow(/pass a SimulationBuilder/);
    await expect(runSimulationTest(flakyWriter, { recipe: "1@2" })).rejects.toThrow(/a recipe needs its seed/);
  });
});

// A seed of flakyWriter that passes (checked by the first test: report.passed).
const passingSeed = 1;
