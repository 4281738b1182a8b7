/**
 * A persistent pool of `worker_threads` running simulation tasks (threads start in ~60 ms and
 * cost ~9 MB each; one per core is the sweet spot: docs/decisions.md D12). Each worker runs one task at a
 * time; tasks wait in a FIFO queue. `run()` never rejects: a task ends done, in error, hung
 * or cancelled. A worker that crashes or hangs is terminated and replaced, so one bad task
 * does not take the campaign down. Used by `moonpool run` and by the builder's `run()` (root
 * seeds, explored or not); what a task does is in pool-worker.ts.
 *
 * A task run `isolated` gets a fresh realm: a worker that has run nothing yet, with only that
 * task's simulation module imported ahead of time, retired once the task ends. Its successor is
 * spawned as soon as it takes the task, so the next isolated task finds a warm realm
 * (docs/decisions.md, seed isolation).
 */
import { cpus } from "node:os";
import { getHeapStatistics } from "node:v8";
import { Worker, type ResourceLimits } from "node:worker_threads";
import { newProgressBuffer, progressCellsOf, type ProgressCells } from "../../engine/progress.ts";
import type { SeedChaosRecord } from "../seed-chaos.ts";
import { type ProgressWatchdog, watchTask } from "./progress-watchdog.ts";
import type { PoolTask, PoolTaskKind, PoolTaskMessage, PoolTaskResults, TaskOutcome, WorkerReply } from "./messages.ts";

const BOOTSTRAP_URL = new URL("./worker-bootstrap.mjs", import.meta.url);

export interface WorkerPoolOptions {
  /**
   * Heap limits of every worker (default: this process's old-generation limit). Explicit limits
   * make a worker that runs out of memory end with ERR_WORKER_OUT_OF_MEMORY, failing only its
   * seed, instead of aborting the whole process.
   */
  readonly resourceLimits?: ResourceLimits;
  /**
   * Run the workers at the lowest scheduling priority (Linux; ignored elsewhere), so they use only
   * CPU the main thread leaves: for helpers of a main thread that works itself (exploration).
   */
  readonly lowPriority?: boolean;
  /**
   * Start one worker and add the others one at a time, each once tasks waited while the machine
   * had `minSpareCores` of idle CPU over at least `sampleMs` (docs/decisions.md D44). On a busy
   * machine another worker's start-up and messages cost the campaign more than it gains. Absent:
   * every worker starts at once. Which worker runs a seed never changes its result (D12).
   */
  readonly grow?: PoolGrowth;
}

export interface PoolGrowth {
  readonly minSpareCores: number;
  readonly sampleMs: number;
}

/** The growth `moonpool run` uses: a spare half core over half a second. */
export const DEFAULT_POOL_GROWTH: PoolGrowth = { minSpareCores: 0.5, sampleMs: 500 };

function idleCpuMs(): number {
  let total = 0;
  for (const cpu of cpus()) total += cpu.times.idle;
  return total;
}

export interface RunOptions {
  /**
   * The task fails as hung when no engine step of it starts for this long (wall clock; before its
   * first step at least the default limit: progress-watchdog.ts); null (the default) for no limit.
   */
  readonly hangTimeoutMs?: number | null;
  /** Tasks sharing a batch object can be cancelled together (`cancelQueued`). */
  readonly batch?: object;
  /**
   * Run in a fresh realm: a worker that ran no task before and imported no other simulation
   * module, retired after this task (seed isolation; what the task's module is: `prepare`).
   */
  readonly isolated?: boolean;
}

interface PendingTask {
  readonly message: PoolTaskMessage;
  readonly hangTimeoutMs: number | null;
  readonly batch: object | null;
  readonly isolated: boolean;
  readonly resolve: (outcome: TaskOutcome<unknown>) => void;
}

interface Slot {
  worker: Worker;
  /** The worker has loaded the engine; tasks (and their hang watchdogs) start only then. */
  ready: boolean;
  current: PendingTask | null;
  /** Where the worker's engines publish their steps (a SharedArrayBuffer given at spawn). */
  readonly progress: ProgressCells;
  watchdog: ProgressWatchdog | null;
  startedMs: number;
  /** The chaos the running root seed drew (reported if it then hangs or crashes). */
  chaos: SeedChaosRecord | null;
  /** The realm is as spawned: no task ran in it yet (only `preloaded` was imported). */
  fresh: boolean;
  /** The simulation module the worker imported ahead of any task, or null. */
  readonly preloaded: string | null;
  /** Runs an isolated task and is terminated when it ends; its successor is already spawned. */
  retiring: boolean;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: PendingTask[] = [];
  private readonly resourceLimits: ResourceLimits;
  private readonly lowPriority: boolean;
  private nextId = 1;
  private closed = false;
  /** The simulation module fresh workers import ahead of their first task (`prepare`). */
  private warmModule: string | null = null;
  /** Workers allowed to run tasks at once: `size`, or fewer while a growing pool has not grown. */
  private target: number;
  private readonly growth: PoolGrowth | null;
  private idleSampleMs = 0;
  private idleSampleAtMs = 0;
  /** Workers spawned so far, successors and replacements included. */
  spawned = 0;

