/**
 * The production providers on real Node I/O. Network tests use loopback only (127.0.0.1, port 0)
 * and stop every server and socket they open; time tests assert ordering, never wall time.
 */
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import {
  ConsoleTracer,
  createNodeContext,
  encodeFrame,
  FramedConnection,
  formatAddr,
  InvalidConfiguration,
  IoError,
  isAbortError,
  parseAddr,
  productionProviders,
  type ProductionConnection,
  type ProductionListener,
  ProductionNetwork,
  ProductionRandom,
  ProductionTask,
  ProductionTime,
  TaskCancelled,
  TimeoutError,
  type Connection,
  type TaskScope,
} from "@moonpool/core";

const LOOPBACK = "127.0.0.1";
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const decode = (b: Uint8Array): string => new TextDecoder().decode(b);

// ---------------------------------------------------------------------------------------------
// Network helpers: everything opened goes into these lists and is torn down after each test.

const listeners: ProductionListener[] = [];
const connections: ProductionConnection[] = [];

afterEach(async () => {
  for (const listener of listeners.splice(0)) await listener.close();
  for (const connection of connections.splice(0)) connection.destroy();
});

afterAll(async () => {
  // No TCP handle may outlive the tests (handles close asynchronously: give them a few turns).
  const tcp = (): string[] => process.getActiveResourcesInfo().filter((r) => r.startsWith("TCP"));
  for (let i = 0; i < 100 && tcp().length > 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(tcp()).toEqual([]);
});

const network = new ProductionNetwork();

async function listen(net: ProductionNetwork = network): Promise<ProductionListener> {
  const listener = await net.bind(`${LOOPBACK}:0`);
  listeners.push(listener);
  return listener;
}

async function dial(addr: string, net: ProductionNetwork = network): Promise<ProductionConnection> {
  const connection = await net.connect(addr);
  connections.push(connection);
  return connection;
}

async function acceptTracked(listener: ProductionListener): Promise<ProductionConnection> {
  const connection = (await listener.accept()) as ProductionConnection;
  connections.push(connection);
  return connection;
}

async function readAll(connection: Connection): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const chunk = await connection.read();
    if (chunk === null) break;
    parts.push(chunk);
    total += chunk.length;
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

async function readExactly(connection: Connection, n: number): Promise<Uint8Array> {
  const out = new Uint8Array(n);
  let have = 0;
  while (have < n) {
    const chunk = await connection.read();
    if (chunk === null) throw new Error(`end of stream after ${have} of ${n} bytes`);
    out.set(chunk.subarray(0, n - have), have);
    have += chunk.length;
  }
  return out;
}

/** `Promise.withResolvers` (Node 22+) for Node 20. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

async function expectIoError(promise: Promise<unknown>, code: string): Promise<IoError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(IoError);
  expect((error as IoError).code).toBe(code);
  return error as IoError;
}

// ---------------------------------------------------------------------------------------------

describe("addresses", () => {
  it("parses IPv4 and bracketed IPv6 addresses", () => {
    expect(parseAddr("127.0.0.1:4500")).toEqual({ ip: "127.0.0.1", port: 4500, family: 4 });
    expect(parseAddr("[::1]:80")).toEqual({ ip: "::1", port: 80, family: 6 });
    expect(parseAddr("127.0.0.1:0", true).port).toBe(0);
  });

  it("rejects malformed addresses with IoError EINVAL and a hint", () => {
    for (const bad of [
      "127.0.0.1",
      "localhost:80",
      "127.0.0.1:",
      "127.0.0.1:65536",
      "1.2.3:80",
      "::1:80",
      "[::1]80",
      "127.0.0.1:0",
      "127.0.0.1:-1",
      "",
    ]) {
      let caught: unknown;
      try {
        parseAddr(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught, bad).toBeInstanceOf(IoError);
      expect((caught as IoError).code, bad).toBe("EINVAL");
      expect((caught as IoError).message).toContain(`'${bad}'`);
    }
  });

  it("formats IPv6 in brackets and IPv4-mapped IPv6 as IPv4", () => {
    expect(formatAddr("::1", 80)).toBe("[::1]:80");
    expect(formatAddr("::ffff:127.0.0.1", 80)).toBe("127.0.0.1:80");
    expect(formatAddr("10.0.0.1", 4500)).toBe("10.0.0.1:4500");
  });
});

describe("ProductionNetwork", () => {
  it("binds port 0 and reports the real port in localAddr", async () => {
    const listener = await listen();
    const { ip, port } = parseAddr(listener.localAddr);
    expect(ip).toBe(LOOPBACK);
    expect(port).toBeGreaterThan(0);
  });

  it("echoes a round trip and reports matching addresses on both ends", async () => {
    const listener = await listen();
    const server = (async () => {
      const conn = await acceptTracked(listener);
      for (;;) {
        const chunk = await conn.read();
        if (chunk === null) break;
        await conn.write(chunk);
      }
      await conn.close();
      return conn;
    })();
    const client = await dial(listener.localAddr);
    await client.write(text("hello, moonpool"));
    expect(decode(await readExactly(client, 15))).toBe("hello, moonpool");
    await client.close();
    expect(await client.read()).toBeNull();

    const serverConn = await server;
    expect(client.peerAddr).toBe(listener.localAddr);
    expect(serverConn.localAddr).toBe(listener.localAddr);
    expect(serverConn.peerAddr).toBe(client.localAddr);
    expect(parseAddr(client.localAddr).ip).toBe(LOOPBACK);
  });

  it("delivers many writes in order", async () => {
    const listener = await listen();
    const count = 2000;
    const serverSide = (async () => readAll(await acceptTracked(listener)))();
    const client = await dial(listener.localAddr);
    const expected: string[] = [];
    for (let i = 0; i < count; i++) {
      const line = `message ${i};`;
      expected.push(line);
      await client.write(text(line));
    }
    await client.close();
    expect(decode(await serverSide)).toBe(expected.join(""));
  });

  it("keeps order when writes are not awaited one by one", async () => {
    const listener = await listen();
    const serverSide = (async () => readAll(await acceptTracked(listener)))();
    const client = await dial(listener.localAddr);
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 500; i++) writes.push(client.write(new Uint8Array([i & 0xff, (i >> 8) & 0xff])));
    await Promise.all(writes);
    await client.close();
    const received = await serverSide;
    expect(received.length).toBe(1000);
    for (let i = 0; i < 500; i++) expect(received[2 * i]! | (received[2 * i + 1]! << 8)).toBe(i);
  });

  it("reads end of stream after the last byte, and the other direction stays open (half-close)", async () => {
    const listener = await listen();
    const client = await dial(listener.localAddr);
    const server = await acceptTracked(listener);
    await client.write(text("last bytes"));
    await client.close();
    expect(decode(await readAll(server))).toBe("last bytes");
    expect(await server.read()).toBeNull(); // stays at end of stream

    await server.write(text("reply after your close"));
    await server.close();
    expect(decode(await readAll(client))).toBe("reply after your close");
  });

  it("copies written bytes, so the caller may reuse its buffer", async () => {
    const listener = await listen();
    const client = await dial(listener.localAddr);
    const server = await acceptTracked(listener);
    const buffer = text("first");
    const write = client.write(buffer);
    buffer.set(text("XXXXX"));
    await write;
    await client.close();
    expect(decode(await readAll(server))).toBe("first");
  });

  it("buffers past the high-water mark by pausing the socket, without losing or reordering bytes", async () => {
    const small = new ProductionNetwork({ highWaterMark: 1024 });
    const listener = await listen(small);
    const client = await dial(listener.localAddr, small);
    const server = await acceptTracked(listener);
    const payload = new Uint8Array(512 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 31) & 0xff;
    const sending = (async () => {
      for (let offset = 0; offset < payload.length; offset += 16 * 1024) {
        await server.write(payload.subarray(offset, offset + 16 * 1024));
      }
      await server.close();
    })();
    // Let the sender run ahead of the reader so the client buffers and pauses.
    await new Promise((r) => setTimeout(r, 20));
    const received = await readAll(client);
    await sending;
    expect(received.length).toBe(payload.length);
    expect(Buffer.compare(received, payload)).toBe(0);
  });

  it("rejects connect to a closed port with ECONNREFUSED", async () => {
    const listener = await network.bind(`${LOOPBACK}:0`);
    const addr = listener.localAddr;
    await listener.close();
    const error = await expectIoError(network.connect(addr), "ECONNREFUSED");
    expect(error.message).toContain(addr);
  });

  it("accepts two connections in the order they arrived", async () => {
    const listener = await listen();
    const first = await dial(listener.localAddr);
    const second = await dial(listener.localAddr);
    const a = await acceptTracked(listener);
    const b = await acceptTracked(listener);
    expect(a.peerAddr).toBe(first.localAddr);
    expect(b.peerAddr).toBe(second.localAddr);
  });

  it("settles an accept that was waiting before the connection arrived", async () => {
    const listener = await listen();
    const accepting = acceptTracked(listener);
    const client = await dial(listener.localAddr);
    expect((await accepting).peerAddr).toBe(client.localAddr);
  });

  it("fails accept on a closed listener with EBADF, including an accept that was waiting", async () => {
    const listener = await network.bind(`${LOOPBACK}:0`);
    const waiting = listener.accept();
    await listener.close();
    await expectIoError(waiting, "EBADF");
    await expectIoError(listener.accept(), "EBADF");
    await listener.close(); // twice is harmless
  });

  it("rejects a second bind of the same address with EADDRINUSE", async () => {
    const listener = await listen();
    await expectIoError(network.bind(listener.localAddr), "EADDRINUSE");
  });

  it("rejects malformed addresses with EINVAL", async () => {
    await expectIoError(network.connect("localhost:80"), "EINVAL");
    await expectIoError(network.connect(`${LOOPBACK}:0`), "EINVAL");
    await expectIoError(network.bind("127.0.0.1"), "EINVAL");
  });

  it("rejects a write after close() with EPIPE; close() twice is harmless", async () => {
    const listener = await listen();
    const client = await dial(listener.localAddr);
    await acceptTracked(listener);
    await client.close();
    await client.close();
    await expectIoError(client.write(text("too late")), "EPIPE");
  });

  it("rejects a second concurrent read with EBUSY", async () => {
    const listener = await listen();
    const client = await dial(listener.localAddr);
    const server = await acceptTracked(listener);
    const first = client.read();
    await expectIoError(client.read(), "EBUSY");
    await server.write(text("x"));
    expect(decode((await first)!)).toBe("x");
  });

  it("fails reads with ECONNRESET when the peer resets the connection", async () => {
    const listener = await listen();
    const client = await dial(listener.localAddr);
    const server = await acceptTracked(listener);
    const reading = client.read();
    server.reset();
    await expectIoError(reading, "ECONNRESET");
    await expectIoError(client.write(text("x")), "ECONNRESET");
    await client.close(); // closing a reset connection does not throw
  });

  it("carries length-prefixed frames over a real connection", async () => {
    const listener = await listen();
    const client = new FramedConnection(await dial(listener.localAddr));
    const server = new FramedConnection(await acceptTracked(listener));
    const payloads = [text("one"), new Uint8Array(0), new Uint8Array(70_000).fill(7), text("four")];
    for (const payload of payloads) await client.send(payload);
    await client.close();
    const received: Uint8Array[] = [];
    for (let frame = await server.recv(); frame !== null; frame = await server.recv()) received.push(frame);
    expect(received).toEqual(payloads);
  });
});

// ---------------------------------------------------------------------------------------------

describe("ProductionTime", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("wakes shorter sleeps first and never moves now() backwards", async () => {
    const time = new ProductionTime();
    const order: string[] = [];
    const t0 = time.now();
    await Promise.all([
      time.sleep(30).then(() => order.push("long")),
      time.sleep(2).then(() => order.push("short")),
      time.sleep(0).then(() => order.push("zero a")),
      time.sleep(0).then(() => order.push("zero b")),
    ]);
    // Node runs a 0 ms timer as 1 ms, so only the order among distinct delays is asserted.
    expect(order.indexOf("short")).toBeLessThan(order.indexOf("long"));
    expect(order.indexOf("zero a")).toBeLessThan(order.indexOf("zero b"));
    expect(order.indexOf("zero b")).toBeLessThan(order.indexOf("long"));
    const t1 = time.now();
    expect(t1).toBeGreaterThanOrEqual(t0);
    expect(time.timer()).toBeGreaterThanOrEqual(t1);
  });

  it("counts now() from the provider's creation", () => {
    const time = new ProductionTime();
    const now = time.now();
    expect(now).toBeGreaterThanOrEqual(0);
    expect(now).toBeLessThan(60_000);
  });

  it("rejects with TimeoutError when the promise does not settle in time", async () => {
    const time = new ProductionTime();
    const error = await rejection(time.timeout(5, new Promise<never>(() => {})));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(5);
  });

  it("settles like the promise when it settles first", async () => {
    const time = new ProductionTime();
    expect(
      await time.timeout(
        60_000,
        time.sleep(1).then(() => 42),
      ),
    ).toBe(42);
    const boom = new Error("boom");
    expect(await rejection(time.timeout(60_000, Promise.reject(boom)))).toBe(boom);
  });

  it("clears its timer when the promise settles first", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const time = new ProductionTime();
    let resolve!: (value: string) => void;
    const result = time.timeout(60_000, new Promise<string>((r) => (resolve = r)));
    expect(vi.getTimerCount()).toBe(1);
    resolve("done");
    expect(await result).toBe("done");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects invalid durations with RangeError", () => {
    const time = new ProductionTime();
    expect(() => time.sleep(-1)).toThrow(RangeError);
    expect(() => time.sleep(Number.NaN)).toThrow(RangeError);
    expect(() => time.timeout(Number.POSITIVE_INFINITY, Promise.resolve())).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------

function quietTask(signal?: AbortSignal): { task: ProductionTask; lines: string[] } {
  const lines: string[] = [];
  const tracer = new ConsoleTracer({ level: "trace", write: (line) => lines.push(line) });
  return { task: new ProductionTask({ tracer, signal }), lines };
}

describe("ProductionTask", () => {
  it("runs a task to an ok outcome; join gives the value", async () => {
    const { task } = quietTask();
    let scopeSeen: TaskScope | undefined;
    const handle = task.spawn("adder", async (scope) => {
      scopeSeen = scope;
      await scope.time.sleep(1);
      await scope.task.yieldNow();
      return 1 + 2;
    });
    expect(handle.name).toBe("adder");
    expect(handle.finished).toBe(false);
    expect(await handle).toEqual({ status: "ok", value: 3 });
    expect(handle.finished).toBe(true);
    expect(await handle.join()).toBe(3);
    expect(await handle.outcome).toEqual({ status: "ok", value: 3 });
    expect(scopeSeen!.signal.aborted).toBe(false);
    expect(typeof scopeSeen!.random.random()).toBe("number");
  });

  it("starts the body after the caller's synchronous code", async () => {
    const { task } = quietTask();
    const order: string[] = [];
    const handle = task.spawn("later", async () => {
      order.push("body");
    });
    order.push("caller");
    await handle;
    expect(order).toEqual(["caller", "body"]);
  });

  it("reports a throwing body as failed, traces task_failed, and join rejects with the error", async () => {
    const { task, lines } = quietTask();
    const boom = new Error("boom");
    const handle = task.spawn("faulty", async () => {
      throw boom;
    });
    expect(await handle).toEqual({ status: "failed", error: boom });
    expect(await rejection(handle.join())).toBe(boom);
    const event = JSON.parse(lines.find((l) => l.includes("task_failed"))!) as Record<string, unknown>;
    expect(event).toMatchObject({ level: "warn", event: "task_failed", task: "faulty", error: "Error: boom" });
  });

  it("abort() cancels at once, aborts the signal and stops the body at its next scoped await", async () => {
    const { task } = quietTask();
    let scope!: TaskScope;
    let afterSleep = false;
    let finallyRan = false;
    const started = deferred<void>();
    const handle = task.spawn("sleeper", async (s) => {
      scope = s;
      started.resolve();
      try {
        await s.time.sleep(60_000);
        afterSleep = true;
      } finally {
        finallyRan = true;
      }
    });
    await started.promise;
    handle.abort();
    expect(handle.finished).toBe(true);
    expect(scope.signal.aborted).toBe(true);
    expect(scope.signal.reason).toBeInstanceOf(TaskCancelled);
    expect(await handle).toEqual({ status: "cancelled" });
    const error = await rejection(handle.join());
    expect(error).toBeInstanceOf(TaskCancelled);
    expect((error as TaskCancelled).taskName).toBe("sleeper");
    // Later operations through the scope never settle either.
    let slept = false;
    void scope.time.sleep(0).then(() => (slept = true));
    void scope.task.yieldNow().then(() => (slept = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(afterSleep).toBe(false);
    expect(finallyRan).toBe(false);
    expect(slept).toBe(false);
    handle.abort(); // no effect once finished
    expect(await handle).toEqual({ status: "cancelled" });
  });

  it("abort() before the task starts means the body never runs", async () => {
    const { task } = quietTask();
    let ran = false;
    const handle = task.spawn("never", async () => {
      ran = true;
    });
    handle.abort();
    expect(await handle).toEqual({ status: "cancelled" });
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(false);
  });

  it("abort() after the task finished changes nothing", async () => {
    const { task } = quietTask();
    const handle = task.spawn("quick", async () => "done");
    await handle;
    handle.abort();
    expect(await handle).toEqual({ status: "ok", value: "done" });
  });

  it("a body that watches its signal can clean up and finish on its own terms", async () => {
    const parent = new AbortController();
    const { task } = quietTask(parent.signal);
    const handle = task.spawn("watcher", (scope) => {
      return new Promise<string>((resolve) => {
        scope.signal.addEventListener("abort", () => resolve(`stopped: ${String(isAbortError(scope.signal.reason))}`));
      });
    });
    await new Promise((r) => setImmediate(r));
    parent.abort(new DOMException("shutting down", "AbortError"));
    expect(await handle).toEqual({ status: "ok", value: "stopped: true" });
  });

  it("a task spawned under an aborted signal starts with an aborted signal", async () => {
    const parent = new AbortController();
    parent.abort();
    const { task } = quietTask(parent.signal);
    const handle = task.spawn("late", async (scope) => scope.signal.aborted);
    expect(await handle.join()).toBe(true);
  });

  it("aborting a task aborts the signals of the tasks it spawned", async () => {
    const { task } = quietTask();
    const childAborted = deferred<unknown>();
    const parentHandle = task.spawn("parent", async (scope) => {
      scope.task.spawn("child", async (childScope) => {
        childScope.signal.addEventListener("abort", () => childAborted.resolve(childScope.signal.reason));
        await new Promise<void>(() => {});
      });
      await scope.time.sleep(60_000);
    });
    await new Promise((r) => setImmediate(r));
    parentHandle.abort();
    expect(await childAborted.promise).toBeInstanceOf(TaskCancelled);
  });

  it("yieldNow() lets already-queued work run first", async () => {
    const { task } = quietTask();
    const order: string[] = [];
    setImmediate(() => order.push("immediate"));
    await task.yieldNow();
    order.push("after yield");
    expect(order).toEqual(["immediate", "after yield"]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("ProductionRandom", () => {
  const random = new ProductionRandom();

  it("random() returns unsigned 32-bit integers", () => {
    for (let i = 0; i < 2000; i++) {
      const x = random.random();
      expect(Number.isInteger(x) && x >= 0 && x <= 0xffff_ffff).toBe(true);
    }
  });

  it("randomRange(lo, hi) stays in [lo, hi) and reaches every value of a small range", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const x = random.randomRange(-3, 4);
      expect(Number.isInteger(x) && x >= -3 && x < 4).toBe(true);
      seen.add(x);
    }
    expect([...seen].sort((a, b) => a - b)).toEqual([-3, -2, -1, 0, 1, 2, 3]);
    expect(random.randomRange(5, 6)).toBe(5);
  });

  it("randomRange handles spans beyond 2^48 and the whole safe-integer range", () => {
    const ranges: Array<[number, number]> = [
      [0, 2 ** 50],
      [-(2 ** 51), 2 ** 51 + 12345],
      [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
      [0, Number.MAX_SAFE_INTEGER],
      [Number.MAX_SAFE_INTEGER - 10, Number.MAX_SAFE_INTEGER],
    ];
    for (const [lo, hi] of ranges) {
      for (let i = 0; i < 500; i++) {
        const x = random.randomRange(lo, hi);
        expect(Number.isSafeInteger(x) && x >= lo && x < hi, `[${lo}, ${hi}) gave ${x}`).toBe(true);
      }
    }
    const negative = Array.from({ length: 200 }, () =>
      random.randomRange(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    );
    expect(negative.some((x) => x < 0) && negative.some((x) => x > 0)).toBe(true);
  });

  it("randomRange rejects bad arguments with a RangeError naming them", () => {
    const bad: Array<[number, number]> = [
      [5, 5],
      [6, 5],
      [0.5, 3],
      [0, 2.5],
      [Number.NaN, 3],
      [0, Number.POSITIVE_INFINITY],
      [0, 2 ** 53],
    ];
    for (const [lo, hi] of bad) {
      expect(() => random.randomRange(lo, hi)).toThrow(RangeError);
      expect(() => random.randomRange(lo, hi)).toThrow(`lo=${String(lo)}, hi=${String(hi)}`);
    }
  });

  it("randomBool and randomRatio", () => {
    for (let i = 0; i < 200; i++) {
      expect(random.randomBool(0)).toBe(false);
      expect(random.randomBool(1)).toBe(true);
      const r = random.randomRatio();
      expect(r >= 0 && r < 1).toBe(true);
    }
    const heads = Array.from({ length: 2000 }, () => random.randomBool(0.5)).filter(Boolean).length;
    expect(heads).toBeGreaterThan(700); // p(failure) is astronomically small
    expect(heads).toBeLessThan(1300);
    expect(() => random.randomBool(1.5)).toThrow(RangeError);
    expect(() => random.randomBool(-0.1)).toThrow(RangeError);
    expect(() => random.randomBool(Number.NaN)).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------

describe("ConsoleTracer", () => {
  it("writes one JSON line per event at or above its level", () => {
    const lines: string[] = [];
    const tracer = new ConsoleTracer({ level: "info", fields: { node: "10.0.0.1" }, write: (l) => lines.push(l) });
    tracer.debug("dropped");
    tracer.info("value_chosen", { value: 7, big: 12345678901234567890n, level: "shadowed", ok: true });
    tracer.child({ task: "t1" }).error("broken", { why: null });
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({
      level: "info",
      event: "value_chosen",
      node: "10.0.0.1",
      value: 7,
      big: "12345678901234567890",
      _level: "shadowed",
      ok: true,
    });
    expect(typeof first.ts).toBe("string");
    expect(JSON.parse(lines[1]!)).toMatchObject({
      level: "error",
      event: "broken",
      node: "10.0.0.1",
      task: "t1",
      why: null,
    });
  });

  it("rejects an unknown level", () => {
    expect(() => new ConsoleTracer({ level: "loud" as never })).toThrow(RangeError);
  });
});

describe("productionProviders and createNodeContext", () => {
  it("bundles the providers; spawned tasks reach the network", async () => {
    const providers = productionProviders({ traceLevel: "error" });
    const listener = await listen(providers.network);
    const handle = providers.task.spawn("client", async (scope) => {
      const conn = await scope.network.connect(listener.localAddr);
      connections.push(conn as ProductionConnection);
      await conn.write(text("ping"));
      await conn.close();
      return conn.localAddr;
    });
    const server = await acceptTracked(listener);
    expect(decode(await readAll(server))).toBe("ping");
    expect(await handle.join()).toBe(server.peerAddr);
  });

  it("requestShutdown aborts ctx.shutdown with an AbortError and the signals of spawned tasks", async () => {
    const ctx = createNodeContext({ myIp: LOOPBACK, tracer: new ConsoleTracer({ write: () => {} }) });
    expect(ctx.myIp).toBe(LOOPBACK);
    const handle = ctx.task.spawn("worker", (scope) => {
      return new Promise<unknown>((resolve) =>
        scope.signal.addEventListener("abort", () => resolve(scope.signal.reason)),
      );
    });
    await new Promise((r) => setImmediate(r));
    expect(ctx.shutdown.aborted).toBe(false);
    ctx.requestShutdown("test over");
    expect(ctx.shutdown.aborted).toBe(true);
    expect(isAbortError(ctx.shutdown.reason)).toBe(true);
    expect(isAbortError(await handle.join())).toBe(true);
    ctx.dispose();
  });

  it("shutdown: true installs SIGTERM/SIGINT handlers that dispose() removes", () => {
    const before = [process.listenerCount("SIGTERM"), process.listenerCount("SIGINT")];
    const ctx = createNodeContext({ myIp: LOOPBACK, shutdown: true });
    expect([process.listenerCount("SIGTERM"), process.listenerCount("SIGINT")]).toEqual([
      before[0]! + 1,
      before[1]! + 1,
    ]);
    ctx.dispose();
    expect([process.listenerCount("SIGTERM"), process.listenerCount("SIGINT")]).toEqual(before);
  });

  it("shutdown: true removes the handlers once shutdown was requested", () => {
    const before = process.listenerCount("SIGTERM");
    const ctx = createNodeContext({ myIp: LOOPBACK, shutdown: true });
    ctx.requestShutdown();
    expect(process.listenerCount("SIGTERM")).toBe(before);
  });

  it("follows an external shutdown signal", () => {
    const external = new AbortController();
    const ctx = createNodeContext({ myIp: LOOPBACK, shutdown: external.signal });
    external.abort(new DOMException("bye", "AbortError"));
    expect(ctx.shutdown.aborted).toBe(true);
  });

  it("rejects a myIp that is not an IP address", () => {
    expect(() => createNodeContext({ myIp: "127.0.0.1:4500" })).toThrow(InvalidConfiguration);
  });

  it("encodeFrame output is what FramedConnection expects (sanity for the re-export)", () => {
    expect(encodeFrame(text("a")).length).toBe(5);
  });
});
