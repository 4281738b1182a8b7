/**
 * A connect into a black hole (a partition, or a SYN dropped by a `connect_hang`) fails with
 * ETIMEDOUT after the network's connect timeout (Linux's 127 s by default; 0 turns it off), through
 * the provider API (`IoError`) and node:net (Node's error fields). A reachable peer connects as
 * before, and a connect released by a healed partition before its timeout leaves no trace of it.
 *
 * These simulations run exact clocks (`.clockFaults("none")`): they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import net from "node:net";
import { IoError } from "@moonpool/core";
import { describe, expect, it } from "vitest";
import {
  NETWORK_FAULT_KINDS,
  NETWORK_NO_FAULTS,
  SimulationBuilder,
  type NetworkConfig,
  type SimContext,
} from "../src/index.ts";
import { DEFAULT_CONNECT_TIMEOUT_US } from "../src/tuning.ts";
import { Actor, CLIENT_IP, harness, run, SERVER_ADDR, SERVER_IP, type Harness } from "./fixtures/world-harness.ts";

const MS = 1000;

/** Connects at 0 ms; records when and how the connect ended. */
function connectAt(h: Harness): Actor<{ atMs: number; code: string | undefined; message: string }> {
  return new Actor(async () => {
    try {
      await h.client.network.connect(SERVER_ADDR);
      return { atMs: h.world.nowMs, code: "connected", message: "" };
    } catch (error) {
      return { atMs: h.world.nowMs, code: error instanceof IoError ? error.code : undefined, message: String(error) };
    }
  });
}

function listen(h: Harness): void {
  new Actor(async () => {
    const listener = await h.server.network.bind(SERVER_ADDR);
    await listener.accept();
  });
}

describe("the provider API", () => {
  it("the default is Linux's 127 s", () => {
    expect(DEFAULT_CONNECT_TIMEOUT_US).toBe(127_000_000);
  });

  it("a connect held by a partition fails with ETIMEDOUT after the connect timeout", async () => {
    const h = harness(1);
    listen(h);
    h.world.network.partitions.cutPair(CLIENT_IP, SERVER_IP, 1_000_000 * MS, "manual");
    const client = connectAt(h);
    await run(h.world, () => client.done);
    expect(client.value).toMatchObject({ atMs: 127_000, code: "ETIMEDOUT" });
    expect(client.value!.message).toContain(`connect to ${SERVER_ADDR} timed out after 127000 ms`);
  });

  it("a configured timeout applies; 0 keeps waiting as long as the partition holds", async () => {
    const short = harness(1, { connectTimeoutUs: 3_000 * MS });
    listen(short);
    short.world.network.partitions.cutPair(SERVER_IP, CLIENT_IP, 1_000_000 * MS, "manual");
    const timed = connectAt(short);
    await run(short.world, () => timed.done);
    expect(timed.value).toMatchObject({ atMs: 3_000, code: "ETIMEDOUT" });

    const off = harness(1, { connectTimeoutUs: 0 });
    listen(off);
    off.world.network.partitions.cutPair(SERVER_IP, CLIENT_IP, 1_000_000 * MS, "manual");
    const waiting = connectAt(off);
    expect(await run(off.world, () => waiting.done, 500_000 * MS)).toBe("deadline");
    expect(waiting.done).toBe(false);
  });

  it("a partition healed before the timeout lets the connect through, and the timeout never fires", async () => {
    const h = harness(4);
    listen(h);
    h.world.network.partitions.cutPair(CLIENT_IP, SERVER_IP, 2_000 * MS, "manual");
    const client = connectAt(h);
    await run(h.world, () => client.done);
    expect(client.value!.code).toBe("connected");
    expect(client.value!.atMs).toBeGreaterThanOrEqual(2_000);
    // Nothing is left to happen: no timeout event waits at 127 s.
    expect(await run(h.world, () => false, 200_000 * MS)).toBe("idle");
    expect(h.world.nowMs).toBeLessThan(3_000);
  });

  it("a reachable peer connects within the connect latency", async () => {
    const h = harness(4);
    listen(h);
    const client = connectAt(h);
    await run(h.world, () => client.done);
    expect(client.value!.code).toBe("connected");
    expect(client.value!.atMs).toBeLessThan(20);
  });

  it("a connect whose SYN is dropped (connect_hang) fails with ETIMEDOUT", async () => {
    const h = harness(1, { connectFailureMode: "probabilistic", connectFailureProbability: 1 });
    listen(h);
    const client = connectAt(h);
    await run(h.world, () => client.done);
    expect(h.faults(NETWORK_FAULT_KINDS.connectHang)).toHaveLength(1);
    expect(client.value).toMatchObject({ atMs: 127_000, code: "ETIMEDOUT" });
  });

  it("refuses a connect timeout that is not a whole number of microseconds", () => {
    const bad: NetworkConfig = { ...NETWORK_NO_FAULTS, connectTimeoutUs: -1 };
    expect(() => new SimulationBuilder().clockFaults("none").networkFaults(bad)).toThrow(
      /connectTimeoutUs must be an integer number of microseconds >= 0 \(0: no timeout\), got -1/,
    );
  });
});

