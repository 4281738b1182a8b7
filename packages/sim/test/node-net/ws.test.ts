/**
 * The unmodified `ws` library inside a seed: a `WebSocketServer` on an `http.createServer` of one
 * simulated process, `WebSocket` clients in others, over the simulated `node:http` upgrade path.
 * Messages in order both ways, a crashed server's clients closing with 1006 and reconnecting once
 * it is back, ws's ping/pong heartbeat on virtual timers, and determinism.
 */
// The simulator first: ws keeps `crypto.randomBytes` and `randomFillSync` from when it loads.
import { Chaos, SimulationBuilder, WorkloadCount, type FaultContext, type SimContext } from "../../src/index.ts";
import { randomFillSync } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";

const PORT = 9000;
const HEARTBEAT_MS = 500;

interface ServerLog {
  readonly events: string[];
}

/** An echo room: every message comes back to its sender prefixed with the server's count. */
function echoServer(log: ServerLog = { events: [] }, heartbeat = false) {
  return {
    name: "ws",
    run: async (ctx: SimContext) => {
      const server = http.createServer();
      const wss = new WebSocketServer({ server });
      const alive = new WeakMap<WebSocket, boolean>();
      let count = 0;
      wss.on("connection", (socket, request) => {
        log.events.push(`${ctx.time.now()} connection ${request.url} key ${request.headers["sec-websocket-key"]}`);
        alive.set(socket, true);
        socket.on("pong", () => alive.set(socket, true));
        socket.on("message", (data) => socket.send(`${++count}:${String(data)}`));
        socket.on("close", (code) => log.events.push(`${ctx.time.now()} server close ${code}`));
        socket.on("error", () => {});
      });
      // ws's documented heartbeat: a connection that did not answer the last ping is dead.
      const interval = heartbeat
        ? setInterval(() => {
            for (const socket of wss.clients) {
              if (alive.get(socket) === false) {
                log.events.push(`${ctx.time.now()} server terminates`);
                socket.terminate();
                continue;
              }
              alive.set(socket, false);
              socket.ping();
            }
          }, HEARTBEAT_MS)
        : undefined;
      server.listen(PORT);
      await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
      clearInterval(interval);
      wss.close();
      server.close();
    },
  };
}

interface Session {
  readonly opened: boolean;
  readonly replies: string[];
  readonly closeCode: number;
  readonly closedAtMs: number;
}

/** One connection: sends `messages`, collects the replies until it closes or all came back. */
function session(ctx: SimContext, messages: readonly string[], heartbeat = false, closeWhenDone = true) {
  const ip = ctx.topology.ipsInGroup("ws")[0]!;
  return new Promise<Session>((resolve) => {
    const socket = new WebSocket(`ws://${ip}:${PORT}/room?from=${ctx.myIp}`);
    const replies: string[] = [];
    let opened = false;
    let pingTimer: ReturnType<typeof setTimeout> | undefined;
    // ws's documented client heartbeat: no ping within two intervals means the server is gone.
    const expectPing = () => {
      clearTimeout(pingTimer);
      pingTimer = setTimeout(() => socket.terminate(), 2 * HEARTBEAT_MS + 100);
    };
    socket.on("open", () => {
      opened = true;
      if (heartbeat) expectPing();
      for (const message of messages) socket.send(message);
    });
    socket.on("ping", () => expectPing());
    socket.on("message", (data) => {
      replies.push(String(data));
      if (closeWhenDone && replies.length === messages.length) socket.close(1000, "done");
    });
    socket.on("error", () => {});
    socket.on("close", (closeCode) => {
      clearTimeout(pingTimer);
      resolve({ opened, replies, closeCode, closedAtMs: ctx.time.now() });
    });
  });
}

function chatty(sessions: Session[], count = 10) {
  return (index: number) => ({
    name: `client-${index}`,
    run: async (ctx: SimContext) => {
      await ctx.time.sleep(20 + index);
      const messages = Array.from({ length: count }, (_, i) => `${ctx.myIp}#${i}`);
      sessions.push(await session(ctx, messages));
      await ctx.time.sleep(ctx.random.randomRange(1, 50));
    },
  });
}

function chaotic(): SimulationBuilder {
  return new SimulationBuilder()
    .nodeRuntime()
    .processes(1, () => echoServer())
    .workloads(WorkloadCount.fixed(2), chatty([]))
    .chaosDuration(500)
    .enableChaos([Chaos.network("random")]);
}

