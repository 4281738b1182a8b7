import { describe, expect, it } from "vitest";
import { SimulationBuilder, type Process, type SimContext } from "../src/index.ts";

/**
 * The end of a seed crashes every process and workload at once: none is woken with an error from
 * a peer that died before it (world.crashAll), and the seed's trace is the same on every run.
 */
class Peer implements Process {
  readonly name = "peer";
  async run(ctx: SimContext): Promise<void> {
    const listener = await ctx.network.bind(`${ctx.myIp}:7000`);
    void (async () => {
      for (;;) {
        const conn = await listener.accept();
        void (async () => {
          try {
            while ((await conn.read()) !== null) {}
          } catch (error) {
            // Only a peer reset can land here: it must not happen at teardown.
            ctx.trace.warn("woken_after_death", { error: String(error) });
          }
        })();
      }
    })();
    const ips = ctx.topology.ipsInGroup("peer").filter((ip) => ip !== ctx.myIp);
    const conns = [];
    for (const ip of ips) conns.push(await ctx.network.connect(`${ip}:7000`));
    const one = new Uint8Array([1]);
    for (;;) {
      await ctx.time.sleep(ctx.random.randomRange(1, 20));
      await conns[ctx.random.randomRange(0, conns.length)]!.write(one);
    }
  }
}

function campaign(seeds: readonly number[]) {
  const woken: number[] = [];
  const builder = new SimulationBuilder()
    .networkFaults("none")
    .processes(6, () => new Peer())
    .workloadFactory(() => ({
      name: "driver",
      run: (ctx: SimContext) => ctx.time.sleep(300),
      async check(ctx: SimContext) {
        woken.push(ctx.traceQuery.count("woken_after_death"));
      },
    }))
    .setDebugSeeds(seeds)
    .setIterations(seeds.length);
  return { builder, woken };
}

describe("teardown at the end of a seed", () => {
  it("kills every process before resetting any connection: no live read is woken by a dead peer", async () => {
    const { builder, woken } = campaign([1, 2, 3]);
    const report = await builder.run();
    expect(report.failedRuns).toBe(0);
    expect(woken).toEqual([0, 0, 0]);
  });

  it("gives the same trace hash for the same seed and different ones for different seeds", async () => {
    const first = await campaign([11, 12]).builder.run();
    const again = await campaign([11, 12]).builder.run();
    const hashes = first.seeds.map((s) => s.traceHash);
    expect(again.seeds.map((s) => s.traceHash)).toEqual(hashes);
    expect(hashes[0]).not.toBe(hashes[1]);
  });
});