describe("node:net", () => {
  const PORT = 7400;

  async function connectFromClient(partitioned: boolean, connectTimeoutUs?: number) {
    const outcome: { event?: string; atMs?: number; error?: NodeJS.ErrnoException } = {};
    const config: NetworkConfig =
      connectTimeoutUs === undefined ? NETWORK_NO_FAULTS : { ...NETWORK_NO_FAULTS, connectTimeoutUs };
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => ({
        name: "server",
        async run(ctx: SimContext) {
          net.createServer(() => {}).listen(PORT);
          await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
        },
      }))
      .workload({
        name: "client",
        async run(ctx: SimContext) {
          await ctx.time.sleep(10);
          const socket = net.connect(PORT, ctx.topology.processIps[0]!);
          await new Promise<void>((resolve) => {
            socket.once("connect", () => {
              Object.assign(outcome, { event: "connect", atMs: ctx.time.now() });
              socket.destroy();
              resolve();
            });
            socket.once("error", (error: NodeJS.ErrnoException) => {
              Object.assign(outcome, { event: "error", atMs: ctx.time.now(), error });
              resolve();
            });
          });
        },
      })
      // The chaos window's end heals every partition: it outlasts the timeout.
      .chaosDuration(300_000)
      .faultFactory(() => ({
        name: "cut",
        async inject(ctx) {
          if (partitioned) ctx.partitionBetween("10.0.0.1", "10.0.1.1", 1_000_000);
        },
      }))
      .runTimeBudget(600_000)
      .networkFaults(config)
      .setDebugSeeds([3])
      .setIterations(1)
      .run();
    return { report, outcome };
  }

  it("emits Node's connect ETIMEDOUT error after the timeout across a partition", async () => {
    const { report, outcome } = await connectFromClient(true);
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(outcome.event).toBe("error");
    expect(outcome.atMs).toBeCloseTo(127_010, 0);
    const error = outcome.error! as NodeJS.ErrnoException & { address?: string; port?: number };
    expect(error.message.startsWith("connect ETIMEDOUT 10.0.1.1:7400")).toBe(true);
    expect({ code: error.code, errno: error.errno, syscall: error.syscall, address: error.address }).toEqual({
      code: "ETIMEDOUT",
      errno: -110,
      syscall: "connect",
      address: "10.0.1.1",
    });
    expect(error.port).toBe(PORT);
  });

  it("a reachable peer connects at once; a custom timeout is honoured", async () => {
    const reachable = await connectFromClient(false);
    expect(reachable.outcome.event).toBe("connect");
    expect(reachable.outcome.atMs!).toBeLessThan(50);
    const short = await connectFromClient(true, 2_000_000);
    expect(short.outcome.event).toBe("error");
    expect(short.outcome.atMs).toBeCloseTo(2_010, 0);
  });
});

describe("determinism of connect timeouts", () => {
  let timeouts = 0;
  const build = (seed: number, mode: "fast" | "paranoid" = "fast") =>
    new SimulationBuilder()
      .clockFaults("none")
      .processes(2, () => ({
        name: "server",
        async run(ctx: SimContext) {
          const listener = await ctx.network.bind(`${ctx.topology.myIp}:4500`);
          for (;;) void (await listener.accept()).close().catch(() => {});
        },
      }))
      .workload({
        name: "dialer",
        async run(ctx: SimContext) {
          for (let i = 0; i < 40; i++) {
            const ips = ctx.topology.processIps;
            const ip = ips[ctx.random.randomRange(0, ips.length)]!;
            try {
              await (await ctx.network.connect(`${ip}:4500`)).close();
            } catch (error) {
              if (error instanceof IoError && error.code === "ETIMEDOUT") timeouts++;
            }
            await ctx.time.sleep(ctx.random.randomRange(10, 200));
          }
        },
      })
      .networkFaults({
        ...NETWORK_NO_FAULTS,
        partitionProbability: 0.2,
        partitionDurationUs: [500_000, 3_000_000],
        connectTimeoutUs: 700_000,
      })
      .steppingMode(mode)
      .setDebugSeeds([seed])
      .setIterations(1);

  it("the same seed gives the same hash twice and in paranoid mode; two seeds differ", async () => {
    timeouts = 0;
    const a = (await build(21).run()).seeds[0]!;
    expect(timeouts).toBeGreaterThan(0);
    const b = (await build(21).run()).seeds[0]!;
    const p = (await build(21, "paranoid").run()).seeds[0]!;
    const c = (await build(22).run()).seeds[0]!;
    expect(a.ok, JSON.stringify(a.failures)).toBe(true);
    expect(b.traceHash).toBe(a.traceHash);
    expect(p.traceHash).toBe(a.traceHash);
    expect(c.traceHash).not.toBe(a.traceHash);
  });
});
