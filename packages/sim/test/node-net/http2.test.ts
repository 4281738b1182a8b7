/**
 * `node:http2` inside a seed: Node's own HTTP/2 server and client sessions over simulated sockets;
 * stream errors; a session closed by its peer's crash; determinism under network chaos; TLS refused
 * with a typed error; outside a seed, the real module.
 *
 * These simulations run exact clocks (`.clockFaults("none")`): they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import http2 from "node:http2";
import { describe, expect, it } from "vitest";
import { simulationArmed } from "../../src/engine/escape-guard.ts";
import { Chaos, Http2TlsInSimulation, SimulationBuilder, type FaultContext, type SimContext } from "../../src/index.ts";
import { VIRTUAL_EPOCH_MS } from "../../src/world/node-runtime/virtual-process.ts";

const PORT = 8443;

type StreamHandler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, ctx: SimContext) => void;

const serveHello: StreamHandler = (stream, headers, ctx) => {
  stream.on("error", () => {});
  if (headers[":path"] === "/reset") return stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
  stream.respond({ ":status": 200 });
  stream.end(`hello ${headers[":path"]} from ${ctx.myIp}`);
};

function serverProcess(onStream: StreamHandler = serveHello) {
  return {
    name: "h2",
    run: async (ctx: SimContext) => {
      const server = http2.createServer();
      server.on("stream", (stream, headers) => onStream(stream, headers, ctx));
      server.listen(PORT);
      await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
      server.close();
    },
  };
}

/** One server process answering with `onStream`, one client workload, no network faults, one seed. */
function oneExchange(onStream: StreamHandler, run: (ctx: SimContext) => Promise<void>) {
  return new SimulationBuilder()
    .clockFaults("none")
    .processes(1, () => serverProcess(onStream))
    .workload({ name: "client", run })
    .networkFaults("none")
    .setIterations(1);
}

