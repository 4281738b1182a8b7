/**
 * Node's crash semantics in a simulated process: an unhandled rejection or an uncaught exception
 * ends the process at the step that made it (its time and actor in the failure), a process's own
 * `process.on(...)` listeners handle it as in Node, and `processErrors("crashProcess")` makes it a
 * crash the workload and invariants judge, from which a reboot brings the process back.
 *
 * These simulations run exact clocks (`.clockFaults("none")`): they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SimulationBuilder, type Process, type SimContext, type SimulationReport } from "../src/index.ts";
import { PROCESS_CRASHED_EVENT_NAME } from "../src/runner/process-errors.ts";

const PORT = 7300;

function waitForShutdown(ctx: SimContext): Promise<void> {
  return new Promise((resolve) => ctx.shutdown.addEventListener("abort", () => resolve(), { once: true }));
}

/** A process that rejects a promise nobody handles at 100 ms, then would mark 150 ms. */
function leaky(marks: string[]): Process {
  return {
    name: "leaky",
    async run(ctx) {
      await ctx.time.sleep(100);
      marks.push(`rejecting@${ctx.time.now()}`);
      void Promise.reject(new Error("lost write for doc 4f1c2a9e"));
      await ctx.time.sleep(50);
      marks.push(`after@${ctx.time.now()}`);
      await waitForShutdown(ctx);
    },
  };
}

function sleeper(ms: number) {
  return { name: "client", run: (ctx: SimContext) => ctx.time.sleep(ms) };
}

function crashedEvents(report: SimulationReport): unknown[] {
  return report.seeds[0]!.failures.filter((f) => f.kind === "unhandledRejection" || f.kind === "uncaughtException");
}

describe("an unhandled rejection in a process", () => {
  it("is reported at the simulated time it happened, with its actor, and the process runs nothing after it", async () => {
    const marks: string[] = [];
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => leaky(marks))
      .workloadFactory(() => sleeper(500))
      .networkFaults("none")
      .setDebugSeeds([5])
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(1);
    const failure = report.seeds[0]!.failures[0]!;
    expect(failure).toMatchObject({ kind: "unhandledRejection", timeMs: 100, actor: "leaky@10.0.1.1" });
    expect(failure.message).toContain("lost write for doc 4f1c2a9e");
    expect(marks).toEqual(["rejecting@100"]);
    expect(crashedEvents(report)).toHaveLength(1);
  });

  it("fails the seed by default; with processErrors('crashProcess') only the process ends, traced", async () => {
    const marks: string[] = [];
    let crashed: { timeMs: number; source: string; kind: string | undefined }[] = [];
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => leaky(marks))
      .workloadFactory(() => sleeper(500))
      .invariantFn("sees the crash", (q) => {
        crashed = q
          .snapshot(PROCESS_CRASHED_EVENT_NAME)
          .map((e) => ({ timeMs: e.timeMs, source: e.source, kind: e.str("kind") }));
      })
      .networkFaults("none")
      .processErrors("crashProcess")
      .setDebugSeeds([5])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(marks).toEqual(["rejecting@100"]);
    expect(crashed).toEqual([{ timeMs: 100, source: "leaky@10.0.1.1", kind: "unhandledRejection" }]);
  });

  it("refuses an unknown processErrors mode with the valid ones", () => {
    expect(() => new SimulationBuilder().clockFaults("none").processErrors("restart" as never)).toThrow(
      /processErrors\(mode\): mode must be "failSeed" or "crashProcess", got "restart"/,
    );
  });
});

