/**
 * The provider interfaces a server is written against. The same code runs on the production
 * providers (real Node I/O, `./production`) and inside the simulator (`@moonpool/sim`).
 *
 * Units: every duration is in milliseconds (`ms`) as a JS number; fractional values are allowed
 * and the simulator keeps microsecond precision.
 */
import type { MetricsProvider } from "./metrics.ts";
import type { Tracer } from "./trace.ts";
import type { StorageProvider } from "./storage.ts";

export interface TimeProvider {
  /** Resolves after `delayMs` of (simulated or real) time. */
  sleep(delayMs: number): Promise<void>;
  /** Milliseconds since the world started; exact simulated time in the simulator. */
  now(): number;
  /**
   * This process's own clock reading in ms. In the simulator it may run ahead of `now()` by a
   * bounded drift (like a real machine's clock); it never goes backwards and never runs behind.
   */
  timer(): number;
  /** Settles like `promise`, or rejects with `TimeoutError` after `timeoutMs`. */
  timeout<T>(timeoutMs: number, promise: Promise<T>): Promise<T>;
}

export type TaskOutcome<T> =
  | { readonly status: "ok"; readonly value: T }
  | { readonly status: "cancelled" }
  | { readonly status: "failed"; readonly error: unknown };

/** A spawned task. Awaiting the handle gives its outcome; it never rejects. */
export interface TaskHandle<T> extends PromiseLike<TaskOutcome<T>> {
  readonly name: string;
  /** True once the task returned, threw, or was aborted. */
  readonly finished: boolean;
  /**
   * Stops the task: in the simulator it stops at its next await of a provider operation made
   * through the scope it was given, and none of its `finally` blocks run (like a killed thread).
   */
  abort(): void;
  /** The outcome (same as awaiting the handle). */
  readonly outcome: Promise<TaskOutcome<T>>;
  /** The value, or a rejection with the task's error or `TaskCancelled`. */
  join(): Promise<T>;
}

export interface TaskProvider {
  /**
   * Starts `body` as a concurrent task. `body` receives the providers scoped to the new task:
   * use them (not the parent's) so that `abort()` and crashes stop the task where it waits.
   */
  spawn<T>(name: string, body: (scope: TaskScope) => Promise<T>): TaskHandle<T>;
  /** Lets other ready work run first; the simulator re-queues the caller at a seeded position. */
  yieldNow(): Promise<void>;
  /**
   * This process's channel called `name` (created on first use), seen from this scope: every
   * scope of the process that asks for the same name gets the same queue. Receive through the
   * scope of the task that waits (`scope.task.channel(name)`), like every other provider call, so
   * that aborting the task or crashing the process stops it where it waits. Channels are
   * in-process: between processes, use the network.
   */
  channel<T>(name: string): Channel<T>;
}

/** How long a channel receiver is willing to wait. */
export interface RecvOptions {
  /** Stop waiting after this long: `recv` rejects with `TimeoutError` and leaves the line (no value is lost). */
  readonly timeoutMs?: number;
  /** Stop waiting when this signal aborts: `recv` rejects with the signal's reason and leaves the line. */
  readonly signal?: AbortSignal;
}

/**
 * An unbounded FIFO queue of values between the tasks of one process (an actor's mailbox, a work
 * queue). In the simulator every hand-off to a waiting receiver is an engine event at the current
 * instant, so each seed explores one interleaving of receivers with the other ready work, a crash
 * drops the waiters, and a deadlock report names the channel a task waits on.
 */
export interface Channel<T> {
  readonly name: string;
  /**
   * Queues `value` for the oldest waiting receiver (or the next `recv`). Never blocks. Throws
   * `ChannelClosed` after `close()`, and a `TypeError` for `undefined` (which `recv` reserves for
   * "closed and drained").
   */
  send(value: T): void;
  /**
   * The oldest queued value, waiting for one when the queue is empty; `undefined` once the
   * channel is closed and every value sent before the close was received. Receivers that wait
   * together are served in the order they started waiting.
   *
   * A waiting `recv` keeps its place in the line until it is served: racing it against
   * `time.timeout` or `select` and walking away would let the next value go to the abandoned
   * receiver. To stop waiting without losing a value, pass `timeoutMs` or `signal`.
   */
  recv(options?: RecvOptions): Promise<T | undefined>;
  /** No more sends; receivers still get every queued value, then `undefined`. Closing twice is harmless. */
  close(): void;
  readonly closed: boolean;
  /** Values sent and not yet received. */
  readonly size: number;
}

/**
 * Seeded randomness. In the simulator every draw comes from the counted `sim` stream, so a seed
 * (and an exploration recipe) replays it exactly.
 */
export interface RandomProvider {
  /** A uniform unsigned 32-bit integer (0 ..= 2^32 - 1). */
  random(): number;
  /** A uniform integer in `[lo, hi)`. Both bounds must be safe integers with `lo < hi`. */
  randomRange(lo: number, hi: number): number;
  /** `true` with probability `p` (0 ..= 1). */
  randomBool(p: number): boolean;
  /** A uniform float in `[0, 1)`. */
  randomRatio(): number;
}

/** One end of a TCP-like byte stream. */
export interface Connection {
  /** This end's address, `ip:port`. */
  readonly localAddr: string;
  /** The other end's real address, `ip:port`. */
  readonly peerAddr: string;
  /**
   * The next bytes available, or `null` once the peer closed its side and every byte before the
   * close was read. Rejects with `IoError("ECONNRESET")` when the connection was reset.
   */
  read(): Promise<Uint8Array | null>;
  /** Queues `bytes` for delivery in order. Rejects with `IoError` if the connection is closed or reset. */
  write(bytes: Uint8Array): Promise<void>;
  /** Graceful close of our sending side: the peer reads end-of-stream after the last byte. */
  close(): Promise<void>;
}

export interface Listener {
  readonly localAddr: string;
  /** The next incoming connection (pending connects queue in arrival order). */
  accept(): Promise<Connection>;
  /** Stops accepting; later connects to this address are refused. */
  close(): Promise<void>;
}

export interface NetworkProvider {
  /** Listens on `ip:port`. */
  bind(addr: string): Promise<Listener>;
  /** Connects to `ip:port`; rejects with `IoError("ECONNREFUSED")` when nobody listens there. */
  connect(addr: string): Promise<Connection>;
}

export interface Providers {
  readonly time: TimeProvider;
  readonly task: TaskProvider;
  readonly random: RandomProvider;
  readonly network: NetworkProvider;
  /** Files owned by this process's machine (IP in the simulator): they survive its reboots. */
  readonly storage: StorageProvider;
}

/** What a spawned task receives: the providers scoped to it, and its cancellation signal. */
export interface TaskScope extends Providers {
  readonly trace: Tracer;
  /** Counters, gauges and histograms of this process. */
  readonly metrics: MetricsProvider;
  /** Aborted when the task is aborted or its process shuts down. */
  readonly signal: AbortSignal;
}

/**
 * The context a server process runs with, in production and in simulation alike. The simulator's
 * `SimContext` adds topology, client ids and the shared state board.
 */
export interface NodeContext extends Providers {
  /** This process's IP address (no port). */
  readonly myIp: string;
  readonly trace: Tracer;
  /** Counters, gauges and histograms of this process (Prometheus in production). */
  readonly metrics: MetricsProvider;
  /** Aborted when the process is asked to shut down gracefully. */
  readonly shutdown: AbortSignal;
}