function request(session: http2.ClientHttp2Session, path: string): Promise<string> {
  return new Promise((resolve) => {
    const req = session.request({ ":path": path });
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (data += chunk));
    req.on("end", () => resolve(data));
    req.on("error", (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
    req.setTimeout(500, () => req.close(http2.constants.NGHTTP2_CANCEL));
    req.end();
  });
}

function client(out: string[], paths: readonly string[], gapMs = 10) {
  return {
    name: "client",
    run: async (ctx: SimContext) => {
      await ctx.time.sleep(20);
      const session = http2.connect(`http://${ctx.topology.processIps[0]}:${PORT}`);
      session.on("error", (error: NodeJS.ErrnoException) => out.push(`session error ${error.code}`));
      session.on("close", () => out.push(`session closed at ${Math.round(ctx.time.now())}`));
      for (const path of paths) {
        if (session.closed || session.destroyed) break;
        out.push(await request(session, path));
        await ctx.time.sleep(gapMs);
      }
      session.close();
    },
  };
}

function run(out: string[], paths: readonly string[]) {
  return new SimulationBuilder()
    .clockFaults("none")
    .processes(1, () => serverProcess())
    .workload(client(out, paths));
}

describe("node:http2 over the simulated network", () => {
  it("answers requests on one session with Node's own HTTP/2 server", async () => {
    const out: string[] = [];
    const report = await run(out, ["/a", "/b", "/c"]).networkFaults("none").setBaseSeed(1).setIterations(1).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(out.slice(0, 3)).toEqual(["hello /a from 10.0.1.1", "hello /b from 10.0.1.1", "hello /c from 10.0.1.1"]);
  });

  it("a stream the server resets fails that stream only; the session serves the next", async () => {
    const out: string[] = [];
    const report = await run(out, ["/reset", "/after"]).networkFaults("none").setBaseSeed(2).setIterations(1).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(out.slice(0, 2)).toEqual(["error ERR_HTTP2_STREAM_ERROR", "hello /after from 10.0.1.1"]);
  });

  it("the client session closes when the server's process crashes", async () => {
    const out: string[] = [];
    const report = await run(
      out,
      Array.from({ length: 20 }, (_, i) => `/n${i}`),
    )
      .faultFactory(() => ({
        name: "crasher",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(100);
          ctx.rebootWithDelays(ctx.processIps()[0]!, "crash", 5_000);
        },
      }))
      .chaosDuration(1_000)
      .networkFaults("none")
      .setBaseSeed(3)
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const closed = out.find((line) => line.startsWith("session closed at "));
    expect(closed, out.join("\n")).toBeDefined();
    // The crash at 100 ms resets the connection: the session errors and closes then, not at the end.
    expect(Number(closed!.slice("session closed at ".length))).toBe(100);
    expect(out).toContain("session error ECONNRESET");
    expect(out.filter((line) => line.startsWith("hello")).length).toBeLessThan(20);
  });

  it("the same seed gives the same trace hash under network chaos; other seeds differ", async () => {
    const chaotic = () =>
      run(
        [],
        Array.from({ length: 10 }, (_, i) => `/n${i}`),
      )
        .chaosDuration(500)
        .enableChaos([Chaos.network("random")]);
    const a = await chaotic().setBaseSeed(11).setIterations(8).run();
    const b = await chaotic().setBaseSeed(11).setIterations(8).run();
    expect(a.failedRuns, a.toString()).toBe(0);
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(8);
  });

  it("responses carry no date header (Node reads it from the real clock); one the server sets is kept", async () => {
    const dates: (string | undefined)[] = [];
    const report = await oneExchange(
      (stream, headers) => {
        const own = headers[":path"] === "/own" ? { date: "Thu, 01 Jan 2026 00:00:00 GMT" } : {};
        stream.respond({ ":status": 200, ...own });
        stream.end("ok");
      },
      async (ctx) => {
        await ctx.time.sleep(20);
        const session = http2.connect(`http://${ctx.topology.processIps[0]}:${PORT}`);
        session.on("error", () => {});
        for (const path of ["/plain", "/own"]) {
          await new Promise<void>((resolve) => {
            const req = session.request({ ":path": path });
            req.on("response", (headers) => dates.push(headers.date as string | undefined));
            req.on("end", resolve).resume();
          });
        }
        session.close();
      },
    ).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(dates).toEqual([undefined, "Thu, 01 Jan 2026 00:00:00 GMT"]);
  });

  it("stream.setTimeout runs on simulated time: 'timeout' exactly 500 ms after the last activity", async () => {
    const out: string[] = [];
    const report = await oneExchange(
      (stream) => stream.on("error", () => {}), // never answers
      async (ctx) => {
        await ctx.time.sleep(20);
        const session = http2.connect(`http://${ctx.topology.processIps[0]}:${PORT}`);
        session.on("error", () => {});
        await new Promise<void>((resolve) => {
          const req = session.request({ ":path": "/hang" });
          req.on("error", () => {});
          req.setTimeout(500, () => {
            out.push(`timeout at ${ctx.time.now()}`);
            req.close(http2.constants.NGHTTP2_CANCEL);
            resolve();
          });
          req.end();
          out.push(`sent at ${ctx.time.now()}`);
        });
        session.close();
      },
    ).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(out).toHaveLength(2);
    const [sent, fired] = out.map((line) => Number(line.split(" at ")[1]));
    // The last activity is the request's own frames leaving: at or just after it was sent.
    expect(fired! - sent!).toBeGreaterThanOrEqual(500);
    expect(fired! - sent!).toBeLessThan(520);
  });

  it("callbacks Node runs between steps (a served stream's 'close') run as their process: virtual clock, timers", async () => {
    const closes: { betweenSteps: boolean; clockMs: number; atMs: number }[] = [];
    const fired: number[] = [];
    const report = await oneExchange(
      (stream, _headers, ctx) => {
        // Node closes a served stream from its native session, on the real loop between steps.
        stream.on("close", () => {
          const atMs = ctx.time.now();
          closes.push({ betweenSteps: !simulationArmed(), clockMs: Date.now() - VIRTUAL_EPOCH_MS, atMs });
          setTimeout(() => fired.push(ctx.time.now() - atMs), 1_000);
        });
        stream.respond({ ":status": 200 });
        stream.end("ok");
      },
      async (ctx) => {
        await ctx.time.sleep(20);
        const session = http2.connect(`http://${ctx.topology.processIps[0]}:${PORT}`);
        session.on("error", () => {});
        for (const path of ["/a", "/b", "/c"]) {
          await new Promise<void>((resolve) => {
            const req = session.request({ ":path": path });
            req.on("close", resolve).resume();
          });
        }
        await ctx.time.sleep(2_000);
        session.close();
      },
    )
      .nodeRuntime()
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(closes).toHaveLength(3);
    expect(closes.some((c) => c.betweenSteps)).toBe(true);
    for (const c of closes) expect(Math.abs(c.clockMs - c.atMs)).toBeLessThan(1_000); // virtual, not the real date
    expect(fired.map(Math.round)).toEqual([1_000, 1_000, 1_000]); // virtual timers, on simulated time
  });

  it("http2 called by code that is no simulated process (a fault injector) fails the seed as an escape", async () => {
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => serverProcess())
      .workload({ name: "idle", run: async (ctx: SimContext) => void (await ctx.time.sleep(50)) })
      .faultFactory(() => ({
        name: "intruder",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(10);
          try {
            http2.connect(`http://${ctx.processIps()[0]}:${PORT}`);
          } catch {
            // The escape is recorded before the throw.
          }
        },
      }))
      .chaosDuration(100)
      .networkFaults("none")
      .setIterations(1)
      .run();
    expect(report.failedRuns).toBe(1);
    const failure = report.seeds[0]!.failures.find((f) => f.kind === "escape");
    expect(failure?.message).toContain("simulated code called http2.connect");
  });

  it("TLS (https:// or createSecureServer) fails the seed with a typed error saying to use h2c", async () => {
    const errors: unknown[] = [];
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .workload({
        name: "client",
        run: async () => {
          for (const call of [() => http2.connect("https://10.0.1.1:8443"), () => http2.createSecureServer()]) {
            try {
              call();
            } catch (error) {
              errors.push(error);
            }
          }
        },
      })
      .networkFaults("none")
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toBeInstanceOf(Http2TlsInSimulation);
      expect((error as Error).message).toContain("(h2c)");
    }
  });

  it("outside a seed, http2 is Node's own", () => {
    const server = http2.createServer();
    expect(server.listening).toBe(false);
    expect(() => http2.createSecureServer({})).not.toThrow();
  });
});
