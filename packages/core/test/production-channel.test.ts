/**
 * The production `Channel` (`task.channel(name)`): FIFO values and receivers, close, the shared
 * per-process registry, and how an aborted receiver leaves the line without losing a value.
 */
import { describe, expect, it } from "vitest";
import {
  ChannelClosed,
  ChannelRegistry,
  ConsoleTracer,
  createNodeContext,
  MoonpoolError,
  NullTracer,
  ProductionTask,
  ProductionTime,
  type Channel,
  type TaskScope,
} from "@moonpool/core";
import { Halt } from "../src/production/halt.ts";
import { channelContractSuite } from "./channel-contract.ts";

channelContractSuite("production (ProductionTask)", {
  run: (body) => body(new ProductionTask({ tracer: new NullTracer() }), new ProductionTime()),
});

function rootTask(): ProductionTask {
  return new ProductionTask({ tracer: new NullTracer() });
}

/** Lets every ready microtask and one round of macrotasks run. */
async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** Whether `promise` is still pending after a few turns of the event loop. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turns();
  return !settled;
}

/** Spawns a task that waits on `channel(name).recv()` through its own scope and records what it got. */
function receiver(task: ProductionTask, taskName: string, channelName: string, got: Array<[string, unknown]>) {
  let scope!: TaskScope;
  const handle = task.spawn(taskName, async (s) => {
    scope = s;
    const value = await s.task.channel<string>(channelName).recv();
    got.push([taskName, value]);
    return value;
  });
  return { handle, scope: () => scope };
}

