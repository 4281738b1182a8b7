/**
 * `node:http` inside a seed: Node's own client and server over simulated sockets; determinism
 * under network chaos; keep-alive per process; socket timers die with a crashed process; what
 * stays outside (fetch without nodeRuntime(), https) fails the seed naming what to use; outside a seed, the real modules.
 */
import http, { request as namedRequest } from "node:http";
import https from "node:https";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { Chaos, SimulationBuilder, type FaultContext, type SimContext } from "../../src/index.ts";

const PORT = 8080;

function get(host: string, path: string): Promise<{ status: number | null; body: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host, port: PORT, path, timeout: 500 }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? null, body }));
      res.on("error", () => resolve({ status: null, body: "" }));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve({ status: null, body: "" }));
  });
}

function serverProcess(connections: number[] = []) {
  return {
    name: "web",
    run: async (ctx: SimContext) => {
      const server = http.createServer((req, res) => res.end(`${req.url} from ${req.socket.localAddress}`));
      server.on("connection", () => connections.push(1));
      server.listen(PORT);
      await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    },
  };
}

function chattyClient(replies: string[]) {
  return {
    name: "client",
    run: async (ctx: SimContext) => {
      const host = ctx.topology.processIps[0]!;
      await ctx.time.sleep(20);
      for (let i = 0; i < 10; i++) {
        const reply = await get(host, `/n${i}`);
        replies.push(`${reply.status} ${reply.body}`);
        await ctx.time.sleep(ctx.random.randomRange(1, 50));
      }
    },
  };
}

function chaotic(): SimulationBuilder {
  return new SimulationBuilder()
    .processes(1, () => serverProcess())
    .workload(chattyClient([]))
    .chaosDuration(500)
    .enableChaos([Chaos.network("random")]);
}

describe("node:http over the simulated network", () => {
  it("the same seed gives the same trace hash under network chaos; other seeds differ", async () => {
    const a = await chaotic().setBaseSeed(11).setIterations(8).run();
    const b = await chaotic().setBaseSeed(11).setIterations(8).run();
    expect(a.failedRuns, a.toString()).toBe(0);
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(8);
  });

  it("answers with Node's own server; one keep-alive connection serves a process's sequential requests", async () => {
    const replies: string[] = [];
    const connections: number[] = [];
    const report = await new SimulationBuilder()
      .processes(1, () => serverProcess(connections))
      .workload(chattyClient(replies))
      .networkFaults("none")
      .setBaseSeed(2)
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(replies).toEqual(Array.from({ length: 10 }, (_, i) => `200 /n${i} from 10.0.1.1`));
    expect(connections).toHaveLength(1);
  });

  it("a crashed process's socket timers never fire, and its restarted incarnation serves again", async () => {
    const timeouts: number[] = [];
    const started: number[] = [];
    const report = await new SimulationBuilder()
      .processes(1, () => ({
        name: "web",
        run: async (ctx: SimContext) => {
          started.push(ctx.time.now());
          const server = http.createServer((_req, res) => res.end("ok"));
          server.listen(PORT);
          const idle = net.connect(PORT, ctx.myIp); // a socket of this process with an idle timer
          idle.on("error", () => {});
          idle.setTimeout(300, () => timeouts.push(ctx.time.now()));
          await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
        },
      }))
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(1_500);
          expect((await get(ctx.topology.processIps[0]!, "/")).status).toBe(200);
        },
      })
      .faultFactory(() => ({
        name: "crasher",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(100);
          ctx.rebootWithDelays(ctx.processIps()[0]!, "crash", 200);
        },
      }))
      .chaosDuration(1_000)
      .networkFaults("none")
      .setBaseSeed(3)
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(started).toHaveLength(2);
    // Only the second incarnation's timer fired (300 ms after it started); the first died at 100 ms.
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]!).toBeGreaterThan(started[1]! + 299);
  });

  it("an ESM named import of http.request (bound at import time) is routed too", async () => {
    let status: number | undefined;
    const report = await new SimulationBuilder()
      .processes(1, () => serverProcess())
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(20);
          status = await new Promise((resolve, reject) => {
            const req = namedRequest({ host: ctx.topology.processIps[0]!, port: PORT, path: "/" }, (res) => {
              res.resume();
              resolve(res.statusCode);
            });
            req.on("error", reject);
            req.end();
          });
        },
      })
      .networkFaults("none")
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(status).toBe(200);
  });

  it("fetch and https fail the seed, saying what to use instead", async () => {
    for (const [call, expected] of [
      [() => fetch("http://10.0.1.1:8080/"), "Use builder.nodeRuntime() (a simulated process's fetch"],
      [() => https.get("https://10.0.1.1:8080/"), "plaintext: https is not simulated"],
    ] as const) {
      const report = await new SimulationBuilder()
        .workload({
          name: "w",
          run: async () => {
            try {
              await call();
            } catch {
              // the seed already failed
            }
          },
        })
        .setIterations(1)
        .run();
      expect(report.failedRuns).toBe(1);
      expect(report.seeds[0]!.failures[0]!.message).toContain(expected);
    }
  });

  it("outside a seed, node:http and node:net are Node's own", async () => {
    const server = http.createServer((_req, res) => res.end("real"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    const body = await new Promise<string>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, agent: false }, (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve(text));
        })
        .on("error", reject);
    });
    expect(body).toBe("real");
    expect(
      net
        .connect(port, "127.0.0.1")
        .on("error", () => {})
        .destroy(),
    ).toBeInstanceOf(net.Socket);
    await new Promise((resolve) => server.close(resolve));
  });
});
