/**
 * Ownership of pending work. Every provider operation is a `PendingOp` in the pending set of the
 * incarnation (one boot of a process, or one workload) that started it, optionally tagged with
 * the spawned task inside it.
 *
 * - Crash (`kill`): the pending set is dropped and its resolvers are released; nothing settles,
 *   no `finally` runs, and the suspended async frames become garbage (docs/decisions.md D5).
 * - Graceful shutdown (`beginShutdown`): the `shutdown` signal aborts and every abortable pending
 *   operation rejects with an `AbortError`, waking the process so it can flush and exit.
 * - Task abort: only the operations of that task are dropped.
 *
 * One engine-side Set per incarnation, not one AbortSignal listener per operation: the latter
 * halved throughput (docs/decisions.md D6).
 */

/**
 * A promise that never settles: what a dead incarnation's new operations return. A fresh one per
 * call: a shared module-level promise would collect the reactions of every `await` on it, and
 * with them the suspended frames, worlds and traces of every seed that ever ran in the process.
 */
export function never<T>(): Promise<T> {
  return new Promise<T>(noop);
}

export class TaskState {
  alive = true;
  constructor(
    readonly name: string,
    readonly incarnation: Incarnation,
  ) {}
}

export class PendingOp<T = any> {
  resolve: (value: T) => void = noop;
  reject: (error: unknown) => void = noop;
  /** The caller's promise; replaced by its owner's never-settling one once dropped, so queued events do not retain it. */
  promise: Promise<T>;
  /** Links of the owner's intrusive list of pending operations (null at the ends). */
  prev: PendingOp | null = null;
  next: PendingOp | null = null;
  /** Whether the operation is still in its owner's list (neither settled nor dropped). */
  linked = false;

  constructor(
    readonly owner: Incarnation,
    readonly task: TaskState | null,
    /** Rejected with AbortError on graceful shutdown. Storage flushes are not abortable. */
    readonly abortable: boolean,
    /**
     * What the operation waits for, for deadlock messages: a constant (`"read on"`) plus a detail
     * (`"10.0.0.1:40001"`) joined only when a message needs it, so the hot path allocates no string.
     */
    readonly what: string,
    readonly detail: string | number,
  ) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  describe(): string {
    const text = `${this.what} ${this.detail}`;
    return this.task !== null ? `${text} (task '${this.task.name}')` : text;
  }
}

function dropResolvers(op: PendingOp): void {
  // Releasing the closures is what lets GC reclaim the suspended frames even while an event
  // for this operation still sits in the queue.
  op.resolve = noop;
  op.reject = noop;
  op.promise = op.owner.neverSettles();
}

function noop(): void {}

/**
 * A shutdown reason made at its first read. A class, not an object literal with a getter: such a literal gets a
 * hidden class of its own holding the getter, which keeps its seed reachable for young-generation collections
 * until the next full one.
 */
class LazyReason {
  constructor(private readonly make: () => unknown) {}

  get reason(): unknown {
    return this.make();
  }
}

let nextIncarnationId = 1;

export class Incarnation {
  readonly id = nextIncarnationId++;
  alive = true;
  /** Consecutive yield events (see EventOwner.yieldStreak). */
  yieldStreak = 0;
  /** Set when graceful shutdown began (the signal is aborted). */
  shuttingDown = false;
  /** The host Node's modules use for this incarnation's code (`world/node-net`), or null. */
  nodeHost: unknown = null;
  /**
   * Pending operations as an intrusive doubly linked list: add and remove are a few pointer
   * writes with no hashing, the cost every provider operation pays twice.
   */
  private head: PendingOp | null = null;
  private count = 0;
  /**
   * Created at the first read of `shutdown` (most incarnations never read it, and an
   * AbortController is a large part of a short seed's fixed cost).
   */
  private controller: AbortController | null = null;
  /** The shutdown reason while nobody holds the signal (null: not shut down). */
  private pendingReason: { readonly reason: unknown } | null = null;

  constructor(
    /** Who this is in traces and messages, e.g. `node-1@10.0.1.1` or `client@10.0.0.1`. */
    readonly actor: string,
  ) {}

  private never: Promise<never> | null = null;

