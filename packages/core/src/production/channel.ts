/**
 * `Channel` for production: named in-process FIFO queues, shared by every `ProductionTask` of one
 * provider tree (the root creates a `ChannelRegistry`, `spawn` hands it to each child).
 *
 * A channel is one shared `ChannelState` (queued values, waiting receivers, closed flag) seen
 * through views: `task.channel(name)` returns a view bound to that provider's `Halt`, so a task
 * aborted while it waits in `recv` stops there, like on any other scoped operation. Invariant:
 * values are only queued while nobody waits, and receivers only wait while no value is queued.
 */
import { checkChannelName, checkRecvTimeoutMs, checkSendable } from "../channel-checks.ts";
import { ChannelClosed, TimeoutError } from "../errors.ts";
import type { Channel, RecvOptions } from "../providers.ts";
import { never, type Halt } from "./halt.ts";

/** A receiver waiting in `recv`. */
interface Waiter<T> {
  readonly resolve: (value: T | undefined) => void;
  /** Drops what could still take this waiter out of the line (halt callback, timer, signal listener). */
  unregister: () => void;
}

/** The state of one named channel, shared by all its views. */
class ChannelState<T> {
  readonly values: T[] = [];
  readonly waiters: Waiter<T>[] = [];
  closed = false;
}

/**
 * The named channels of one process. Channels are created on first use and live as long as the
 * registry (their names are the process's fixed set of mailboxes / work queues).
 */
export class ChannelRegistry {
  private readonly states = new Map<string, ChannelState<unknown>>();

  /** A view of channel `name` whose `recv` stops (never settles) once `halt` has stopped. */
  channel<T>(name: string, halt?: Halt): Channel<T> {
    checkChannelName(name);
    let state = this.states.get(name);
    if (state === undefined) {
      state = new ChannelState<unknown>();
      this.states.set(name, state);
    }
    // The element type is the caller's promise, as with any named lookup; it cannot be checked.
    return new ProductionChannel<T>(name, state as ChannelState<T>, halt);
  }
}

/** One task's view of a named channel (see the module doc). */
export class ProductionChannel<T> implements Channel<T> {
  constructor(
    readonly name: string,
    private readonly state: ChannelState<T>,
    private readonly halt: Halt | undefined,
  ) {}

  get closed(): boolean {
    return this.state.closed;
  }

  get size(): number {
    return this.state.values.length;
  }

  /** Hands `value` to the oldest waiting receiver, or queues it. Never blocks. */
  send(value: T): void {
    checkSendable(this.name, value);
    const state = this.state;
    if (state.closed) throw new ChannelClosed(this.name);
    const waiter = state.waiters.shift();
    if (waiter === undefined) {
      state.values.push(value);
      return;
    }
    // Waiters of halted tasks were removed when they halted, so this receiver is live.
    waiter.unregister();
    waiter.resolve(value);
  }

  /**
   * The oldest queued value; waits (behind earlier waiters) when none is queued; `undefined` once
   * closed and drained. Never settles once this view's task is halted. With `timeoutMs` or
   * `signal`, a receiver that gives up leaves the line and rejects (`TimeoutError`, the signal's
   * reason), so the value it would have taken goes to the next receiver.
   */
  recv(options?: RecvOptions): Promise<T | undefined> {
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined) checkRecvTimeoutMs(this.name, timeoutMs);
    const signal = options?.signal;
    const halt = this.halt;
    if (halt?.halted) return never();
    if (signal?.aborted) return Promise.reject(signal.reason);
    const state = this.state;
    // Values are only queued while nobody waits, so the oldest value is ours.
    if (state.values.length > 0) return Promise.resolve(state.values.shift());
    if (state.closed) return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve, reject) => {
      const cleanups: (() => void)[] = [];
      const waiter: Waiter<T> = {
        resolve,
        unregister: () => {
          for (const cleanup of cleanups) cleanup();
        },
      };
      state.waiters.push(waiter);
      /** Takes this receiver out of the line (it will not be served); false if already served. */
      const leave = (): boolean => {
        const index = state.waiters.indexOf(waiter);
        if (index < 0) return false;
        state.waiters.splice(index, 1);
        waiter.unregister();
        return true;
      };
      // A halted task must not take a value it will never use: it leaves the line, so the next
      // value goes to the next live receiver (or stays queued). Its promise then never settles.
      if (halt !== undefined) cleanups.push(halt.onHalt(leave));
      if (timeoutMs !== undefined) {
        const timer = setTimeout(() => {
          if (leave()) reject(new TimeoutError(timeoutMs));
        }, timeoutMs);
        cleanups.push(() => clearTimeout(timer));
      }
      if (signal !== undefined) {
        const onAbort = (): void => {
          if (leave()) reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener("abort", onAbort));
      }
    });
  }

  /** No more sends. Waiters exist only while the queue is empty, so they all get `undefined` now. */
  close(): void {
    const state = this.state;
    if (state.closed) return;
    state.closed = true;
    for (const waiter of state.waiters.splice(0)) {
      waiter.unregister();
      waiter.resolve(undefined);
    }
  }
}