  constructor(
    readonly size: number,
    options: WorkerPoolOptions = {},
  ) {
    if (!Number.isSafeInteger(size) || size < 1)
      throw new RangeError(`WorkerPool size must be a positive integer, got ${size}`);
    this.lowPriority = options.lowPriority ?? false;
    this.resourceLimits = options.resourceLimits ?? {
      maxOldGenerationSizeMb: Math.ceil(getHeapStatistics().heap_size_limit / 2 ** 20),
    };
    this.growth = options.grow ?? null;
    this.target = this.growth === null ? size : 1;
    for (let i = 0; i < this.target; i++) this.slots.push(this.spawn());
    this.idleSampleMs = this.growth === null ? 0 : idleCpuMs();
    this.idleSampleAtMs = performance.now();
  }

  /** Adds a worker when tasks wait for one and the machine had a spare core since the last sample. */
  private growIfSpare(): void {
    const growth = this.growth;
    if (growth === null || this.target >= this.size || this.closed || this.queue.length === 0) return;
    // Only when the workers allowed are all busy (an idle warm successor of isolation does not count).
    if (this.slots.filter((s) => s.current !== null).length < this.target) return;
    const nowMs = performance.now();
    const elapsedMs = nowMs - this.idleSampleAtMs;
    if (elapsedMs < growth.sampleMs) return;
    const idleMs = idleCpuMs();
    const spareCores = elapsedMs > 0 ? (idleMs - this.idleSampleMs) / elapsedMs : Infinity;
    this.idleSampleMs = idleMs;
    this.idleSampleAtMs = nowMs;
    if (spareCores < growth.minSpareCores) return;
    this.target++;
    this.slots.push(this.spawn());
  }

  /**
   * Fresh workers import `module` ahead of their first task from now on, so an isolated task
   * of that simulation starts at once; idle fresh workers that imported another module are
   * replaced (a fresh realm holds only its own simulation's module). Those that imported none
   * stay: they serve an isolated task as well, importing its module in the task.
   */
  prepare(module: string): void {
    if (this.closed || this.warmModule === module) return;
    this.warmModule = module;
    for (const slot of [...this.slots]) {
      const other = slot.preloaded !== null && slot.preloaded !== module;
      if (slot.fresh && slot.current === null && other) this.retire(slot, true);
    }
  }