describe("a throw in a socket listener", () => {
  function server(onData: (socket: net.Socket) => void): () => Process {
    return () => ({
      name: "server",
      async run(ctx) {
        net.createServer((socket) => socket.on("data", () => onData(socket))).listen(PORT);
        await waitForShutdown(ctx);
      },
    });
  }

  function pinger(log: string[]) {
    return {
      name: "client",
      async run(ctx: SimContext) {
        for (let attempt = 0; attempt < 20; attempt++) {
          await ctx.time.sleep(200);
          const socket = net.connect(PORT, ctx.topology.processIps[0]!);
          const reply = await new Promise<string>((resolve) => {
            socket.on("data", (data) => resolve(String(data)));
            socket.on("error", (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
            socket.on("close", () => resolve("closed"));
            socket.write("ping");
          });
          socket.destroy();
          log.push(`${reply}@${ctx.time.now()}`);
          if (reply === "pong") return;
        }
      },
    };
  }

  it("is an uncaught exception of the listening process, at the instant of the data", async () => {
    const log: string[] = [];
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(
        1,
        server(() => {
          throw new Error("parser bug");
        }),
      )
      .workloadFactory(() => pinger(log))
      .networkFaults("none")
      .setDebugSeeds([2])
      .setIterations(1)
      .run();
    const failure = report.seeds[0]!.failures[0]!;
    expect(failure.kind).toBe("uncaughtException");
    expect(failure.actor).toBe("server@10.0.1.1");
    expect(failure.message).toContain("uncaught exception in a socket 'data' listener of server@10.0.1.1");
    expect(failure.message).toContain("parser bug");
    // The crash reset the client's connection, so the client saw it at the same instant.
    expect(log[0]).toMatch(new RegExp(`^(error ECONNRESET|closed)@${failure.timeMs}$`));
  });

  it("with crashProcess, a reboot brings the process back and the workload judges the outcome", async () => {
    const log: string[] = [];
    let boots = 0;
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => ({
        name: "server",
        async run(ctx) {
          const boot = ++boots;
          net
            .createServer((socket) =>
              socket.on("data", () => {
                if (boot === 1) throw new Error("first boot cannot parse");
                socket.write("pong");
              }),
            )
            .listen(PORT);
          await waitForShutdown(ctx);
        },
      }))
      .workloadFactory(() => pinger(log))
      .chaosDuration(5_000)
      .faultFactory(() => ({
        name: "restarter",
        async inject(ctx) {
          await ctx.time.sleep(1_000);
          ctx.rebootWithDelays("10.0.1.1", "crash", 300, 0);
        },
      }))
      .networkFaults("none")
      .processErrors("crashProcess")
      .setDebugSeeds([2])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(boots).toBe(2);
    expect(log.at(-1)).toMatch(/^pong@/);
    expect(Number(log.at(-1)!.split("@")[1])).toBeGreaterThanOrEqual(1_300);
  });
});

describe("a process's own process.on listeners", () => {
  const hostSeen: unknown[] = [];
  const host = (reason: unknown) => hostSeen.push(reason);
  beforeEach(() => {
    hostSeen.length = 0;
    process.on("unhandledRejection", host);
  });
  afterEach(() => {
    process.off("unhandledRejection", host);
  });

  it("handle the process's errors as in Node: no crash, the code goes on, the host's listener never sees them", async () => {
    const seen: string[] = [];
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .nodeRuntime()
      .processes(1, () => ({
        name: "careful",
        async run(ctx) {
          process.on("unhandledRejection", (reason) =>
            seen.push(`rejection ${(reason as Error).message}@${ctx.time.now()}`),
          );
          process.on("uncaughtException", (error, origin) => seen.push(`${origin} ${(error as Error).message}`));
          await ctx.time.sleep(100);
          void Promise.reject(new Error("handled by the listener"));
          setTimeout(() => {
            throw new Error("timer threw");
          }, 10);
          await ctx.time.sleep(50);
          seen.push(`after@${ctx.time.now()}`);
          await waitForShutdown(ctx);
        },
      }))
      .workloadFactory(() => sleeper(500))
      .networkFaults("none")
      .setDebugSeeds([5])
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toEqual(["rejection handled by the listener@100", "uncaughtException timer threw", "after@150"]);
    expect(hostSeen).toEqual([]);
    expect(process.listeners("unhandledRejection")).toContain(host);
  });

  it("an uncaughtException listener alone receives a rejection as Node's ERR_UNHANDLED_REJECTION; another process's listener does not help", async () => {
    const seen: string[] = [];
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .nodeRuntime()
      .processes(2, () => ({
        name: "node",
        async run(ctx) {
          const me = ctx.topology.myIp;
          if (me.endsWith(".1")) {
            process.on("uncaughtException", (error: NodeJS.ErrnoException, origin) =>
              seen.push(`${me} ${origin} ${error.code}`),
            );
          }
          await ctx.time.sleep(100);
          void Promise.reject("not an Error");
          await waitForShutdown(ctx);
        },
      }))
      .workloadFactory(() => sleeper(500))
      .networkFaults("none")
      .setDebugSeeds([5])
      .setIterations(1)
      .run();
    expect(seen).toEqual(["10.0.1.1 unhandledRejection ERR_UNHANDLED_REJECTION"]);
    const failures = report.seeds[0]!.failures;
    expect(failures.map((f) => [f.kind, f.actor, f.timeMs])).toEqual([["unhandledRejection", "node-1@10.0.1.2", 100]]);
    expect(failures[0]!.message).toContain('The promise rejected with the reason "not an Error"');
  });

  it("a listener registered in a seed is gone in the next seed (it belonged to that process)", async () => {
    const counts: number[] = [];
    await new SimulationBuilder()
      .clockFaults("none")
      .nodeRuntime()
      .processes(1, () => ({
        name: "p",
        async run(ctx) {
          counts.push(process.listenerCount("uncaughtException"));
          process.on("uncaughtException", () => {});
          await waitForShutdown(ctx);
        },
      }))
      .workloadFactory(() => sleeper(10))
      .setIterations(2)
      .run();
    expect(counts).toEqual([0, 0]);
  });
});

describe("determinism of process errors", () => {
  /** Processes that fail at a random time and are rebooted at random: the timeline depends on the seed. */
  let crashes = 0;
  const build = (seed: number, mode: "fast" | "paranoid" = "fast") =>
    new SimulationBuilder()
      .clockFaults("none")
      .invariantFn("counts crashes", (q) => {
        crashes = q.count(PROCESS_CRASHED_EVENT_NAME);
      })
      .nodeRuntime()
      .processes(3, () => ({
        name: "flaky",
        async run(ctx) {
          for (;;) {
            await ctx.time.sleep(ctx.random.randomRange(50, 500));
            if (ctx.random.randomRange(0, 4) === 0) void Promise.reject(new Error(`flake ${Math.random()}`));
            if (ctx.random.randomRange(0, 6) === 0)
              setTimeout(() => {
                throw new Error("timer flake");
              }, 1);
          }
        },
      }))
      .workloadFactory(() => sleeper(4_000))
      .chaosDuration(4_000)
      .faultFactory(() => ({
        name: "restarter",
        async inject(ctx) {
          for (;;) {
            await ctx.time.sleep(ctx.random.randomRange(200, 800));
            const ips = ctx.processIps();
            const ip = ips[ctx.random.randomRange(0, ips.length)]!;
            ctx.rebootWithDelays(ip, "crash", 50, 0);
          }
        },
      }))
      .processErrors("crashProcess")
      .steppingMode(mode)
      .setDebugSeeds([seed])
      .setIterations(1);

  it("the same seed gives the same hash twice and in paranoid mode; two seeds differ", async () => {
    const a = (await build(11).run()).seeds[0]!;
    expect(crashes).toBeGreaterThan(2);
    const b = (await build(11).run()).seeds[0]!;
    const p = (await build(11, "paranoid").run()).seeds[0]!;
    const c = (await build(12).run()).seeds[0]!;
    expect(a.ok, JSON.stringify(a.failures)).toBe(true);
    expect(b.traceHash).toBe(a.traceHash);
    expect(p.traceHash).toBe(a.traceHash);
    expect(c.traceHash).not.toBe(a.traceHash);
  });
});