  /** A never-settling promise that lives (with whatever awaits it) only as long as this incarnation. */
  neverSettles(): Promise<never> {
    this.never ??= new Promise<never>(noop);
    return this.never;
  }

  get shutdown(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.pendingReason !== null) this.controller.abort(this.pendingReason.reason);
    }
    return this.controller.signal;
  }

  private abortSignal(reason: unknown): void {
    if (this.controller === null) this.pendingReason ??= { reason };
    else if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /**
   * Starts an operation owned by this incarnation (and `task`, if any); callers return
   * `op.promise`. Returns null when the owner is dead: callers then return `never()`.
   */
  begin<T>(
    task: TaskState | null,
    abortable: boolean,
    what: string,
    detail: string | number = "",
  ): PendingOp<T> | null {
    if (!this.alive || (task !== null && !task.alive)) return null;
    const op = new PendingOp<T>(this, task, abortable, what, detail);
    this.link(op);
    return op;
  }

  /** Settles `op` with `value` if it is still pending; returns whether it was. */
  static resolve<T>(op: PendingOp<T>, value: T): boolean {
    if (!op.owner.unlink(op)) return false;
    op.resolve(value);
    return true;
  }

  static reject(op: PendingOp, error: unknown): boolean {
    if (!op.owner.unlink(op)) return false;
    op.reject(error);
    return true;
  }

  /** Forgets `op` without settling it (a cancelled timer). */
  static cancel(op: PendingOp): void {
    if (op.owner.unlink(op)) dropResolvers(op);
  }

  /** Graceful shutdown: abort the signal, then reject every abortable pending operation. */
  beginShutdown(reason: unknown): void {
    if (!this.alive || this.shuttingDown) return;
    this.shuttingDown = true;
    this.abortSignal(reason);
    for (const op of this.snapshotPending()) {
      if (op.abortable && this.unlink(op)) op.reject(reason);
    }
  }

  /** Signals shutdown without waking anyone (workloads see `ctx.shutdown` abort). */
  signalShutdown(reason: unknown): void {
    this.abortSignal(reason);
  }

  /**
   * `signalShutdown` with a reason made only when someone holds or later reads the signal: most
   * incarnations never do, and an error object captures a stack.
   */
  signalShutdownLazily(makeReason: () => unknown): void {
    if (this.controller === null) {
      this.pendingReason ??= new LazyReason(makeReason);
    } else if (!this.controller.signal.aborted) this.controller.abort(makeReason());
  }

  /** Crash: nothing pending ever settles and later operations never settle either. */
  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    for (const op of this.snapshotPending()) {
      this.unlink(op);
      dropResolvers(op);
    }
  }

  /** Stops one spawned task: its pending operations are dropped. */
  abortTask(task: TaskState): void {
    if (!task.alive) return;
    task.alive = false;
    for (const op of this.snapshotPending()) {
      if (op.task === task) {
        this.unlink(op);
        dropResolvers(op);
      }
    }
  }

  /** Descriptions of what this incarnation is waiting on (for deadlock reports). */
  waitingOn(limit = 5): string[] {
    const out: string[] = [];
    for (const op of this.snapshotPending()) {
      if (out.length >= limit) break;
      out.push(op.describe());
    }
    return out;
  }

  /** Operations started and neither settled nor dropped. */
  get pendingCount(): number {
    return this.count;
  }

  /** Whether `op` (of this incarnation) is still pending. */
  isPending(op: PendingOp): boolean {
    return op.linked && op.owner === this;
  }

  /** The pending operations, oldest first (a copy: safe to settle while iterating). */
  snapshotPending(): PendingOp[] {
    const out: PendingOp[] = [];
    for (let op = this.head; op !== null; op = op.next) out.push(op);
    return out.reverse();
  }

  private link(op: PendingOp): void {
    op.next = this.head;
    if (this.head !== null) this.head.prev = op;
    this.head = op;
    op.linked = true;
    this.count++;
  }

  /** Removes `op` from the list; false when it was no longer pending. */
  unlink(op: PendingOp): boolean {
    if (!op.linked) return false;
    op.linked = false;
    if (op.prev !== null) op.prev.next = op.next;
    else this.head = op.next;
    if (op.next !== null) op.next.prev = op.prev;
    op.prev = null;
    op.next = null;
    this.count--;
    return true;
  }
}
