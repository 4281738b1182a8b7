import { describe, expect, it } from "vitest";
import { SimulationBuilder, select, type Process, type SimContext, type Workload } from "../src/index.ts";

/** An echo server: every accepted connection echoes what it reads until end of stream. */
class EchoServer implements Process {
  readonly name = "echo";
  async run(ctx: SimContext): Promise<void> {
    const listener = await ctx.network.bind(`${ctx.myIp}:7000`);
    for (;;) {
      const conn = await listener.accept();
      ctx.task.spawn("echo-conn", async (scope) => {
        for (;;) {
          const bytes = await conn.read();
          if (bytes === null) break;
          await scope.time.sleep(scope.random.randomRange(0, 3));
          await conn.write(bytes);
        }
        await conn.close();
      });
    }
  }
}

/** Racing tasks, sleeps, spawned tasks, random draws, a fair select and network round trips. */
class RacingWorkload implements Workload {
  readonly name = "racer";
  async run(ctx: SimContext): Promise<void> {
    const handles = [];
    for (let t = 0; t < 4; t++) {
      handles.push(
        ctx.task.spawn(`worker-${t}`, async (scope) => {
          for (let round = 0; round < 3; round++) {
            await scope.time.sleep(scope.random.randomRange(0, 5));
            scope.trace.info("tick", { task: t, round, draw: scope.random.randomRange(0, 1000) });
            await scope.task.yieldNow();
          }
          return t;
        }),
      );
    }
    const winner = await select({ left: ctx.time.sleep(2), right: ctx.time.sleep(2) });
    ctx.trace.info("select_won", { key: winner.key });
    const server = ctx.topology.ipsInGroup("echo")[0]!;
    const conn = await ctx.network.connect(`${server}:7000`);
    for (let i = 0; i < 3; i++) {
      await conn.write(new Uint8Array([i, ctx.random.randomRange(0, 256)]));
      const echoed = await conn.read();
      ctx.trace.info("echoed", { i, bytes: echoed === null ? -1 : echoed.length });
    }
    await conn.close();
    for (const h of handles) await h;
  }
}

function campaign(seeds: number[], mode: "fast" | "paranoid" = "fast") {
  return (
    new SimulationBuilder()
      // The subject here is the engine (scheduling, stepping modes), and this workload has no
      // timeouts: it opts out of the baseline network faults. network-chaos-determinism.test.ts
      // covers determinism under every network chaos mode.
      .networkFaults("none")
      .processes(1, () => new EchoServer())
      .workloadFactory(() => new RacingWorkload())
      .setDebugSeeds(seeds)
      .setIterations(seeds.length)
      .steppingMode(mode)
      .run()
  );
}

const SEEDS = Array.from({ length: 100 }, (_, i) => i * 7919 + 1);

describe("determinism", () => {
  it("gives the identical trace hash for the same seed twice (100 seeds), and different seeds differ", async () => {
    const first = await campaign(SEEDS);
    const second = await campaign(SEEDS);
    expect(first.failedRuns).toBe(0);
    expect(first.seeds.map((s) => s.traceHash)).toEqual(second.seeds.map((s) => s.traceHash));
    expect(first.seeds.map((s) => s.simulatedTimeMs)).toEqual(second.seeds.map((s) => s.simulatedTimeMs));
    const distinct = new Set(first.seeds.map((s) => s.traceHash));
    expect(distinct.size).toBe(SEEDS.length);
    for (const s of first.seeds) expect(s.eventsProcessed).toBeGreaterThan(20);
  });

  it("paranoid stepping (a macrotask per step) produces the same traces as fast stepping", async () => {
    const seeds = SEEDS.slice(0, 30);
    const fast = await campaign(seeds, "fast");
    const paranoid = await campaign(seeds, "paranoid");
    expect(paranoid.failedRuns).toBe(0);
    expect(paranoid.seeds.map((s) => s.traceHash)).toEqual(fast.seeds.map((s) => s.traceHash));
    expect(paranoid.seeds.map((s) => s.eventsProcessed)).toEqual(fast.seeds.map((s) => s.eventsProcessed));
  });
});
