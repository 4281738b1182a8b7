import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { never } from "../../src/engine/incarnation.ts";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

async function collected(refs: readonly WeakRef<object>[]): Promise<number> {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
  return refs.filter((r) => r.deref() === undefined).length;
}

describe("no memory kept across seeds", () => {
  it("an await on a dead incarnation's never-settling promise does not keep its frame alive", async () => {
    const refs: WeakRef<object>[] = [];
    for (let i = 0; i < 20; i++) {
      const state = { payload: new Array(1000).fill(i) };
      refs.push(new WeakRef(state));
      void never<void>().then(() => state.payload.length);
    }
    expect(await collected(refs)).toBe(20);
  });

  it("the contexts of seeds whose actors await after their crash are collected once the campaign ends", async () => {
    const refs: WeakRef<object>[] = [];
    const report = await new SimulationBuilder()
      .setBaseSeed(99)
      .setIterations(10)
      .workloadFactory(() => ({
        name: "w",
        async run(ctx: SimContext) {
          refs.push(new WeakRef(ctx));
          await ctx.time.sleep(5);
        },
      }))
      .processes(1, () => ({
        name: "p",
        async run(ctx: SimContext) {
          refs.push(new WeakRef(ctx));
          // Still sleeping when the runner kills it: later awaits get never-settling promises.
          for (;;) await ctx.time.sleep(1);
        },
      }))
      .run();
    expect(report.failedRuns).toBe(0);
    expect(refs.length).toBe(20);
    expect(await collected(refs)).toBe(20);
  });
});
