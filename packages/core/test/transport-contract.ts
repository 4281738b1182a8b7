/**
 * The transport contract, one suite run against both providers: real sockets on 127.0.0.1
 * (transport-production.test.ts here) and the simulated network without faults
 * (packages/sim/test/transport-contract.test.ts). A harness gives a body the providers of a
 * server process and of a client process, and the address the server should listen on.
 */
import { describe, expect, it } from "vitest";
import {
  ApplicationError,
  BrokenPromise,
  defineService,
  encodeWireFrame,
  EndpointNotFound,
  FailureMonitor,
  FrameTooLarge,
  jsonCodec,
  QueueFull,
  Transport,
  WireDecoder,
  type Providers,
  type ServiceImpl,
} from "@moonpool/core";

export interface TransportHarness {
  /** `listenAddr` is where the server binds (`ip:0` in production: read `transport.address`). */
  run<T>(body: (server: Providers, client: Providers, listenAddr: string) => Promise<T>): Promise<T>;
}

export interface Counter {
  add(request: { by: number }): Promise<{ total: number }>;
  fail(request: { message: string }): Promise<never>;
  drop(request: null): Promise<never>;
  hang(request: null): Promise<never>;
  note(request: { text: string }): Promise<void>;
}

export const CounterService = defineService<Counter>("contract-counter", {
  add: true,
  fail: true,
  drop: true,
  hang: true,
  note: true,
});

/** A counter server; `notes` collects the fire-and-forget messages. */
export function counterImpl(io: Providers, state: { total: number; notes: string[] }): ServiceImpl<Counter> {
  return {
    add: async ({ by }) => ({ total: (state.total += by) }),
    fail: async ({ message }) => {
      throw new Error(message);
    },
    drop: async () => {
      throw new BrokenPromise("dropped on purpose");
    },
    hang: () => new Promise<never>(() => undefined),
    note: async ({ text }) => {
      state.notes.push(text);
      await io.time.sleep(0);
    },
  };
}

/** The error's class name, or "ok" for a value. */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as Error).name;
  }
}

