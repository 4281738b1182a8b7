/**
 * A persistent pool of `worker_threads` running seeds (findings Q7: threads start in ~60 ms and
 * cost ~9 MB each; one per core is the sweet spot). Each worker runs one task at a time; tasks
 * wait in a FIFO queue. `run()` never rejects: a task ends done, in error, timed out or
 * cancelled. A worker that crashes or times out is terminated and replaced, so one bad seed does
 * not take the campaign down.
 */
import { Worker } from "node:worker_threads";
import type { SeedTask, SeedTaskMessage, TaskOutcome, WorkerReply } from "./messages.ts";

const BOOTSTRAP_URL = new URL("./worker-bootstrap.mjs", import.meta.url);

interface PendingTask {
  readonly message: SeedTaskMessage;
  readonly timeoutMs: number | null;
  /** Tasks of one campaign share a batch object, so the campaign can cancel what it no longer needs. */
  readonly batch: object;
  readonly resolve: (outcome: TaskOutcome) => void;
}

interface Slot {
  worker: Worker;
  /** The worker has loaded the engine; tasks (and their timeouts) start only then. */
  ready: boolean;
  current: PendingTask | null;
  timer: NodeJS.Timeout | null;
  startedMs: number;
}

export class SeedPool {
  private readonly slots: Slot[] = [];
  private readonly queue: PendingTask[] = [];
  private nextId = 1;
  private closed = false;

  constructor(readonly size: number) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`SeedPool size must be a positive integer, got ${size}`);
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /** Queues a task; `timeoutMs` (wall clock, from when a worker starts it) null for no limit. */
  run(task: SeedTask, options: { readonly timeoutMs: number | null; readonly batch: object }): Promise<TaskOutcome> {
    if (this.closed) return Promise.resolve({ kind: "cancelled" });
    return new Promise((resolve) => {
      this.queue.push({ message: { ...task, id: this.nextId++ }, timeoutMs: options.timeoutMs, batch: options.batch, resolve });
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
    const slot: Slot = { worker: new Worker(BOOTSTRAP_URL), ready: false, current: null, timer: null, startedMs: 0 };
    slot.worker.on("message", (reply: WorkerReply) => {
      if (reply.kind === "ready") {
        slot.ready = true;
        this.pump();
        return;
      }
      const task = slot.current;
      if (task === null || task.message.id !== reply.id) return;
      this.finish(slot, reply.kind === "done" ? { kind: "done", outcome: reply.outcome } : { kind: "error", message: reply.message, stack: reply.stack });
      this.pump();
    });
    // An error outside any task's try/catch (or a crash) ends the thread: fail its task, replace it.
    slot.worker.on("error", (error) => this.replace(slot, { kind: "error", message: `seed worker crashed: ${error.name}: ${error.message}`, stack: error.stack }));
    slot.worker.on("exit", (code) => this.replace(slot, { kind: "error", message: `seed worker exited unexpectedly with code ${code}` }));
    return slot;
  }

  private finish(slot: Slot, outcome: TaskOutcome): void {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    const task = slot.current;
    slot.current = null;
    task?.resolve(outcome);
  }

  private replace(slot: Slot, outcome: TaskOutcome): void {
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
