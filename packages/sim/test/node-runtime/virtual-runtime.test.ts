/**
 * Exact clocks (`.clockFaults("none")`) in these simulations: they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { spawn } from "node:child_process";
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as timers from "node:timers";
import {
  scheduler,
  setImmediate as immediatePromise,
  setInterval as every,
  setTimeout as sleep,
} from "node:timers/promises";
import { isAbortError } from "@moonpool/core";
import { describe, expect, it } from "vitest";
import {
  SimulationBuilder,
  type FaultInjector,
  type Process,
  type SimContext,
  type Workload,
} from "../../src/index.ts";
import { currentVirtualProcess } from "../../src/world/node-runtime/runtime.ts";
import { VIRTUAL_EPOCH_MS } from "../../src/world/node-runtime/virtual-process.ts";

// Paths made outside any seed: os.tmpdir() is itself a machine fact the guard stops.
const NEVER_WRITTEN = join(tmpdir(), "moonpool-node-runtime-never-written");
const NO_SUCH_ADDON = join(tmpdir(), "moonpool-no-such-addon.node");

const workload = (run: (ctx: SimContext) => Promise<void>): Workload => ({ name: "w", run });

function runWith(run: (ctx: SimContext) => Promise<void>, seeds = [11], nodeRuntime = true) {
  // Without network faults the monotonic clock does not drift: performance.now() is exact.
  return new SimulationBuilder()
    .clockFaults("none")
    .networkFaults("none")
    .workloadFactory(() => workload(run))
    .nodeRuntime(nodeRuntime)
    .setDebugSeeds(seeds)
    .setIterations(seeds.length)
    .run();
}

describe("virtual Node runtime", () => {
  it("answers clocks from simulated time: Date.now, new Date(), Date(), performance.now, hrtime", async () => {
    const seen: Record<string, unknown> = {};
    const report = await runWith(async (ctx) => {
      await ctx.time.sleep(1_500);
      seen.dateNow = Date.now();
      // biome-ignore lint/complexity/useDateNow: `new Date()` is the call under test
      seen.newDate = new Date().getTime();
      seen.dateString = Date();
      seen.explicitDate = new Date(0).getTime();
      seen.perf = performance.now();
      seen.timeOrigin = performance.timeOrigin;
      seen.hrtime = process.hrtime();
      seen.hrtimeDiff = process.hrtime([1, 0]);
      seen.hrtimeBigint = process.hrtime.bigint();
      seen.uptime = process.uptime();
    });
    expect(report.failedRuns).toBe(0);
    expect(seen.dateNow).toBe(VIRTUAL_EPOCH_MS + 1_500);
    expect(seen.newDate).toBe(VIRTUAL_EPOCH_MS + 1_500);
    expect(seen.dateString).toBe(new Date(VIRTUAL_EPOCH_MS + 1_500).toString());
    expect(seen.explicitDate).toBe(0);
    expect(seen.perf).toBe(1_500);
    expect(seen.timeOrigin).toBe(VIRTUAL_EPOCH_MS);
    expect(seen.hrtime).toEqual([1, 500_000_000]);
    expect(seen.hrtimeDiff).toEqual([0, 500_000_000]);
    expect(seen.hrtimeBigint).toBe(1_500_000_000n);
    expect(seen.uptime).toBe(1.5);
  });

  it("fires timers on simulated time with their arguments, in Node's order, and clear* cancels them", async () => {
    const log: string[] = [];
    const report = await runWith(async (ctx) => {
      const at = (label: string) => () => log.push(`${label}@${ctx.time.now()}`);
      setTimeout((a: string, b: number) => log.push(`args ${a} ${b}@${ctx.time.now()}`), 30, "x", 2);
      setTimeout(at("t10"), 10);
      timers.setTimeout(at("timers.t20"), 20);
      setTimeout(at("t0-is-1ms"), 0);
      setImmediate(at("immediate"));
      clearTimeout(setTimeout(at("cleared"), 5));
      clearTimeout(+setTimeout(at("cleared-by-id"), 5));
      clearImmediate(setImmediate(at("cleared-immediate")));
      let ticks = 0;
      const interval = setInterval(() => {
        log.push(`interval@${ctx.time.now()}`);
        if (++ticks === 3) clearInterval(interval);
      }, 100);
      const refreshed = setTimeout(at("refreshed"), 50);
      setTimeout(() => refreshed.refresh(), 40);
      expect(refreshed.hasRef()).toBe(true);
      expect(refreshed.unref().hasRef()).toBe(false);
      await ctx.time.sleep(1_000);
    });
    expect(report.failedRuns).toBe(0);
    expect(log).toEqual([
      "immediate@0",
      "t0-is-1ms@1",
      "t10@10",
      "timers.t20@20",
      "args x 2@30",
      "refreshed@90",
      "interval@100",
      "interval@200",
      "interval@300",
    ]);
  });

  it("answers node:timers/promises, scheduler and AbortSignal.timeout on simulated time", async () => {
    const log: string[] = [];
    const report = await runWith(async (ctx) => {
      log.push(`sleep ${await sleep(25, "v")}@${ctx.time.now()}`);
      await immediatePromise();
      await scheduler.wait(5);
      await scheduler.yield();
      log.push(`scheduler@${ctx.time.now()}`);
      let n = 0;
      for await (const value of every(10, "tick")) {
        log.push(`${value}@${ctx.time.now()}`);
        if (++n === 2) break;
      }
      const signal = AbortSignal.timeout(100);
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      log.push(`${(signal.reason as DOMException).name}@${ctx.time.now()}`);
      const controller = new AbortController();
      const pending = sleep(1_000, undefined, { signal: controller.signal });
      setTimeout(() => controller.abort(), 7);
      await pending.catch((error: unknown) =>
        log.push(`${isAbortError(error) ? "AbortError" : String(error)}@${ctx.time.now()}`),
      );
    });
    expect(report.failedRuns).toBe(0);
    expect(log).toEqual(["sleep v@25", "scheduler@30", "tick@40", "tick@50", "TimeoutError@150", "AbortError@157"]);
  });

  it("draws Math.random and crypto randomness from the process's stream: same seed same values, two seeds differ", async () => {
    const draws = async (seed: number) => {
      const values: unknown[] = [];
      const report = await runWith(async () => {
        values.push(
          Math.random(),
          randomUUID(),
          crypto.randomUUID(),
          randomBytes(8).toString("hex"),
          randomInt(1_000_000),
        );
        values.push(Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString("hex"));
      }, [seed]);
      expect(report.failedRuns).toBe(0);
      return { values, hash: report.seeds[0]!.traceHash };
    };
    const a = await draws(5);
    const b = await draws(5);
    const c = await draws(6);
    expect(b).toEqual(a);
    expect(c.values).not.toEqual(a.values);
    const uuid = a.values[1] as string;
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.values[0]).toBeGreaterThanOrEqual(0);
    expect(a.values[0]).toBeLessThan(1);
  });

  it("timers count in the trace hash: same seed twice equal, a different timer schedule hashes differently", async () => {
    const hashOf = async (delayMs: number, seed = 3) => {
      const report = await runWith(
        async (ctx) => {
          for (let i = 0; i < 5; i++) setTimeout(() => {}, delayMs * (i + 1));
          await ctx.time.sleep(1_000);
        },
        [seed],
      );
      return report.seeds[0]!.traceHash;
    };
    expect(await hashOf(10)).toBe(await hashOf(10));
    expect(await hashOf(10)).not.toBe(await hashOf(11));
  });

  it("gives the same trace in paranoid stepping mode (a macrotask per step) as in fast mode", async () => {
    const hashIn = async (mode: "fast" | "paranoid") => {
      const report = await new SimulationBuilder()
        .clockFaults("none")
        .nodeRuntime()
        .steppingMode(mode)
        .workloadFactory(() =>
          workload(async (ctx) => {
            const interval = setInterval(() => ctx.trace.info("tick", { id: randomUUID() }), 7);
            await sleep(50);
            clearInterval(interval);
            await new Promise((resolve) => setImmediate(resolve));
          }),
        )
        .setDebugSeeds([13])
        .setIterations(1)
        .run();
      expect(report.failedRuns).toBe(0);
      return report.seeds[0]!.traceHash;
    };
    expect(await hashIn("paranoid")).toBe(await hashIn("fast"));
  });

  it("gives every process its own random stream: two processes never draw the same ids", async () => {
    const ids = new Map<string, string[]>();
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .nodeRuntime()
      .processes(3, () => ({
        name: "node",
        async run(ctx) {
          const mine = ids.get(ctx.topology.myIp) ?? [];
          ids.set(ctx.topology.myIp, mine);
          for (let i = 0; i < 4; i++) mine.push(randomUUID());
          await ctx.time.sleep(10_000);
        },
      }))
      .workloadFactory(() => workload((ctx) => ctx.time.sleep(100)))
      .setDebugSeeds([9])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(0);
    const all = [...ids.values()].flat();
    expect(ids.size).toBe(3);
    expect(new Set(all).size).toBe(all.length);
  });

  it("a crashed process's timers never fire; the rebooted process continues its stream", async () => {
    const fired: number[] = [];
    const firstIds: string[] = [];
    let boots = 0;
    const server = (): Process => ({
      name: "server",
      async run(ctx) {
        const boot = ++boots;
        firstIds.push(randomUUID());
        setTimeout(() => fired.push(boot), 1_000);
        setInterval(() => fired.push(boot * 100), 400);
        await ctx.time.sleep(60_000);
      },
    });
    const injector = (): FaultInjector => ({
      name: "crash-once",
      async inject(ctx) {
        await ctx.time.sleep(500);
        ctx.rebootWithDelays(ctx.processIps()[0]!, "crash", 5_000, 0);
        try {
          for (;;) await ctx.time.sleep(60_000);
        } catch (error) {
          if (!isAbortError(error)) throw error;
        }
      },
    });
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .nodeRuntime()
      .networkFaults("none")
      .processes(1, server)
      .workloadFactory(() => workload((ctx) => ctx.time.sleep(5_800)))
      .chaosDuration(8_000)
      .faultFactory(injector)
      .setDebugSeeds([7])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(0);
    expect(boots).toBe(2);
    // Boot 1 ran 0..500 ms: its interval fired once at 400, its 1 s timeout never; boot 2 started at 5.5 s.
    expect(fired).toEqual([100]);
    expect(firstIds[0]).not.toBe(firstIds[1]);
  });

  it("a timer callback that throws fails the seed naming the process", async () => {
    const report = await runWith(async (ctx) => {
      setTimeout(() => {
        throw new Error("boom in a timer");
      }, 5);
      await ctx.time.sleep(50);
    });
    expect(report.failedRuns).toBe(1);
    const failure = report.seeds[0]!.failures[0]!;
    expect(failure.message).toContain("uncaught exception in a timer callback of w@10.0.0.1: Error: boom in a timer");
  });

  it("names the process whose code runs (currentVirtualProcess), and none outside a seed", async () => {
    const actors: (string | undefined)[] = [];
    await runWith(async (ctx) => {
      actors.push(currentVirtualProcess()?.actor);
      await ctx.time.sleep(1);
      actors.push(currentVirtualProcess()?.actor);
    });
    expect(actors).toEqual(["w@10.0.0.1", "w@10.0.0.1"]);
    expect(currentVirtualProcess()).toBeNull();
  });

  it("is off by default: the same calls fail the seed as escapes", async () => {
    const report = await runWith(async () => void Date.now(), [11], false);
    expect(report.failedRuns).toBe(1);
    expect(report.seeds[0]!.failures[0]!.kind).toBe("escape");
  });

  // Real I/O stays outside the runtime: [call named, what the message says to use, the call].
  const outside: [string, string, () => unknown][] = [
    ["fs.writeFileSync", "ctx.storage", () => writeFileSync(NEVER_WRITTEN, "x")],
    ["child_process.spawn", "builder.processes", () => spawn("true")],
    ["process.dlopen", "provider interface", () => process.dlopen({ exports: {} }, NO_SUCH_ADDON)],
  ];
  for (const [call, instead, io] of outside) {
    it(`leaves ${call} outside: it still fails the seed, naming the call and what to use instead`, async () => {
      const report = await runWith(async () => {
        try {
          io();
        } catch {
          // The escape is recorded before the throw.
        }
      });
      expect(report.failedRuns).toBe(1);
      const failure = report.seeds[0]!.failures[0]!;
      expect(failure.kind).toBe("escape");
      expect(failure.message).toContain(call);
      expect(failure.message).toContain(instead);
    });
  }
});
