/**
 * The engine's event queue: a binary min-heap ordered by (timeUs, tiebreak, seq).
 *
 * `tiebreak` is drawn from the `schedule` stream when the event is scheduled, so events due at the
 * same instant run in a seeded order (each seed explores one order of every race); `seq` makes
 * the order total.
 */

export type EventCallback = (arg: any) => void;

export interface EventOwner {
  readonly actor: string;
  /** False once the owner crashed: its events are no-ops. */
  readonly alive: boolean;
}

export class SimEvent {
  constructor(
    readonly timeUs: number,
    readonly tiebreak: number,
    readonly seq: number,
    public callback: EventCallback,
    public arg: unknown,
    /** Small integer tag mixed into the trace hash (what kind of event this is). */
    readonly tag: number,
    /** Whose code the event wakes; becomes the engine's current actor while it is applied. */
    readonly owner: EventOwner | null,
  ) {}
}

function before(a: SimEvent, b: SimEvent): boolean {
  if (a.timeUs !== b.timeUs) return a.timeUs < b.timeUs;
  if (a.tiebreak !== b.tiebreak) return a.tiebreak < b.tiebreak;
  return a.seq < b.seq;
}

export class EventQueue {
  private heap: SimEvent[] = [];

  get size(): number {
    return this.heap.length;
  }

  peek(): SimEvent | undefined {
    return this.heap[0];
  }

  push(event: SimEvent): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(event, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = event;
  }

  pop(): SimEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (top === undefined) return undefined;
    const last = heap.pop()!;
    const n = heap.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && before(heap[r]!, heap[l]!) ? r : l;
        if (!before(heap[c]!, last)) break;
        heap[i] = heap[c]!;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }

  clear(): void {
    this.heap = [];
  }

  /** Drops the events of dead owners (they would be no-ops) and restores the heap order. */
  purgeDead(): number {
    const countBefore = this.heap.length;
    const kept = this.heap.filter((e) => e.owner === null || e.owner.alive);
    // A sorted array is a valid heap.
    kept.sort((a, b) => (before(a, b) ? -1 : 1));
    this.heap = kept;
    return countBefore - kept.length;
  }
}
