/**
 * Exact clocks (`.clockFaults("none")`) in these simulations: they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import {
  SimulationBuilder,
  TaskCancelled,
  TimeoutError,
  buggify,
  buggifyKnob,
  buggifyWithProb,
  isAbortError,
  select,
  selectBiased,
  swarmOpEnabled,
} from "../src/index.ts";
import { Incarnation } from "../src/engine/incarnation.ts";
import { ActorScope } from "../src/world/scope.ts";
import { ProcessClock } from "../src/world/time.ts";
import { World } from "../src/world/world.ts";
import { inSim, workload } from "./fixtures/in-sim.ts";

/** `now()` read as simulated time: exact clocks, not the baseline's per-process offsets and rates. */
const exactClocks = (b: SimulationBuilder) => b.clockFaults("none");
const EXACT_SEED = 1;

describe("time", () => {
  it("sleep advances simulated time exactly and skips idle time", async () => {
    const times = await inSim(
      async (ctx) => {
        const t0 = ctx.time.now();
        await ctx.time.sleep(1500.25);
        const t1 = ctx.time.now();
        await ctx.time.sleep(3_600_000 / 2);
        return [t0, t1, ctx.time.now()];
      },
      EXACT_SEED,
      exactClocks,
    );
    expect(times).toEqual([0, 1500.25, 1500.25 + 1_800_000]);
  });

  it("timeout resolves with the value, or rejects with TimeoutError at the deadline", async () => {
    const result = await inSim(
      async (ctx) => {
        const fast = await ctx.time.timeout(
          10,
          ctx.time.sleep(5).then(() => "fast"),
        );
        let slow: unknown;
        try {
          await ctx.time.timeout(10, ctx.time.sleep(50));
        } catch (error) {
          slow = [error instanceof TimeoutError, ctx.time.now()];
        }
        return { fast, slow };
      },
      EXACT_SEED,
      exactClocks,
    );
    expect(result).toEqual({ fast: "fast", slow: [true, 15] });
  });

  it("timer() never runs behind now() (no drift configured yet)", async () => {
    const ok = await inSim(
      async (ctx) => {
        for (let i = 0; i < 20; i++) {
          await ctx.time.sleep(ctx.random.randomRange(1, 100));
          if (ctx.time.timer() < ctx.time.now()) return false;
        }
        return true;
      },
      EXACT_SEED,
      exactClocks,
    );
    expect(ok).toBe(true);
  });
});

describe("tasks", () => {
  it("spawned tasks report ok, failed and cancelled outcomes; join rethrows", async () => {
    const result = await inSim(
      async (ctx) => {
        const ok = ctx.task.spawn("ok", async (s) => {
          await s.time.sleep(1);
          return 7;
        });
        const failed = ctx.task.spawn("failed", async (s) => {
          await s.time.sleep(1);
          throw new Error("task boom");
        });
        let reachedAfterAbort = false;
        const cancelled = ctx.task.spawn("cancelled", async (s) => {
          await s.time.sleep(100);
          reachedAfterAbort = true;
        });
        await ctx.time.sleep(2);
        cancelled.abort();
        const outcomes = [await ok, await failed, await cancelled].map((o) => o.status);
        const joinError = await cancelled.join().catch((e: unknown) => e);
        await ctx.time.sleep(200);
        return {
          outcomes,
          value: await ok.join(),
          cancelledJoin: joinError instanceof TaskCancelled,
          reachedAfterAbort,
          finished: ok.finished,
        };
      },
      1,
      (b) => b.allowTaskFailures(),
    );
    expect(result).toEqual({
      outcomes: ["ok", "failed", "cancelled"],
      value: 7,
      cancelledJoin: true,
      reachedAfterAbort: false,
      finished: true,
    });
  });

  it("never starves a ready task: two tasks handing a turn back and forth by yieldNow always progress", async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const steps = await inSim(async (ctx) => {
        let turn = 0;
        const player = (me: number) =>
          ctx.task.spawn(`player-${me}`, async (s) => {
            while (turn < 500) {
              if (turn % 2 === me) turn++;
              await s.task.yieldNow();
            }
          });
        await Promise.all([player(0), player(1)]);
        return turn;
      }, seed);
      expect(steps).toBe(500);
    }
  });

  it("yieldNow re-queues at a seeded position: seeds explore both orders of a race", async () => {
    const orders = new Set<string>();
    for (let seed = 1; seed <= 30; seed++) {
      const order = await inSim(async (ctx) => {
        const log: string[] = [];
        const a = ctx.task.spawn("a", async (s) => {
          await s.task.yieldNow();
          log.push("a");
        });
        const b = ctx.task.spawn("b", async (s) => {
          await s.task.yieldNow();
          log.push("b");
        });
        await a;
        await b;
        return log.join("");
      }, seed);
      orders.add(order);
    }
    expect([...orders].sort()).toEqual(["ab", "ba"]);
  });
});

