/**
 * `TaskProvider` for production: tasks are plain concurrent async functions.
 *
 * Aborting a task (`handle.abort()`) settles its outcome as `cancelled` at once and aborts its
 * `scope.signal`. JavaScript cannot stop a running function from outside, so the production rule
 * mirrors the simulator's: every later operation the task makes through its scope's `time`,
 * `task` (`yieldNow`, a channel's `recv`), `network` (`bind`/`connect`) or `storage` never
 * settles, so the task stops at its next such `await` and its `finally` blocks do not run. Work
 * it does elsewhere (other libraries, `read`/`write` on connections it already holds, which may
 * be shared with other tasks) goes on: a task that owns resources should watch `scope.signal` and
 * release them from its abort listener
 * (for example `signal.addEventListener("abort", () => conn.close())`).
 */
import { TaskHandleBase } from "../task-handle.ts";
import { TaskCancelled } from "../errors.ts";
import type { Channel, RandomProvider, TaskHandle, TaskProvider, TaskScope } from "../providers.ts";
import type { Tracer } from "../trace.ts";
import { ChannelRegistry } from "./channel.ts";
import { Halt, never } from "./halt.ts";
import { ProductionNetwork } from "./network.ts";
import { ProductionRandom } from "./random.ts";
import { UnconfiguredStorage, type ProductionStorage } from "./storage.ts";
import { ProductionTime } from "./time.ts";
import { ConsoleTracer } from "./tracer.ts";

export interface ProductionTaskOptions {
  /** The clock given (scoped) to spawned tasks. Default: a new `ProductionTime`. */
  readonly time?: ProductionTime;
  /** The randomness given to spawned tasks. Default: a new `ProductionRandom`. */
  readonly random?: RandomProvider;
  /** The network given (scoped) to spawned tasks. Default: a new `ProductionNetwork`. */
  readonly network?: ProductionNetwork;
  /** The storage given (scoped) to spawned tasks. Default: `UnconfiguredStorage` (every call fails). */
  readonly storage?: ProductionStorage | UnconfiguredStorage;
  /** The tracer given to spawned tasks (a `ConsoleTracer` gets a `task` field). Default: `ConsoleTracer`. */
  readonly tracer?: Tracer;
  /** When this signal aborts, the signals of every task spawned here abort too (with its reason). */
  readonly signal?: AbortSignal;
  /** The kill switch of the task this provider belongs to (set for task scopes). */
  readonly halt?: Halt;
  /**
   * The process's named channels, shared with every task spawned here (`spawn` passes it on).
   * Default: a new, empty `ChannelRegistry`, which makes this provider the root of a process.
   */
  readonly channels?: ChannelRegistry;
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

class ProductionTaskHandle<T> extends TaskHandleBase<T> {
  readonly controller = new AbortController();
  readonly halt = new Halt();

  /**
   * Settles the outcome as `cancelled` now, stops the task's scoped operations (see the module
   * doc) and aborts its signal with `TaskCancelled`. No effect once the task finished.
   */
  abort(): void {
    if (this.finished) return;
    this.finish({ status: "cancelled" });
    this.halt.halt();
    this.controller.abort(new TaskCancelled(this.name));
  }
}

export class ProductionTask implements TaskProvider {
  private readonly time: ProductionTime;
  private readonly random: RandomProvider;
  private readonly network: ProductionNetwork;
  private readonly storage: ProductionStorage | UnconfiguredStorage;
  private readonly tracer: Tracer;
  private readonly signal: AbortSignal | undefined;
  private readonly halt: Halt | undefined;
  private readonly channels: ChannelRegistry;
  /** Running tasks spawned here, whose signals follow `signal`. */
  private readonly running = new Set<ProductionTaskHandle<unknown>>();
  private watchingSignal = false;

  constructor(options: ProductionTaskOptions = {}) {
    this.time = options.time ?? new ProductionTime();
    this.random = options.random ?? new ProductionRandom();
    this.network = options.network ?? new ProductionNetwork();
    this.storage = options.storage ?? new UnconfiguredStorage();
    this.tracer = options.tracer ?? new ConsoleTracer();
    this.signal = options.signal;
    this.halt = options.halt;
    this.channels = options.channels ?? new ChannelRegistry();
  }

  /**
   * Starts `body` in a microtask (after the caller's synchronous code; a task aborted before
   * that never starts). A task spawned from an aborted task never starts and never settles.
   * A body that throws gives a `failed` outcome and a `task_failed` warning on the tracer.
   */
  spawn<T>(name: string, body: (scope: TaskScope) => Promise<T>): TaskHandle<T> {
    const handle = new ProductionTaskHandle<T>(name);
    if (this.halt?.halted) return handle;
    const tracer = this.tracer instanceof ConsoleTracer ? this.tracer.child({ task: name }) : this.tracer;
    const signal = handle.controller.signal;
    const scope: TaskScope = {
      time: this.time.scoped(handle.halt),
      task: new ProductionTask({
        time: this.time,
        random: this.random,
        network: this.network,
        storage: this.storage,
        tracer: this.tracer,
        signal,
        halt: handle.halt,
        channels: this.channels,
      }),
      random: this.random,
      network: this.network.scoped(handle.halt),
      storage: this.storage.scoped(handle.halt),
      trace: tracer,
      signal,
    };
    this.follow(handle as ProductionTaskHandle<unknown>);
    queueMicrotask(() => {
      if (handle.finished) return;
      let result: Promise<T>;
      try {
        result = Promise.resolve(body(scope));
      } catch (error) {
        result = Promise.reject(error);
      }
      result.then(
        (value) => handle.finish({ status: "ok", value }),
        (error: unknown) => {
          if (handle.finished) return;
          tracer.warn("task_failed", { task: name, error: describeError(error) });
          handle.finish({ status: "failed", error });
        },
      );
    });
    return handle;
  }

  /** One `setImmediate` hop: lets I/O callbacks and other ready work run first. */
  yieldNow(): Promise<void> {
    const halt = this.halt;
    if (halt?.halted) return never();
    return new Promise<void>((resolve) => {
      setImmediate(() => {
        if (!halt?.halted) resolve();
      });
    });
  }

  /**
   * The process's channel `name` (created on first use), shared with every task of this provider
   * tree. Its `recv` never settles once this provider's task is aborted, and a receiver aborted
   * while waiting leaves the line, so no value is handed to a stopped task.
   */
  channel<T>(name: string): Channel<T> {
    return this.channels.channel<T>(name, this.halt);
  }

  /** Makes the new task's signal abort when `this.signal` does. */
  private follow(handle: ProductionTaskHandle<unknown>): void {
    const parent = this.signal;
    if (parent === undefined) return;
    if (parent.aborted) {
      handle.controller.abort(parent.reason);
      return;
    }
    this.running.add(handle);
    void handle.outcome.then(() => this.running.delete(handle));
    if (this.watchingSignal) return;
    this.watchingSignal = true;
    parent.addEventListener(
      "abort",
      () => {
        const handles = [...this.running];
        this.running.clear();
        for (const h of handles) h.controller.abort(parent.reason);
      },
      { once: true },
    );
  }
}
