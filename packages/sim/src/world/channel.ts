/**
 * `ctx.task.channel(name)`: a process's named in-memory queues, simulated.
 *
 * A channel belongs to one incarnation (one boot of a process): a crash loses its queued values
 * and drops its waiting receivers like any other pending work, and the rebooted process starts
 * with empty channels. Every scope of the incarnation that asks for a name gets a view of the same
 * queue; a view's `recv` is owned by that scope's task, so aborting the task stops it there.
 *
 * Hand-offs to waiting receivers are engine events at the current instant, one value per event:
 * the scheduler interleaves them with everything else that is ready, so each seed explores one
 * order of receivers and senders instead of the single order plain promises would give. Values
 * stay FIFO regardless: they are queued at `send`, and an event only decides when the oldest
 * live waiter takes the oldest value.
 *
 * A receiver that gives up (`timeoutMs`, `signal`) is rejected and so no longer pending: the
 * hand-offs skip it, and the value it would have taken goes to the next receiver.
 */
import {
  ChannelClosed,
  TimeoutError,
  checkChannelName,
  checkRecvTimeoutMs,
  checkSendable,
  type Channel,
  type RecvOptions,
} from "@moonpool/core";
import { Incarnation, never, type PendingOp } from "../engine/incarnation.ts";
import { msToUs } from "../engine/engine.ts";
import { EventTag } from "./event-tag.ts";
import type { World } from "./world.ts";
import type { ActorScope } from "./scope.ts";

/** The shared state of one named channel of one incarnation. */
class ChannelQueue {
  readonly values: unknown[] = [];
  /** Receivers in the order they started waiting; dropped ones (crash, abort) are skipped lazily. */
  readonly waiters: PendingOp<unknown>[] = [];
  closed = false;
  /** Hand-off events queued and not yet applied. */
  private wakesScheduled = 0;
  /** For deadlock messages: built once, not per `recv`. */
  readonly quotedName: string;

  constructor(
    readonly name: string,
    readonly incarnation: Incarnation,
    private readonly world: World,
  ) {
    this.quotedName = `'${name}'`;
  }

  /** Drops receivers at the head that no longer wait (their task was aborted or shut down). */
  pruneHead(): void {
    const waiters = this.waiters;
    while (waiters.length > 0 && !waiters[0]!.linked) waiters.shift();
  }

  /** Schedules one hand-off per value (or, once closed, per waiter) that has a receiver waiting. */
  ensureWakes(): void {
    const handOffs = this.closed ? this.waiters.length : Math.min(this.waiters.length, this.values.length);
    while (this.wakesScheduled < handOffs) {
      this.wakesScheduled++;
      this.world.engine.schedule(0, handOff, this, EventTag.channel, this.incarnation);
    }
  }

  /** One hand-off event: the oldest live waiter takes the oldest value (or end of channel). */
  handOff(): void {
    this.wakesScheduled--;
    this.pruneHead();
    const op = this.waiters[0];
    if (op !== undefined) {
      if (this.values.length > 0) {
        this.waiters.shift();
        Incarnation.resolve(op, this.values.shift());
      } else if (this.closed) {
        this.waiters.shift();
        Incarnation.resolve(op, undefined);
      }
    }
    // A dropped waiter may have held the hand-off a live one needs.
    this.ensureWakes();
  }
}

function handOff(queue: ChannelQueue): void {
  queue.handOff();
}

/** A `recv` deadline: rejects the receiver if it is still waiting (a no-op once served). */
function expireRecv(op: PendingOp<unknown>, timeoutMs: number): void {
  Incarnation.reject(op, new TimeoutError(timeoutMs));
}

/** Rejects `op` with the signal's reason when it aborts; the listener goes once `op` settles. */
function watchSignal(op: PendingOp<unknown>, signal: AbortSignal): void {
  const onAbort = (): void => {
    Incarnation.reject(op, signal.reason);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  const forget = (): void => signal.removeEventListener("abort", onAbort);
  op.promise.then(forget, forget);
}

/** Channels by name, per incarnation: they die with it (weakly held, nothing to clean up). */
const byIncarnation = new WeakMap<Incarnation, Map<string, ChannelQueue>>();

function queueFor(scope: ActorScope, name: string): ChannelQueue {
  let channels = byIncarnation.get(scope.incarnation);
  if (channels === undefined) {
    channels = new Map();
    byIncarnation.set(scope.incarnation, channels);
  }
  let queue = channels.get(name);
  if (queue === undefined) {
    queue = new ChannelQueue(name, scope.incarnation, scope.world);
    channels.set(name, queue);
  }
  return queue;
}

const DONE_UNDEFINED: Promise<undefined> = Promise.resolve(undefined);

/** One scope's view of a channel: its `recv` waits are owned by that scope's task. */
export class SimChannel<T> implements Channel<T> {
  private readonly queue: ChannelQueue;

  constructor(
    private readonly scope: ActorScope,
    name: string,
  ) {
    checkChannelName(name);
    this.queue = queueFor(scope, name);
  }

  get name(): string {
    return this.queue.name;
  }

  get closed(): boolean {
    return this.queue.closed;
  }

  get size(): number {
    return this.queue.values.length;
  }

  send(value: T): void {
    const queue = this.queue;
    checkSendable(queue.name, value);
    if (queue.closed) throw new ChannelClosed(queue.name);
    queue.values.push(value);
    queue.ensureWakes();
  }

  recv(options?: RecvOptions): Promise<T | undefined> {
    const scope = this.scope;
    const queue = this.queue;
    const task = scope.taskState;
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined) checkRecvTimeoutMs(queue.name, timeoutMs);
    const signal = options?.signal;
    if (!scope.incarnation.alive || (task !== null && !task.alive)) return never();
    if (signal?.aborted) return Promise.reject(signal.reason);
    queue.pruneHead();
    // Take at once only when nobody waits: waiting receivers are served first, in order.
    if (queue.waiters.length === 0) {
      if (queue.values.length > 0) return Promise.resolve(queue.values.shift() as T);
      if (queue.closed) return DONE_UNDEFINED;
    }
    const op = scope.incarnation.begin<T | undefined>(task, true, "recv on channel", queue.quotedName);
    if (op === null) return never();
    queue.waiters.push(op as PendingOp<unknown>);
    queue.ensureWakes();
    if (timeoutMs !== undefined)
      scope.world.engine.schedule(msToUs(timeoutMs), expireRecv, op, EventTag.timer, scope.incarnation, timeoutMs);
    if (signal !== undefined) watchSignal(op as PendingOp<unknown>, signal);
    return op.promise;
  }

  close(): void {
    const queue = this.queue;
    if (queue.closed) return;
    queue.closed = true;
    queue.ensureWakes();
  }
}
