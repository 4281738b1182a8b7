/** The network's debug facts: `net_send` / `net_recv` with byte counts, captured only at debug. */
import { describe, expect, it } from "vitest";
import type { TraceLevel } from "@moonpool/core";
import { SimulationBuilder, type SimContext, type TraceEvent } from "../src/index.ts";
import { Campaign } from "../src/runner/campaign.ts";

const MESSAGE = new TextEncoder().encode("hello, peer");

function echo(level: TraceLevel) {
  return new SimulationBuilder().traceLevel(level).workloadFactory(() => ({
    name: "pair",
    async run(ctx: SimContext) {
      const listener = await ctx.network.bind(`${ctx.myIp}:9000`);
      const server = ctx.task.spawn("server", async (s) => {
        const conn = await listener.accept();
        let received = 0;
        while (received < MESSAGE.length) {
          const chunk = await conn.read();
          if (chunk === null) break;
          received += chunk.length;
        }
        s.trace.info("received", { bytes: received });
        return received;
      });
      const conn = await ctx.network.connect(`${ctx.myIp}:9000`);
      await conn.write(MESSAGE);
      await server.join();
    },
  }));
}

async function trace(level: TraceLevel, seed: number): Promise<{ events: readonly TraceEvent[]; hash: string }> {
  let events: readonly TraceEvent[] = [];
  const config = echo(level).build();
  const { result } = await new Campaign(config).runSingleSeed(seed, {
    explore: false,
    onTrace: (all) => (events = all),
  });
  return { events, hash: result.traceHash };
}

describe("network trace facts", () => {
  it("record each write and each read with its size at debug, one actor each", async () => {
    const { events } = await trace("debug", 3);
    const sends = events.filter((e) => e.name === "net_send");
    const recvs = events.filter((e) => e.name === "net_recv");
    expect(sends.map((e) => e.num("bytes"))).toEqual([MESSAGE.length]);
    expect(sends[0]!.str("to")).toBe("10.0.0.1:9000");
    expect(sends[0]!.level).toBe("debug");
    // Partial reads may split the message: the sizes add up to it.
    expect(recvs.reduce((n, e) => n + e.num("bytes")!, 0)).toBe(MESSAGE.length);
    expect(recvs.every((e) => e.source === "pair@10.0.0.1" && e.str("from")!.startsWith("10.0.0.1:"))).toBe(true);
  });

  it("name their connection and stream offset, so the reads cover exactly the bytes written", async () => {
    const { events } = await trace("debug", 3);
    const sends = events.filter((e) => e.name === "net_send");
    const recvs = events.filter((e) => e.name === "net_recv");
    const id = sends[0]!.num("connectionId")!;
    expect(id).toBeGreaterThan(0);
    expect(sends[0]!.num("offset")).toBe(0);
    // The read side names the same connection and direction (to: the reader's address).
    expect(recvs.every((e) => e.num("connectionId") === id && e.str("to") === sends[0]!.str("to"))).toBe(true);
    expect(recvs.every((e) => e.str("from") === sends[0]!.str("from"))).toBe(true);
    let offset = 0;
    for (const r of recvs) {
      expect(r.num("offset")).toBe(offset);
      offset += r.num("bytes")!;
    }
  });

  it("are absent at the default info level", async () => {
    const { events } = await trace("info", 3);
    expect(events.some((e) => e.name === "net_send" || e.name === "net_recv")).toBe(false);
  });

  it("are deterministic: the same seed gives the same hash, two seeds differ", async () => {
    const a = await trace("debug", 3);
    const b = await trace("debug", 3);
    const c = await trace("debug", 4);
    expect(b.hash).toBe(a.hash);
    expect(b.events.map((e) => e.format())).toEqual(a.events.map((e) => e.format()));
    expect(c.hash).not.toBe(a.hash);
  });
});