export function transportContractSuite(name: string, harness: TransportHarness): void {
  describe(`transport contract: ${name}`, () => {
    it("answers typed requests in every delivery mode, and fire-and-forget messages arrive", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        const state = { total: 0, notes: [] as string[] };
        const st = new Transport(server);
        await st.listen(listenAddr);
        const endpoint = st.serve(CounterService, counterImpl(server, state));
        const ct = new Transport(client);
        const counter = ct.stub(CounterService, endpoint.address);
        const a = await counter.add.tryGetReply({ by: 2 });
        const b = await counter.add.getReply({ by: 3 });
        const c = await counter.add.getReplyUnlessFailedFor({ by: 4 }, 1_000);
        counter.note.send({ text: "hello" });
        await counter.add.getReply({ by: 0 }); // same connection, in order: the note arrived first
        await ct.close();
        await st.close();
        const available = ct.monitor.state(endpoint.address);
        return { totals: [a.total, b.total, c.total], notes: state.notes, available };
      });
      expect(out).toEqual({ totals: [2, 5, 9], notes: ["hello"], available: "failed" });
    });

    it("reports application errors, broken promises and unknown endpoints with their types", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        const st = new Transport(server);
        await st.listen(listenAddr);
        const endpoint = st.serve(CounterService, counterImpl(server, { total: 0, notes: [] }));
        const ct = new Transport(client);
        const counter = ct.stub(CounterService, endpoint);
        const errors: unknown[] = [];
        for (const call of [
          () => counter.fail.getReply({ message: "no such account" }),
          () => counter.drop.tryGetReply(null),
          () => counter.add.getReply({ by: 1 }), // the endpoint failed for good on the broken promise
          () => ct.stub(CounterService, { address: endpoint.address, token: ct.newToken() }).add.getReply({ by: 1 }),
        ]) {
          errors.push(await call().catch((error: unknown) => error));
        }
        await ct.close();
        await st.close();
        return errors;
      });
      expect(out[0]).toBeInstanceOf(ApplicationError);
      expect((out[0] as Error).message).toBe("no such account");
      expect(out[1]).toBeInstanceOf(BrokenPromise);
      expect(out[2]).toBeInstanceOf(BrokenPromise);
      expect(out[3]).toBeInstanceOf(EndpointNotFound);
    });

    it("never left: ConnectionFailed; sent before the server closed: BrokenPromise or MaybeDelivered", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        const st = new Transport(server);
        await st.listen(listenAddr);
        const endpoint = st.serve(CounterService, counterImpl(server, { total: 0, notes: [] }));
        const ct = new Transport(client, { peer: { initialBackoffMs: 5, maxBackoffMs: 20 } });
        const counter = ct.stub(CounterService, endpoint.address);
        await counter.add.getReply({ by: 1 }); // connected
        const hanging = outcome(counter.hang.tryGetReply(null));
        await client.time.sleep(20); // the request reached the server
        await st.close();
        const afterClose = await hanging;
        // Nobody listens any more: the connect fails, the at-most-once request is dropped unsent.
        const ct2 = new Transport(client);
        const neverSent = await outcome(ct2.stub(CounterService, endpoint.address).add.tryGetReply({ by: 1 }));
        const stub2 = ct2.stub(CounterService, endpoint.address);
        const timedOut = await outcome(stub2.add.getReply({ by: 1 }, { timeoutMs: 50 }));
        // The endpoint failed for good on the broken promise: the first client fails fast.
        const failFast = await outcome(counter.add.tryGetReply({ by: 1 }));
        await ct.close();
        await ct2.close();
        return { afterClose, neverSent, timedOut, failFast };
      });
      expect(["BrokenPromise", "MaybeDelivered"]).toContain(out.afterClose);
      expect(out.neverSent).toBe("ConnectionFailed");
      expect(out.timedOut).toBe("RequestTimeout");
      expect(out.failFast).toBe(out.afterClose === "BrokenPromise" ? "BrokenPromise" : "ConnectionFailed");
    });

    it("getReply waits through connect failures with backoff and is answered once the server is up", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        // Learn a free address first (port 0 in production), then leave it unbound for a while.
        const probe = new Transport(server);
        await probe.listen(listenAddr);
        const address = probe.address!;
        await probe.close();
        const ct = new Transport(client, { peer: { initialBackoffMs: 5, maxBackoffMs: 40 } });
        const reply = ct.stub(CounterService, address).add.getReply({ by: 7 }, { timeoutMs: 5_000 });
        await client.time.sleep(100);
        const statusWhileDown = ct.monitor.state(address);
        const st = new Transport(server);
        await st.listen(address);
        st.serve(CounterService, counterImpl(server, { total: 0, notes: [] }));
        const { total } = await reply;
        const statusAfter = ct.monitor.state(address);
        await ct.close();
        await st.close();
        return { total, statusWhileDown, statusAfter };
      });
      expect(out).toEqual({ total: 7, statusWhileDown: "failed", statusAfter: "available" });
    });

    it("bounded queues: QueueFull once maxQueueSize messages wait for a connection", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        const probe = new Transport(server);
        await probe.listen(listenAddr);
        const address = probe.address!;
        await probe.close();
        const ct = new Transport(client, { peer: { maxQueueSize: 2, initialBackoffMs: 1_000, maxBackoffMs: 1_000 } });
        const counter = ct.stub(CounterService, address);
        const first = [1, 2].map(() => outcome(counter.add.getReply({ by: 1 }, { timeoutMs: 30 })));
        const third = await counter.add.getReply({ by: 1 }).catch((error: unknown) => error);
        const results = await Promise.all(first);
        await ct.close();
        return { third, results };
      });
      expect(out.third).toBeInstanceOf(QueueFull);
      expect((out.third as Error).message).toMatch(/reliable queue of peer .* is full \(2 entries\)/);
      expect(out.results).toEqual(["RequestTimeout", "RequestTimeout"]);
    });

    it("the failure monitor wakes waiters on disconnect and bounds them", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        const st = new Transport(server);
        await st.listen(listenAddr);
        const endpoint = st.serve(CounterService, counterImpl(server, { total: 0, notes: [] }));
        const ct = new Transport(client, { peer: { initialBackoffMs: 50, maxBackoffMs: 50 } });
        await ct.stub(CounterService, endpoint.address).add.getReply({ by: 1 });
        const events: string[] = [];
        const failed = ct.monitor
          .onDisconnectOrFailure(endpoint)
          .then(() => events.push(`failed:${ct.monitor.state(endpoint.address)}`));
        const changed = ct.monitor.onStateChanged(endpoint).then(() => events.push("changed"));
        await st.close();
        await Promise.all([failed, changed]);
        const bounded = new FailureMonitor({ maxWaiters: 1 });
        void bounded.onStateChanged(endpoint);
        let full: unknown;
        try {
          void bounded.onStateChanged(endpoint);
        } catch (error) {
          full = error;
        }
        await ct.close();
        return { events, full };
      });
      expect(out.events.sort()).toEqual(["changed", "failed:failed"]);
      expect(out.full).toBeInstanceOf(QueueFull);
    });

    it("speaks the wire format: a raw request gets a raw reply; a corrupted frame closes the connection", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        const st = new Transport(server);
        await st.listen(listenAddr);
        const endpoint = st.serve(CounterService, counterImpl(server, { total: 40, notes: [] }));
        const conn = await client.network.connect(endpoint.address);
        const body = jsonCodec.encode({ by: 2 });
        const payload = new Uint8Array(9 + body.length);
        payload[0] = 1; // request
        new DataView(payload.buffer).setUint32(1, 77, true);
        new DataView(payload.buffer).setUint32(5, CounterService.methods.get("add")!.id, true);
        payload.set(body, 9);
        await conn.write(encodeWireFrame(endpoint.token, payload));
        const decoder = new WireDecoder();
        let frame = decoder.next();
        while (frame === undefined) {
          const chunk = await conn.read();
          if (chunk === null) throw new Error("closed before the reply");
          decoder.push(chunk);
          frame = decoder.next();
        }
        const id = new DataView(frame.payload.buffer).getUint32(1, true);
        const reply = { kind: frame.payload[0], id, body: jsonCodec.decode(frame.payload.subarray(5)) };
        const corrupt = encodeWireFrame(endpoint.token, payload);
        corrupt[corrupt.length - 1]! ^= 0x40;
        await conn.write(corrupt);
        let closed = false;
        while (!closed) closed = (await conn.read().catch(() => null)) === null;
        await conn.close();
        await st.close();
        return { reply, closed };
      });
      expect(out).toEqual({ reply: { kind: 2, id: 77, body: { total: 42 } }, closed: true });
    });

    it("a connection breaks after the request left: MaybeDelivered at most once, re-sent at least once", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        // A raw server: the first connection reads one request and hangs up without answering;
        // later ones answer every request (`total` = how many requests it read in all).
        const listener = await server.network.bind(listenAddr);
        let requestsSeen = 0;
        const serving = server.task.spawn("raw-server", async () => {
          for (let n = 0; n < 3; n++) {
            const conn = await listener.accept();
            const decoder = new WireDecoder();
            for (;;) {
              const chunk = await conn.read();
              if (chunk === null) break;
              decoder.push(chunk);
              let frame = decoder.next();
              for (; frame !== undefined; frame = decoder.next()) {
                requestsSeen += 1;
                const id = new DataView(frame.payload.buffer, frame.payload.byteOffset).getUint32(1, true);
                if (n === 0 || (n === 1 && requestsSeen === 2)) continue;
                const body = jsonCodec.encode({ total: requestsSeen });
                const reply = new Uint8Array(5 + body.length);
                reply[0] = 2;
                new DataView(reply.buffer).setUint32(1, id, true);
                reply.set(body, 5);
                await conn.write(encodeWireFrame("ffffffffffffffff0000000000000001", reply));
              }
              if (n === 0 || (n === 1 && requestsSeen === 2)) break;
            }
            await conn.close();
          }
        });
        const ct = new Transport(client, { peer: { initialBackoffMs: 5, maxBackoffMs: 20, pingIntervalMs: 0 } });
        const counter = ct.stub(CounterService, listener.localAddr);
        const atMostOnce = await outcome(counter.add.tryGetReply({ by: 1 }));
        const seenAfterFirst = requestsSeen;
        // Connection 2 reads this one and hangs up; the transport re-sends it on connection 3.
        const atLeastOnce = await counter.add.getReply({ by: 1 }, { timeoutMs: 2_000 });
        await ct.close();
        await listener.close();
        await serving;
        return { atMostOnce, seenAfterFirst, atLeastOnce, requestsSeen };
      });
      expect(out).toEqual({
        atMostOnce: "MaybeDelivered",
        seenAfterFirst: 1,
        atLeastOnce: { total: 3 },
        requestsSeen: 3,
      });
    });

    it("refuses an oversized request before sending it", async () => {
      const out = await harness.run(async (server, client, listenAddr) => {
        const st = new Transport(server);
        await st.listen(listenAddr);
        const endpoint = st.serve(CounterService, counterImpl(server, { total: 0, notes: [] }));
        const ct = new Transport(client, { peer: { maxPayloadBytes: 64 } });
        const note = ct.stub(CounterService, endpoint).note;
        const error = await note.getReply({ text: "x".repeat(100) }).catch((e: unknown) => e);
        await ct.close();
        await st.close();
        return error;
      });
      expect(out).toBeInstanceOf(FrameTooLarge);
    });
  });
}
