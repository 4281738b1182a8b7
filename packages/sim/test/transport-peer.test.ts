/**
 * Peer mechanics on the simulated network, where time is exact: reconnection backoff doubles up
 * to its cap, and ping/pong liveness breaks a connection to a peer that went silent (and only
 * when pings are on).
 */
import { describe, expect, it } from "vitest";
import { defineService, MaybeDelivered, Transport, type Providers, type TransportOptions } from "@moonpool/core";
import { World } from "../src/world/world.ts";
import { boot, runActor } from "./fixtures/drive-world.ts";

interface Echo {
  echo(request: string): Promise<string>;
}
const EchoService = defineService<Echo>("peer-test-echo", { echo: true });

class RecordingTransport extends Transport {
  readonly events: Array<{ name: string; atMs: number; fields: Record<string, string | number> }> = [];
  constructor(io: Providers, options?: TransportOptions) {
    super(io, options);
  }
  override event(name: string, fields: Record<string, string | number>): void {
    this.events.push({ name, atMs: this.io.time.now(), fields });
  }
}

function world(seed: number) {
  const w = new World({ seed });
  return { world: w, server: boot(w, "10.0.1.1", "server").scope, client: boot(w, "10.0.0.1", "client").scope };
}

describe("peer reconnection backoff", () => {
  it("doubles the wait after each failed connect, up to maxBackoffMs, with jitter in [b/2, b)", async () => {
    const { world: w, client } = world(5);
    const out = await runActor(w, async () => {
      const t = new RecordingTransport(client, { peer: { initialBackoffMs: 10, maxBackoffMs: 80 } });
      const echo = t.stub(EchoService, "10.0.1.1:7000").echo;
      const error = await echo.getReply("x", { timeoutMs: 1_000 }).catch((e: unknown) => e);
      await t.close();
      return { error, failures: t.events.filter((e) => e.name === "transport_connect_failed") };
    });
    expect((out.error as Error).name).toBe("RequestTimeout");
    const backoffs = out.failures.map((f) => f.fields.backoffMs);
    expect(backoffs.slice(0, 6)).toEqual([10, 20, 40, 80, 80, 80]);
    for (let i = 1; i < out.failures.length; i++) {
      const gap = out.failures[i]!.atMs - out.failures[i - 1]!.atMs;
      const b = out.failures[i - 1]!.fields.backoffMs as number;
      expect(gap).toBeGreaterThanOrEqual(b / 2);
      expect(gap).toBeLessThan(b + 20); // + the connect attempt's own latency
    }
  });

  it("the same seed gives the same connect times; another seed's jitter differs", async () => {
    const times = async (seed: number) => {
      const { world: w, client } = world(seed);
      return runActor(w, async () => {
        const t = new RecordingTransport(client, { peer: { initialBackoffMs: 10, maxBackoffMs: 80 } });
        await t
          .stub(EchoService, "10.0.1.1:7000")
          .echo.getReply("x", { timeoutMs: 500 })
          .catch(() => undefined);
        await t.close();
        return t.events.filter((e) => e.name === "transport_connect_failed").map((e) => e.atMs);
      });
    };
    expect(await times(9)).toEqual(await times(9));
    expect(await times(9)).not.toEqual(await times(10));
  });
});

describe("ping/pong liveness", () => {
  /** A server that accepts and then neither reads nor writes: alive to TCP, dead to us. */
  async function silentServer(server: Providers): Promise<void> {
    const listener = await server.network.bind("10.0.1.1:7000");
    server.task.spawn("silent", async () => {
      await listener.accept();
    });
  }

  it("pings on: a silent connection breaks after the tolerated misses; the request is MaybeDelivered", async () => {
    const { world: w, server, client } = world(3);
    const out = await runActor(w, async () => {
      await silentServer(server);
      const peer = { pingIntervalMs: 100, pingTimeoutMs: 100, toleratedPingMisses: 1 };
      const t = new RecordingTransport(client, { peer });
      const started = client.time.now();
      const error = await t
        .stub(EchoService, "10.0.1.1:7000")
        .echo.tryGetReply("x")
        .catch((e: unknown) => e);
      const elapsedMs = client.time.now() - started;
      await t.close();
      const misses = t.events.filter((e) => e.name === "transport_ping_missed").length;
      return { error, elapsedMs, misses };
    });
    expect(out.error).toBeInstanceOf(MaybeDelivered);
    expect((out.error as Error).message).toMatch(/missed 2 pings in a row/);
    expect(out.misses).toBe(2);
    expect(out.elapsedMs).toBeGreaterThanOrEqual(400);
    expect(out.elapsedMs).toBeLessThan(500);
  });

  it("pings off: the same request keeps waiting (nothing tells it the peer is gone)", async () => {
    const { world: w, server, client } = world(3);
    const out = await runActor(w, async () => {
      await silentServer(server);
      const t = new RecordingTransport(client, { peer: { pingIntervalMs: 0 } });
      let settled = false;
      const request = t.stub(EchoService, "10.0.1.1:7000").echo.tryGetReply("x");
      void request.finally(() => (settled = true)).catch(() => undefined);
      await client.time.sleep(5_000);
      const pending = !settled;
      await t.close();
      return { pending, misses: t.events.filter((e) => e.name === "transport_ping_missed").length };
    });
    expect(out).toEqual({ pending: true, misses: 0 });
  });
});
