/**
 * A persistent pool of `worker_threads` running simulation tasks (threads start in ~60 ms and
 * cost ~9 MB each; one per core is the sweet spot: docs/decisions.md D12). Each worker runs one task at a
 * time; tasks wait in a FIFO queue. `run()` never rejects: a task ends done, in error, timed out
 * or cancelled. A worker that crashes or times out is terminated and replaced, so one bad task
 * does not take the campaign down. Used by the explorer (continuations) and by `moonpool run`
 * (root seeds); what a task does is in pool-worker.ts.
 */
import { Worker } from "node:worker_threads";
import type { PoolTask, PoolTaskKind, PoolTaskMessage, PoolTaskResults, TaskOutcome, WorkerReply } from "./messages.ts";

const BOOTSTRAP_URL = new URL("./worker-bootstrap.mjs", import.meta.url);

export interface WorkerPoolOptions {
  /**
   * Modules (file URLs) every worker imports before its first task, e.g. the explore layer so
   * that root-seed tasks can explore (the runner never imports the explorer itself).
   */
  readonly preloadModules?: readonly string[];
}

export interface RunOptions {
  /** Wall clock, from when a worker starts the task; null (the default) for no limit. */
  readonly timeoutMs?: number | null;
  /** Tasks sharing a batch object can be cancelled together (`cancelQueued`). */
  readonly batch?: object;
}

interface PendingTask {
  readonly message: PoolTaskMessage;
  readonly timeoutMs: number | null;
  readonly batch: object | null;
  readonly resolve: (outcome: TaskOutcome<unknown>) => void;
}

interface Slot {
  worker: Worker;
  /** The worker has loaded the engine; tasks (and their timeouts) start only then. */
  ready: boolean;
  current: PendingTask | null;
  timer: NodeJS.Timeout | null;
  startedMs: number;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: PendingTask[] = [];
  private readonly preloadModules: readonly string[];
  private nextId = 1;
  private closed = false;

  constructor(
    readonly size: number,
    options: WorkerPoolOptions = {},
  ) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`WorkerPool size must be a positive integer, got ${size}`);
    this.preloadModules = (options.preloadModules ?? []).slice();
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /** Queues a task. */
  run<K extends PoolTaskKind>(task: Extract<PoolTask, { kind: K }>, options: RunOptions = {}): Promise<TaskOutcome<PoolTaskResults[K]>> {
    if (this.closed) return Promise.resolve({ kind: "cancelled" });
    return new Promise((resolve) => {
      const message = { ...task, id: this.nextId++ } as PoolTaskMessage;
      this.queue.push({ message, timeoutMs: options.timeoutMs ?? null, batch: options.batch ?? null, resolve: resolve as (outcome: TaskOutcome<unknown>) => void });
      this.pump();
    });
  }

  /** Cancels the batch's tasks still waiting in the queue (running ones finish; their results are ignored). */
  cancelQueued(batch: object): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const task = this.queue[i]!;
      if (task.batch !== batch) continue;
      this.queue.splice(i, 1);
      task.resolve({ kind: "cancelled" });
    }
  }

  /** Cancels everything and terminates the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const task of this.queue.splice(0)) task.resolve({ kind: "cancelled" });
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.timer !== null) clearTimeout(slot.timer);
        slot.current?.resolve({ kind: "cancelled" });
        slot.current = null;
        slot.worker.removeAllListeners();
        await slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(BOOTSTRAP_URL, { workerData: { preloadModules: this.preloadModules } });
    const slot: Slot = { worker, ready: false, current: null, timer: null, startedMs: 0 };
    worker.on("message", (reply: WorkerReply) => {
      if (reply.kind === "ready") {
        slot.ready = true;
        this.pump();
        return;
      }
      const task = slot.current;
      if (task === null || task.message.id !== reply.id) return;
      this.finish(slot, reply.kind === "done" ? { kind: "done", outcome: reply.value } : { kind: "error", name: reply.name, message: reply.message, stack: reply.stack });
      this.pump();
    });
    // An error outside any task's try/catch (or a crash) ends the thread: fail its task, replace it.
    worker.on("error", (error) => this.replace(slot, { kind: "error", name: error.name, message: `pool worker crashed: ${error.message}`, stack: error.stack }));
    worker.on("exit", (code) => this.replace(slot, { kind: "error", name: "Error", message: `pool worker exited unexpectedly with code ${code}` }));
    return slot;
  }

  private finish(slot: Slot, outcome: TaskOutcome<unknown>): void {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    const task = slot.current;
    slot.current = null;
    task?.resolve(outcome);
  }

  private replace(slot: Slot, outcome: TaskOutcome<unknown>): void {
    if (this.closed) return;
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.finish(slot, outcome);
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
    this.slots[index] = this.spawn();
    this.pump();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.current !== null) continue;
      const task = this.queue.shift()!;
      slot.current = task;
      slot.startedMs = performance.now();
      if (task.timeoutMs !== null) {
        slot.timer = setTimeout(() => this.replace(slot, { kind: "timeout", wallTimeMs: performance.now() - slot.startedMs }), task.timeoutMs);
      }
      slot.worker.postMessage(task.message);
    }
  }
}