describe("ProductionChannel", () => {
  it("delivers values in the order they were sent", async () => {
    const channel = rootTask().channel<number>("numbers");
    expect(channel.name).toBe("numbers");
    for (const n of [1, 2, 3, 4]) channel.send(n);
    expect(channel.size).toBe(4);
    expect([await channel.recv(), await channel.recv(), await channel.recv(), await channel.recv()]).toEqual([
      1, 2, 3, 4,
    ]);
    expect(channel.size).toBe(0);
  });

  it("queues a value sent before anyone receives; recv takes it at once", async () => {
    const channel = rootTask().channel<string>("mailbox");
    channel.send("hello");
    expect(channel.size).toBe(1);
    const received = channel.recv();
    // Taken synchronously from the queue, not on some later hand-off.
    expect(channel.size).toBe(0);
    expect(await received).toBe("hello");
    // null is a value like any other (only undefined is reserved).
    const nullable = rootTask().channel<string | null>("nullable");
    nullable.send(null);
    expect(await nullable.recv()).toBeNull();
  });

  it("serves waiting receivers in the order they started waiting", async () => {
    const task = rootTask();
    const channel = task.channel<string>("jobs");
    const order: string[] = [];
    const first = channel.recv().then((v) => (order.push(`first:${v}`), v));
    const second = channel.recv().then((v) => (order.push(`second:${v}`), v));
    const third = channel.recv().then((v) => (order.push(`third:${v}`), v));
    expect(await pending(first)).toBe(true);
    channel.send("a");
    channel.send("b");
    channel.send("c");
    // Every value went straight to a waiter: none was queued.
    expect(channel.size).toBe(0);
    expect(await Promise.all([first, second, third])).toEqual(["a", "b", "c"]);
    expect(order).toEqual(["first:a", "second:b", "third:c"]);
  });

  it("serves waiting tasks (each on its own scope) in wait order", async () => {
    const task = rootTask();
    const got: Array<[string, unknown]> = [];
    const a = receiver(task, "a", "work", got);
    const b = receiver(task, "b", "work", got);
    const c = receiver(task, "c", "work", got);
    await turns();
    expect(got).toEqual([]);
    const sender = task.channel<string>("work");
    sender.send("1");
    sender.send("2");
    sender.send("3");
    expect(await a.handle.join()).toBe("1");
    expect(await b.handle.join()).toBe("2");
    expect(await c.handle.join()).toBe("3");
    expect(got).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["c", "3"],
    ]);
  });

  it("after close, receivers drain the queued values, then get undefined (every time)", async () => {
    const channel = rootTask().channel<number>("drain");
    channel.send(1);
    channel.send(2);
    channel.close();
    expect(channel.closed).toBe(true);
    expect(channel.size).toBe(2);
    expect(await channel.recv()).toBe(1);
    expect(await channel.recv()).toBe(2);
    expect(await channel.recv()).toBeUndefined();
    expect(await channel.recv()).toBeUndefined();
    expect(channel.size).toBe(0);
  });

  it("close() wakes every waiting receiver with undefined", async () => {
    const task = rootTask();
    const channel = task.channel<string>("closing");
    const direct = channel.recv();
    const got: Array<[string, unknown]> = [];
    const worker = receiver(task, "worker", "closing", got);
    await turns();
    expect(await pending(direct)).toBe(true);
    channel.close();
    expect(await direct).toBeUndefined();
    expect(await worker.handle).toEqual({ status: "ok", value: undefined });
    expect(got).toEqual([["worker", undefined]]);
  });

  it("send after close throws ChannelClosed naming the channel; closing twice is harmless", async () => {
    const channel = rootTask().channel<string>("orders");
    channel.send("kept");
    channel.close();
    expect(() => channel.close()).not.toThrow();
    expect(channel.closed).toBe(true);
    let error: unknown;
    try {
      channel.send("late");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ChannelClosed);
    expect(error).toBeInstanceOf(MoonpoolError);
    expect((error as ChannelClosed).name).toBe("ChannelClosed");
    expect((error as ChannelClosed).channelName).toBe("orders");
    expect((error as ChannelClosed).message).toContain("send on channel 'orders' after close()");
    // The rejected send queued nothing; the value sent before the close is still delivered.
    expect(channel.size).toBe(1);
    expect(await channel.recv()).toBe("kept");
    expect(await channel.recv()).toBeUndefined();
  });

  it("send(undefined) throws a TypeError and queues nothing", async () => {
    const channel = rootTask().channel<string | undefined>("strict");
    expect(() => channel.send(undefined)).toThrow(TypeError);
    expect(() => channel.send(undefined)).toThrow(
      /send\(undefined\) on channel 'strict'.*send null or a wrapper object/,
    );
    expect(channel.size).toBe(0);
    // A waiting receiver is not woken by the rejected send.
    const waiting = channel.recv();
    expect(() => channel.send(undefined)).toThrow(TypeError);
    expect(await pending(waiting)).toBe(true);
    channel.send("real");
    expect(await waiting).toBe("real");
  });

  it("refuses an empty name with a TypeError", () => {
    expect(() => rootTask().channel<string>("")).toThrow(/a channel needs a non-empty string name/);
  });

  it("the same name is the same queue from every scope of the process; another name is another queue", async () => {
    const task = rootTask();
    const root = task.channel<string>("jobs");
    root.send("from root");
    const handle = task.spawn("child", async (scope) => {
      const child = scope.task.channel<string>("jobs");
      const other = scope.task.channel<string>("other");
      const seen = { size: child.size, otherSize: other.size, value: await child.recv() };
      // A grandchild shares the queue too.
      const grandchild = scope.task.spawn("grandchild", async (inner) => {
        inner.task.channel<string>("jobs").send("from grandchild");
        inner.task.channel<string>("other").send("elsewhere");
      });
      await grandchild.join();
      return seen;
    });
    expect(await handle.join()).toEqual({ size: 1, otherSize: 0, value: "from root" });
    expect(root.size).toBe(1);
    expect(await root.recv()).toBe("from grandchild");
    expect(root.size).toBe(0);
    const other = task.channel<string>("other");
    expect(other.size).toBe(1);
    expect(await other.recv()).toBe("elsewhere");
    // Closing one view closes the channel for every view of that name only.
    task.channel("jobs").close();
    expect(root.closed).toBe(true);
    expect(other.closed).toBe(false);
  });

  it("separate roots (separate processes) have separate channels; a shared registry joins them", () => {
    const a = rootTask();
    const b = rootTask();
    a.channel<number>("jobs").send(1);
    expect(a.channel("jobs").size).toBe(1);
    expect(b.channel("jobs").size).toBe(0);
    const channels = new ChannelRegistry();
    const c = new ProductionTask({ tracer: new NullTracer(), channels });
    const d = new ProductionTask({ tracer: new NullTracer(), channels });
    c.channel<number>("jobs").send(2);
    expect(d.channel("jobs").size).toBe(1);
  });

  it("a NodeContext's task provider and its spawned tasks share channels", async () => {
    const ctx = createNodeContext({ myIp: "127.0.0.1", tracer: new ConsoleTracer({ write: () => {} }) });
    const handle = ctx.task.spawn("consumer", async (scope) => scope.task.channel<string>("inbox").recv());
    await turns();
    ctx.task.channel<string>("inbox").send("ping");
    expect(await handle.join()).toBe("ping");
    ctx.dispose();
  });

  it("an aborted waiting receiver never resolves and the next value goes to the next live receiver", async () => {
    const task = rootTask();
    const got: Array<[string, unknown]> = [];
    const doomed = receiver(task, "doomed", "jobs", got);
    const live = receiver(task, "live", "jobs", got);
    await turns();
    doomed.handle.abort();
    const channel = task.channel<string>("jobs");
    channel.send("x");
    expect(await live.handle.join()).toBe("x");
    expect(await doomed.handle).toEqual({ status: "cancelled" });
    await turns();
    expect(got).toEqual([["live", "x"]]);
    expect(channel.size).toBe(0);
  });

  it("a value sent when only aborted receivers waited stays queued for the next recv", async () => {
    const task = rootTask();
    const got: Array<[string, unknown]> = [];
    const doomed = receiver(task, "doomed", "jobs", got);
    await turns();
    doomed.handle.abort();
    const channel = task.channel<string>("jobs");
    channel.send("kept");
    expect(channel.size).toBe(1);
    await turns();
    expect(got).toEqual([]);
    expect(await channel.recv()).toBe("kept");
    // recv through the aborted task's scope never settles, and takes nothing from the queue.
    channel.send("also kept");
    const late = doomed.scope().task.channel<string>("jobs").recv();
    expect(await pending(late)).toBe(true);
    expect(channel.size).toBe(1);
    expect(await channel.recv()).toBe("also kept");
    // close() does not wake it either: it left the line when it was aborted.
    channel.close();
    expect(await pending(late)).toBe(true);
    expect(got).toEqual([]);
  });

  it("does not leave halt callbacks behind for served receivers", async () => {
    const halt = new Halt();
    let registered = 0;
    const onHalt = halt.onHalt.bind(halt);
    halt.onHalt = (callback) => {
      registered++;
      const unregister = onHalt(callback);
      return () => {
        registered--;
        unregister();
      };
    };
    // A provider bound to `halt`, as `spawn` builds for a task scope.
    const scoped = new ProductionTask({ tracer: new NullTracer(), halt, channels: new ChannelRegistry() });
    const channel: Channel<number> = scoped.channel<number>("loop");
    for (let i = 0; i < 1000; i++) {
      const next = channel.recv();
      expect(registered).toBe(1);
      channel.send(i);
      expect(await next).toBe(i);
      expect(registered).toBe(0);
    }
    const waiting = channel.recv();
    expect(registered).toBe(1);
    channel.close();
    expect(await waiting).toBeUndefined();
    expect(registered).toBe(0);
    // A value queued before recv never needs the callback.
    const again = new ProductionTask({ tracer: new NullTracer(), halt }).channel<number>("fast");
    again.send(7);
    expect(await again.recv()).toBe(7);
    expect(registered).toBe(0);
  });

  it("reports size and closed for every view of the channel", async () => {
    const task = rootTask();
    const a = task.channel<number>("stats");
    let scope!: TaskScope;
    await task
      .spawn("peek", async (s) => {
        scope = s;
      })
      .join();
    const b = scope.task.channel<number>("stats");
    expect([a.size, b.size, a.closed, b.closed]).toEqual([0, 0, false, false]);
    a.send(1);
    b.send(2);
    expect([a.size, b.size]).toEqual([2, 2]);
    expect(await b.recv()).toBe(1);
    expect([a.size, b.size]).toEqual([1, 1]);
    b.close();
    expect([a.closed, b.closed]).toEqual([true, true]);
    expect([a.size, b.size]).toEqual([1, 1]);
    expect(await a.recv()).toBe(2);
    expect([a.size, b.size]).toEqual([0, 0]);
  });
});
