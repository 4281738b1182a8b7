/**
 * The engine's event queue. Future events wait in a binary min-heap ordered by (timeUs, seq);
 * the events of the current instant form a ready set, and each pop takes a uniformly random one
 * of them (a draw from the `schedule` stream, none when only one is ready) — like a scheduler
 * picking a random ready task. Every seed thus explores one order of every race, and an event
 * can never be starved by others that keep scheduling zero-delay work: each pop is a fair draw
 * among everything ready. (A random tiebreak fixed at scheduling time starved exactly that way:
 * an event with a high tiebreak waited while a yield loop kept drawing lower ones.)
 *
 * Per-connection FIFO does not rely on the queue: the network gives successive deliveries on one
 * direction strictly increasing times.
 */

/** Applies an event: two arguments so callers need no wrapper object per event. */
export type EventCallback = (arg: any, arg2: any) => void;

export interface EventOwner {
  readonly actor: string;
  /** False once the owner crashed: its events are no-ops. */
  readonly alive: boolean;
  /** Consecutive yield events of this owner (the engine's busy-loop count); absent: not counted. */
  yieldStreak?: number;
}

export class SimEvent {
  constructor(
    readonly timeUs: number,
    readonly seq: number,
    public callback: EventCallback,
    public arg: unknown,
    /** Small integer tag mixed into the trace hash (what kind of event this is). */
    readonly tag: number,
    /** Whose code the event wakes; becomes the engine's current actor while it is applied. */
    readonly owner: EventOwner | null,
    public arg2: unknown,
  ) {}

  /**
   * The event wakes a zero-length wait (`sleep(0)`, a yield): its owner asked for no time to
   * pass, whatever delay chaos added, so it counts towards the owner's busy-loop streak.
   */
  yieldOnly = false;
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.timeUs !== b.timeUs ? a.timeUs < b.timeUs : a.seq < b.seq;
}

export class EventQueue {
  private heap: SimEvent[] = [];
  /** Events due at `readyTimeUs`, in no meaningful order: pops pick among them at random. */
  private ready: SimEvent[] = [];
  private readyTimeUs = -1;

  /** `pick(n)` returns a uniform index in [0, n) (the engine's `schedule` stream). */
  constructor(private readonly pick: (n: number) => number) {}

  get size(): number {
    return this.heap.length + this.ready.length;
  }

  /** Time of the next event, or undefined when the queue is empty. */
  peekTimeUs(): number | undefined {
    if (this.ready.length > 0) return this.readyTimeUs;
    return this.heap[0]?.timeUs;
  }

  push(event: SimEvent): void {
    if (this.ready.length > 0 && event.timeUs === this.readyTimeUs) {
      this.ready.push(event);
      return;
    }
    this.heapPush(event);
  }

  /** Removes and returns a uniformly random event among those due soonest. */
  pop(): SimEvent | undefined {
    if (this.ready.length === 0) {
      const first = this.heapPop();
      if (first === undefined) return undefined;
      // The common case: nothing else due at that instant, so there is nothing to choose from.
      if (this.heap.length === 0 || this.heap[0]!.timeUs !== first.timeUs) return first;
      this.readyTimeUs = first.timeUs;
      this.ready.push(first);
      while (this.heap.length > 0 && this.heap[0]!.timeUs === first.timeUs) this.ready.push(this.heapPop()!);
    }
    const ready = this.ready;
    const last = ready.length - 1;
    const index = last === 0 ? 0 : this.pick(ready.length);
    const event = ready[index]!;
    ready[index] = ready[last]!;
    ready.pop();
    return event;
  }

  clear(): void {
    this.heap = [];
    this.ready = [];
  }

  /**
   * Takes `event` out of the queue (false if it is not in it): as if it had never been scheduled,
   * since pops follow the (time, seq) order whatever the heap's shape. Linear: for rare events
   * (a connect timeout whose connect went through).
   */
  remove(event: SimEvent): boolean {
    const r = this.ready.indexOf(event);
    if (r >= 0) {
      this.ready.splice(r, 1);
      return true;
    }
    const heap = this.heap;
    const i = heap.indexOf(event);
    if (i < 0) return false;
    const last = heap.pop()!;
    if (i < heap.length) {
      heap[i] = last;
      this.siftDown(i);
      this.siftUp(i);
    }
    return true;
  }

  /** Drops the events of dead owners (they would be no-ops) and restores the heap order. */
  purgeDead(): number {
    const countBefore = this.size;
    const alive = (e: SimEvent) => e.owner === null || e.owner.alive;
    this.ready = this.ready.filter(alive);
    // A sorted array is a valid heap.
    this.heap = this.heap.filter(alive).sort((a, b) => (before(a, b) ? -1 : 1));
    return countBefore - this.size;
  }

  private heapPush(event: SimEvent): void {
    this.heap.push(event);
    this.siftUp(this.heap.length - 1);
  }

  private siftUp(start: number): void {
    const heap = this.heap;
    const event = heap[start]!;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(event, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = event;
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const n = heap.length;
    const event = heap[start]!;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(heap[r]!, heap[l]!) ? r : l;
      if (!before(heap[c]!, event)) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = event;
  }

  private heapPop(): SimEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (top === undefined) return undefined;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
    return top;
  }
}