describe("random, select, buggify and swarm inside a simulation", () => {
  it("random draws are identical for a seed and differ across seeds", async () => {
    const draw = (seed: number) =>
      inSim(
        async (ctx) => [
          ctx.random.random(),
          ctx.random.randomRange(-5, 5),
          ctx.random.randomBool(0.5),
          ctx.random.randomRatio(),
        ],
        seed,
      );
    expect(await draw(4)).toEqual(await draw(4));
    expect(await draw(4)).not.toEqual(await draw(5));
    await expect(inSim(async (ctx) => ctx.random.randomBool(2))).rejects.toThrow(/randomBool\(p\) needs 0 <= p <= 1/);
  });

  it("fair select picks either ready branch depending on the seed; biased select keeps source order", async () => {
    const winners = new Set<string>();
    const biased = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const [fair, first] = await inSim(async () => {
        const r1 = await select({ left: Promise.resolve(1), right: Promise.resolve(2) });
        const r2 = await selectBiased({ left: Promise.resolve(1), right: Promise.resolve(2) });
        return [r1.key, r2.key];
      }, seed);
      winners.add(fair!);
      biased.add(first!);
    }
    expect([...winners].sort()).toEqual(["left", "right"]);
    expect([...biased]).toEqual(["left"]);
  });

  it("buggify is decided per seed, replays for the same seed, and is off outside a simulation", async () => {
    const sample = (seed: number) =>
      inSim(
        async () =>
          Array.from({ length: 40 }, (_, i) => [
            buggify(`point-${i % 4}`),
            buggifyWithProb("often", 0.9),
            buggifyKnob("knob", 10, [1, 5]),
          ]),
        seed,
      );
    const a = await sample(11);
    expect(await sample(11)).toEqual(a);
    // Sequential on purpose: one simulation per realm at a time.
    const others: unknown[] = [];
    for (let s = 12; s < 16; s++) others.push(await sample(s));
    expect(others.some((o) => JSON.stringify(o) !== JSON.stringify(a))).toBe(true);
    const fired = [a, ...others].flat().filter((x) => (x as unknown[])[0] === true).length;
    expect(fired).toBeGreaterThan(0);
    expect(buggify("outside")).toBe(false);
    expect(buggifyKnob("outside", 3, [0, 10])).toBe(3);
  });

  it("swarmOpEnabled masks the operation alphabet per seed only with swarmOperations()", async () => {
    const masks = new Set<string>();
    for (let seed = 1; seed <= 12; seed++) {
      let mask = "";
      await new SimulationBuilder()
        .clockFaults("none")
        .workloadFactory(() =>
          workload(async () => void (mask = [0, 1, 2, 3, 4, 5].map((op) => (swarmOpEnabled(op) ? "1" : "0")).join(""))),
        )
        .swarmOperations()
        .setDebugSeeds([seed])
        .setIterations(1)
        .run();
      masks.add(mask);
    }
    expect(masks.size).toBeGreaterThan(4);
    const plain = await inSim(async () => [0, 1, 2, 3, 4, 5].every((op) => swarmOpEnabled(op)));
    expect(plain).toBe(true);
    expect(swarmOpEnabled(3)).toBe(true);
  });
});

describe("graceful shutdown and crash at the world level", () => {
  it("aborts the signal and pending waits with AbortError, lets the process flush, then kills a slow one after the grace period", async () => {
    const world = new World({ seed: 1 });
    const log: string[] = [];
    const boot = (name: string, flushMs: number) => {
      const inc = new Incarnation(`${name}@10.0.1.1`);
      const scope = new ActorScope(world, inc, null, new ProcessClock(), "10.0.1.1");
      void (async () => {
        try {
          for (;;) await scope.time.sleep(10);
        } catch (error) {
          log.push(
            `${scope.time.now()} ${name}: ${isAbortError(error) ? "AbortError" : "other"} signal=${inc.shutdown.aborted}`,
          );
          await scope.time.sleep(flushMs); // cleanup I/O keeps working until the kill
          log.push(`${scope.time.now()} ${name}: flushed`);
        }
      })();
      return inc;
    };
    const a = boot("A", 5);
    const b = boot("B", 500);
    world.engine.installTickCounter();
    try {
      await world.engine.runUntil(() => world.engine.nowUs >= 25_000);
      world.shutdownGracefully(a, 100);
      world.shutdownGracefully(b, 100, () => log.push(`${world.nowMs} B: grace expired -> kill`));
      await world.engine.runUntil(() => false);
    } finally {
      world.engine.uninstallTickCounter();
    }
    expect(log).toEqual([
      "30 A: AbortError signal=true",
      "30 B: AbortError signal=true",
      "35 A: flushed",
      "130 B: grace expired -> kill",
    ]);
    expect(b.alive).toBe(false);
  });
});