describe("ws over the simulated node:http upgrade path", () => {
  it("delivers messages both ways, in order, to clients in two processes", async () => {
    const run = async (sessions: Session[], log: ServerLog) => {
      const report = await new SimulationBuilder()
        .nodeRuntime()
        .processes(1, () => echoServer(log))
        .workloads(WorkloadCount.fixed(2), chatty(sessions, 20))
        .networkFaults("none")
        .setBaseSeed(4)
        .setIterations(1)
        .run();
      expect(report.failedRuns, report.toString()).toBe(0);
    };
    const sessions: Session[] = [];
    const log: ServerLog = { events: [] };
    await run(sessions, log);
    // The handshake keys come from each client process's own random stream: the same on every run.
    const again: ServerLog = { events: [] };
    await run([], again);
    expect(again.events).toEqual(log.events);
    const keys = log.events.filter((e) => e.includes(" connection ")).map((e) => e.split(" key ")[1]);
    expect(new Set(keys).size).toBe(2);
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(s.closeCode).toBe(1000);
      const from = s.replies[0]!.split(":")[1]!.split("#")[0];
      expect(s.replies.map((r) => r.split(":")[1])).toEqual(Array.from({ length: 20 }, (_, i) => `${from}#${i}`));
    }
    // The server numbers the 40 messages in the order it read them; each client sees its own rising.
    const counts = sessions.flatMap((s) => s.replies.map((r) => Number(r.split(":")[0])));
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (const s of sessions) {
      const own = s.replies.map((r) => Number(r.split(":")[0]));
      expect(own).toEqual([...own].sort((a, b) => a - b));
    }
    expect(log.events.filter((e) => e.includes("connection /room?from="))).toHaveLength(2);
    expect(log.events.filter((e) => e.endsWith("server close 1000"))).toHaveLength(2);
  });

  it("Node's 'upgrade' hands over the socket with the bytes after the headers, on both sides", async () => {
    const seen: string[] = [];
    const report = await new SimulationBuilder()
      .processes(1, () => ({
        name: "ws",
        run: async (ctx: SimContext) => {
          const server = http.createServer((_request, response) => response.end("plain"));
          server.on("upgrade", (request, duplex, head) => {
            const socket = duplex as net.Socket;
            seen.push(`server head ${head}`);
            socket.setNoDelay(true);
            socket.setKeepAlive(true, 1_000);
            socket.setTimeout(0);
            // The switch and the first bytes of the new protocol in one write.
            socket.write(
              `HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nhi ${request.url}`,
            );
            socket.on("data", (chunk) => socket.write(`echo ${chunk}`));
          });
          server.listen(PORT);
          await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
        },
      }))
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(20);
          const request = http.request({
            host: ctx.topology.processIps[0]!,
            port: PORT,
            path: "/up",
            headers: { connection: "Upgrade", upgrade: "echo" },
          });
          request.end();
          const [response, socket, head] = await new Promise<[http.IncomingMessage, net.Socket, Buffer]>((resolve) =>
            request.on("upgrade", (...args) => resolve(args)),
          );
          seen.push(`client ${response.statusCode} head ${head}`);
          socket.write("after");
          seen.push(`client data ${await new Promise((resolve) => socket.once("data", (c) => resolve(String(c))))}`);
          // The upgraded socket left the process's keep-alive pool: a plain request gets another one.
          const plain = await new Promise((resolve) =>
            http.get({ host: ctx.topology.processIps[0]!, port: PORT, path: "/" }, (res) => {
              res.setEncoding("utf8");
              res.on("data", (text) =>
                resolve(`${text} on ${res.socket.localPort === socket.localPort ? "same" : "new"}`),
              );
            }),
          );
          seen.push(`client ${plain} socket`);
          socket.destroy();
          // A client that sends the first bytes of the new protocol with its request.
          const raw = net.connect(PORT, ctx.topology.processIps[0]!);
          raw.write("GET /raw HTTP/1.1\r\nHost: ws\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nearly");
          const reply = await new Promise((resolve) => raw.once("data", (c) => resolve(String(c))));
          seen.push(`raw ${String(reply).split("\r\n").at(-1)}`);
          raw.destroy();
        },
      })
      .networkFaults("none")
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toEqual([
      "server head ",
      "client 101 head hi /up",
      "client data echo after",
      "client plain on new socket",
      "server head early",
      "raw hi /raw",
    ]);
  });

  it("a server crash closes the client with 1006; it reconnects once the server is back", async () => {
    const sessions: Session[] = [];
    const report = await new SimulationBuilder()
      .nodeRuntime()
      .processes(1, () => echoServer())
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(20);
          sessions.push(await session(ctx, ["before"], false, false));
          // Reconnect with a fixed backoff on a virtual timer until a session opens.
          for (;;) {
            await new Promise((resolve) => setTimeout(resolve, 200));
            const next = await session(ctx, ["after"]);
            sessions.push(next);
            if (next.opened) break;
          }
        },
      })
      .faultFactory(() => ({
        name: "crasher",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(300);
          ctx.rebootWithDelays(ctx.processIps()[0]!, "crash", 1_000);
        },
      }))
      .chaosDuration(2_000)
      .networkFaults("none")
      .setBaseSeed(5)
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const first = sessions[0]!;
    expect(first.opened).toBe(true);
    expect(first.replies).toEqual(["1:before"]);
    expect(first.closeCode).toBe(1006);
    expect(first.closedAtMs).toBeGreaterThanOrEqual(300);
    // While the server is down, connecting fails (1006 without opening); then a session succeeds.
    const last = sessions[sessions.length - 1]!;
    expect(sessions.length).toBeGreaterThan(2);
    expect(sessions.slice(1, -1).every((s) => !s.opened && s.closeCode === 1006)).toBe(true);
    expect(last).toMatchObject({ opened: true, replies: ["1:after"], closeCode: 1000 });
    expect(last.closedAtMs).toBeGreaterThan(1_300);
  });

  it("ping/pong heartbeats on virtual timers find a partitioned peer on both sides", async () => {
    const sessions: Session[] = [];
    let clientIp = "";
    const log: ServerLog = { events: [] };
    const report = await new SimulationBuilder()
      .nodeRuntime()
      .processes(1, () => echoServer(log, true))
      .workload({
        name: "client",
        run: async (ctx: SimContext) => {
          clientIp = ctx.myIp;
          await ctx.time.sleep(20);
          sessions.push(await session(ctx, ["hello"], true, false));
        },
      })
      .faultFactory(() => ({
        name: "partitioner",
        inject: async (ctx: FaultContext) => {
          await ctx.time.sleep(2_000);
          ctx.partitionBetween(ctx.processIps()[0]!, clientIp, 10_000);
        },
      }))
      .chaosDuration(3_000)
      .networkFaults("none")
      .setBaseSeed(6)
      .setIterations(1)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    // Until 2 s every ping was answered: the connection lived through several heartbeats.
    const s = sessions[0]!;
    expect(s.replies).toEqual(["1:hello"]);
    expect(s.closeCode).toBe(1006);
    // The client misses its pings: it gives up 2 intervals (+100 ms) after the last one it got.
    expect(s.closedAtMs).toBeGreaterThan(2_000 + HEARTBEAT_MS);
    expect(s.closedAtMs).toBeLessThanOrEqual(2_000 + 2 * HEARTBEAT_MS + 100);
    // The server's ping goes unanswered: it terminates at the interval after the unanswered one.
    const terminated = log.events.find((e) => e.endsWith("server terminates"));
    expect(terminated).toBeDefined();
    const terminatedAtMs = Number(terminated!.split(" ")[0]);
    expect(terminatedAtMs).toBeGreaterThan(2_000 + HEARTBEAT_MS - 1);
    expect(terminatedAtMs).toBeLessThanOrEqual(2_000 + 2 * HEARTBEAT_MS);
    expect(log.events).toContain(`${terminatedAtMs} server close 1006`);
  });

  it("ws's module-level mask pool carries between runs of a seed unless the client passes generateMask", async () => {
    // 1,000 masked frames take 4,000 bytes of ws's 8 KiB pool: a run refills it from the client's
    // stream or not depending on earlier runs, which shifts the `Math.random` the client sleeps on.
    const runOnce = async (generateMask: ((mask: Buffer) => void) | undefined) => {
      const report = await new SimulationBuilder()
        .nodeRuntime()
        .processes(1, () => echoServer())
        .workload({
          name: "client",
          run: async (ctx: SimContext) => {
            await ctx.time.sleep(20);
            const socket = new WebSocket(`ws://${ctx.topology.processIps[0]!}:${PORT}/`, { generateMask });
            await new Promise((resolve) => socket.once("open", resolve));
            for (let i = 0; i < 1_000; i++) socket.send("x");
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 100));
            socket.close();
            await new Promise((resolve) => socket.once("close", resolve));
          },
        })
        .networkFaults("none")
        .setBaseSeed(8)
        .setIterations(1)
        .run();
      expect(report.failedRuns, report.toString()).toBe(0);
      return report.seeds[0]!.traceHash;
    };
    const pooled = [await runOnce(undefined), await runOnce(undefined), await runOnce(undefined)];
    expect(new Set(pooled).size).toBeGreaterThan(1);
    const own = (mask: Buffer) => randomFillSync(mask);
    const perFrame = [await runOnce(own), await runOnce(own), await runOnce(own)];
    expect(new Set(perFrame).size).toBe(1);
  });

  it("the same seed gives the same trace hash under network chaos; other seeds differ; fast = paranoid", async () => {
    const a = await chaotic().setBaseSeed(21).setIterations(8).run();
    const b = await chaotic().setBaseSeed(21).setIterations(8).run();
    const paranoid = await chaotic().setBaseSeed(21).setIterations(8).steppingMode("paranoid").run();
    expect(a.failedRuns, a.toString()).toBe(0);
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(paranoid.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(8);
  });
});
