// Simulated processes share one instance of each module (one realm): module-level state is shared
// between processes and survives from one seed to the next unless beforeIteration resets it.
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type Process } from "../../src/index.ts";
import { nextId, resetIds } from "./fixtures/module-counter.ts";

function simulation(ids: number[][], reset: boolean) {
  const node = (): Process => ({
    name: "node",
    async run() {
      for (let i = 0; i < 3; i++) {
        ids.at(-1)!.push(nextId());
        await new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(Math.random() * 50)));
      }
    },
  });
  const builder = new SimulationBuilder()
    .nodeRuntime()
    .processes(2, node)
    .workloadFactory(() => ({ name: "w", run: (ctx) => ctx.time.sleep(1_000) }))
    .beforeIteration(() => ids.push([]));
  return reset ? builder.beforeIteration(resetIds) : builder;
}

describe("module-level state of a library", () => {
  it("is shared by the processes of a seed, in a deterministic order", async () => {
    const first: number[][] = [];
    const second: number[][] = [];
    for (const ids of [first, second]) await simulation(ids, true).setDebugSeeds([4]).setIterations(1).run();
    expect(first[0]!.slice().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(second).toEqual(first);
  });

  it("carries over between seeds unless beforeIteration resets it: a replay then matches the campaign", async () => {
    const campaign: number[][] = [];
    const report = await simulation(campaign, true).setDebugSeeds([4, 5]).setIterations(2).run();
    const replay: number[][] = [];
    const replayed = await simulation(replay, true).setDebugSeeds([5]).setIterations(1).run();
    expect(replay[0]).toEqual(campaign[1]);
    expect(replayed.seeds[0]!.traceHash).toBe(report.seeds[1]!.traceHash);

    const leaky: number[][] = [];
    resetIds();
    await simulation(leaky, false).setDebugSeeds([4, 5]).setIterations(2).run();
    expect(Math.min(...leaky[1]!)).toBe(7); // the second seed continued the first seed's counter
  });
});
