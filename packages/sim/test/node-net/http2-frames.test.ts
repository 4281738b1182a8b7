/**
 * A simulated socket hands Node's HTTP/2 session one frame at a time, with the microtask and
 * `nextTick` queues drained in between, as a native socket's session does: a promise continuation
 * started by the session's first SETTINGS runs before a GOAWAY that came in the same read.
 */
import http2 from "node:http2";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";
import { CLIENT_PREFACE_BYTES, Http2FrameBoundaries } from "../../src/world/node-net/http2-frames.ts";

const PORT = 8443;

function frame(type: number, payloadBytes: number): Buffer {
  const bytes = Buffer.alloc(9 + payloadBytes);
  bytes.writeUIntBE(payloadBytes, 0, 3);
  bytes[3] = type;
  return bytes;
}

const lengths = (parts: readonly Buffer[]) => parts.map((p) => p.length);

describe("Http2FrameBoundaries", () => {
  it("cuts a client's reads after every whole frame, an empty frame included", () => {
    const split = new Http2FrameBoundaries("client");
    expect(lengths(split.split(Buffer.concat([frame(4, 6), frame(4, 0), frame(7, 8)])))).toEqual([15, 9, 17]);
  });

  it("a frame that goes on in the next read is cut where it ends, its header split too", () => {
    const split = new Http2FrameBoundaries("client");
    const bytes = Buffer.concat([frame(0, 20), frame(4, 0)]);
    expect(lengths(split.split(bytes.subarray(0, 5)))).toEqual([5]);
    expect(lengths(split.split(bytes.subarray(5, 12)))).toEqual([7]);
    expect(lengths(split.split(bytes.subarray(12)))).toEqual([17, 9]);
  });

  it("a server's reads start with the 24-byte client preface, cut off on its own", () => {
    const split = new Http2FrameBoundaries("server");
    const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    expect(preface.length).toBe(CLIENT_PREFACE_BYTES);
    expect(lengths(split.split(Buffer.concat([preface, frame(4, 6)])))).toEqual([24, 15]);
  });

  it("a read of one frame, or of part of one, is not cut", () => {
    expect(lengths(new Http2FrameBoundaries("client").split(frame(4, 6)))).toEqual([15]);
    expect(lengths(new Http2FrameBoundaries("client").split(frame(0, 100).subarray(0, 50)))).toEqual([50]);
  });
});

/**
 * A raw TCP server that answers a connection with its SETTINGS and a GOAWAY in one write (so they
 * arrive in one read), and an HTTP/2 client that records what it saw.
 */
function settingsThenGoaway(order: string[], seeds: readonly number[]) {
  return new SimulationBuilder()
    .processes(1, () => ({
      name: "h2",
      run: async (ctx: SimContext) => {
        const server = net.createServer((socket) => {
          socket.on("error", () => {});
          socket.on("data", () => {}); // the client's preface and frames
          socket.write(Buffer.concat([frame(4, 0), frame(7, 8)]));
        });
        server.listen(PORT);
        await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
        server.close();
      },
    }))
    .workload({
      name: "client",
      run: async (ctx: SimContext) => {
        await ctx.time.sleep(20);
        const session = http2.connect(`http://${ctx.topology.processIps[0]}:${PORT}`);
        session.on("error", () => {});
        session.once("remoteSettings", () => {
          order.push("settings");
          // Three hops, like a promise returned through an async function and then awaited.
          void Promise.resolve()
            .then(() => 0)
            .then(() => 0)
            .then(() => order.push("continuation"));
        });
        session.once("goaway", () => order.push("goaway"));
        await ctx.time.sleep(200);
        session.destroy();
      },
    })
    .networkFaults("none")
    .setDebugSeeds(seeds)
    .setIterations(seeds.length);
}

describe("HTTP/2 frames of one read reach the session one drain apart", () => {
  it("a continuation started on SETTINGS runs before the GOAWAY read with it, as over a native socket", async () => {
    const order: string[] = [];
    const report = await settingsThenGoaway(order, [1]).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(order).toEqual(["settings", "continuation", "goaway"]);
  });

  it("the same seed twice gives the same trace hash; two seeds differ", async () => {
    const a = await settingsThenGoaway([], [1, 2]).run();
    const b = await settingsThenGoaway([], [1, 2]).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(a.seeds[0]!.traceHash).not.toBe(a.seeds[1]!.traceHash);
  });
});