  /** Queues a task. */
  run<K extends PoolTaskKind>(
    task: Extract<PoolTask, { kind: K }>,
    options: RunOptions = {},
  ): Promise<TaskOutcome<PoolTaskResults[K]>> {
    if (this.closed) return Promise.resolve({ kind: "cancelled" });
    return new Promise((resolve) => {
      const message = { ...task, id: this.nextId++ } as PoolTaskMessage;
      this.queue.push({
        message,
        hangTimeoutMs: options.hangTimeoutMs ?? null,
        batch: options.batch ?? null,
        isolated: options.isolated ?? false,
        resolve: resolve as (outcome: TaskOutcome<unknown>) => void,
      });
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

  /**
   * Gives up the batch's tasks: queued ones are cancelled, and a worker running one is terminated
   * and replaced (its result is no longer wanted, or it hangs), the task resolving as cancelled.
   */
  abandon(batch: object): void {
    this.cancelQueued(batch);
    for (const slot of this.slots) if (slot.current?.batch === batch) this.replace(slot, { kind: "cancelled" });
  }

  /** Cancels everything and terminates the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const task of this.queue.splice(0)) task.resolve({ kind: "cancelled" });
    await Promise.all(
      this.slots.splice(0).map(async (slot) => {
        slot.watchdog?.stop();
        slot.current?.resolve({ kind: "cancelled" });
        slot.current = null;
        detach(slot.worker);
        await slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    this.spawned++;
    const preloaded = this.warmModule;
    const progress = newProgressBuffer();
    const worker = new Worker(BOOTSTRAP_URL, {
      resourceLimits: this.resourceLimits,
      workerData: { lowPriority: this.lowPriority, preload: preloaded, progress },
    });
    const slot: Slot = {
      worker,
      ready: false,
      current: null,
      progress: progressCellsOf(progress),
      watchdog: null,
      startedMs: 0,
      chaos: null,
      fresh: true,
      preloaded,
      retiring: false,
    };
    worker.on("message", (reply: WorkerReply) => {
      if (reply.kind === "ready") {
        slot.ready = true;
        this.pump();
        return;
      }
      const task = slot.current;
      if (task === null || task.message.id !== reply.id) return;
      if (reply.kind === "chaos") {
        slot.chaos = reply.chaos;
        return;
      }
      this.finish(
        slot,
        reply.kind === "done"
          ? { kind: "done", outcome: reply.value }
          : { kind: "error", name: reply.name, message: reply.message, stack: reply.stack },
      );
      this.pump();
    });
    // An error outside any task's try/catch, running out of memory or `process.exit` ends the
    // thread: its task fails with the cause and the worker is replaced.
    const crashed = (cause: string): TaskOutcome<unknown> => ({
      kind: "crashed",
      cause,
      wallTimeMs: performance.now() - slot.startedMs,
      chaos: slot.chaos,
    });
    worker.on("error", (error) => {
      const code = (error as { code?: string }).code;
      this.replace(
        slot,
        crashed(
          code === "ERR_WORKER_OUT_OF_MEMORY"
            ? `the worker ran out of memory (${error.message})`
            : `${error.name}: ${error.message}`,
        ),
      );
    });
    worker.on("exit", (code) =>
      this.replace(slot, crashed(`the worker exited with code ${code} (process.exit in simulated code?)`)),
    );
    return slot;
  }

  private finish(slot: Slot, outcome: TaskOutcome<unknown>): void {
    slot.watchdog?.stop();
    slot.watchdog = null;
    const task = slot.current;
    slot.current = null;
    task?.resolve(outcome);
    // An isolated task's realm is used up: its successor was spawned when it started.
    if (slot.retiring) this.retire(slot, false);
  }

  /** Terminates a worker; `replace`: spawn a successor in its place (else it already has one). */
  private retire(slot: Slot, replace: boolean): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    detach(slot.worker);
    void slot.worker.terminate();
    if (replace) this.slots[index] = this.spawn();
    else this.slots.splice(index, 1);
  }

  private replace(slot: Slot, outcome: TaskOutcome<unknown>): void {
    if (this.closed) return;
    if (!this.slots.includes(slot)) return;
    const retiring = slot.retiring;
    slot.retiring = false;
    // A worker lost while importing its simulation ahead of time (process.exit at its top level):
    // workers stop preloading it, so the module loads in a task, whose failure is then reported.
    if (!slot.ready && slot.preloaded !== null && slot.preloaded === this.warmModule) this.warmModule = null;
    this.finish(slot, outcome);
    // A retiring worker's successor already runs: it is not replaced twice.
    this.retire(slot, !retiring);
    this.pump();
  }

  /** Workers started and without a task, less the tasks waiting: how many could start a task now. */
  get available(): number {
    let free = 0;
    for (const slot of this.slots) if (slot.ready && slot.current === null && !slot.retiring) free++;
    return Math.max(0, free - this.queue.length);
  }

  /** Whether every worker is idle and no task waits (tests use it to see the pool recovered). */
  get idle(): boolean {
    return this.queue.length === 0 && this.slots.every((slot) => slot.current === null);
  }

  private pump(): void {
    this.assign();
    // After assigning: growth is for tasks that still wait with every allowed worker busy.
    this.growIfSpare();
  }

  private assign(): void {
    for (const slot of [...this.slots]) {
      if (this.queue.length === 0) return;
      // Spare realms wait warm: never more tasks at once than the pool's size (or growth's target).
      if (this.slots.filter((s) => s.current !== null).length >= this.target) return;
      if (!slot.ready || slot.current !== null) continue;
      // Tasks start in queue order: an isolated one waits for a fresh realm of its module.
      const head = this.queue[0]!;
      if (head.isolated && !(slot.fresh && isRealmFor(slot, head.message))) {
        // An idle used realm cannot serve it: a fresh one takes its place, unless one is coming.
        if (!this.slots.some((other) => other.fresh && other.current === null && isRealmFor(other, head.message)))
          this.retire(slot, true);
        continue;
      }
      const task = this.queue.shift()!;
      slot.current = task;
      slot.fresh = false;
      if (task.isolated) {
        slot.retiring = true;
        this.slots.push(this.spawn());
      }
      slot.startedMs = performance.now();
      slot.chaos = null;
      if (task.hangTimeoutMs !== null) {
        slot.watchdog = watchTask(slot.progress, task.hangTimeoutMs, (hang) =>
          this.replace(slot, {
            kind: "hung",
            hang,
            wallTimeMs: performance.now() - slot.startedMs,
            chaos: slot.chaos,
          }),
        );
      }
      slot.worker.postMessage(task.message);
    }
  }
}

/** Whether the slot's preloaded module (if any) is the task's simulation module. */
function isRealmFor(slot: Slot, message: PoolTaskMessage): boolean {
  return slot.preloaded === null || ("source" in message && message.source.module === slot.preloaded);
}

/**
 * Stops listening to a worker being discarded. A terminated or dying worker can still emit
 * 'error' (an out-of-memory worker does so after 'exit' handling began): without a listener
 * that would be an unhandled 'error' event and bring the whole process down.
 */
function detach(worker: Worker): void {
  worker.removeAllListeners();
  worker.on("error", () => {});
}
