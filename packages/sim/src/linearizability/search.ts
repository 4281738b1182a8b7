/**
 * Wing & Gong's search for a linearization of one history part, with Lowe's memoisation: a cache
 * of (set of linearized operations, model state) pairs already explored, so no configuration is
 * searched twice. The search is resumable (`run(maxSteps)`), so the checker can interleave
 * independent parts and stop on the first illegal one without waiting for a hard one.
 */
import type { Operation } from "./history.ts";
import type { SearchModel } from "./model.ts";
import { wallNowMs } from "../engine/natives.ts";

export type PartStatus = "pending" | "linearizable" | "illegal";

/** The deepest point the search reached: a linearized prefix, and the operation it could not place. */
export interface LongestLinearization {
  /** Operation ids in linearization order. */
  readonly order: readonly number[];
  /** The state after the prefix, described by the model. */
  readonly stateAfter: string;
  /** The operation whose completion the search reached without being able to place it. */
  readonly stuckOp: number;
}

// Entries of the event list: calls and returns in history order. Crashed operations have a call
// and no return: nothing forces them to be placed, so "never took effect" is always an option.
interface Entry {
  readonly op: number;
  readonly isCall: boolean;
  /** The return entry of a call (`-1` for a crashed call). */
  match: number;
  prev: number;
  next: number;
}

interface Frame {
  readonly entry: number;
  readonly state: unknown;
  readonly key: string | number;
}

interface CacheEntry {
  readonly bits: Uint32Array;
  readonly key: string | number;
  readonly state: unknown;
}

const HEAD = 0;
/** How often a search with a deadline reads the clock (a power of two): a read costs about a step. */
const DEADLINE_CHECK_STEPS = 1024;

/** A per-operation 32-bit mix: the linearized set's hash is the XOR over its members. */
function opHash(id: number): number {
  let h = Math.imul(id + 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

function sameBits(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class PartSearch<I, O> {
  status: PartStatus = "pending";
  steps = 0;
  longest: LongestLinearization | undefined;

  private readonly entries: Entry[] = [];
  private readonly bits: Uint32Array;
  private bitsHash = 0;
  private readonly cache = new Map<number, CacheEntry[]>();
  private readonly stack: Frame[] = [];
  private state: unknown;
  private key: string | number;
  private cursor: number;
  private remainingReturns = 0;

  constructor(
    private readonly model: SearchModel<I, O>,
    readonly ops: readonly Operation<I, O>[],
  ) {
    this.bits = new Uint32Array(Math.ceil(ops.length / 32) || 1);
    this.state = model.init();
    this.key = model.key(this.state);
    // Index 0 is the list head; events follow in history order, a call before a return at the
    // same position (they are never equal in a well-formed history).
    const events: { pos: number; op: number; isCall: boolean }[] = [];
    for (const op of ops) {
      events.push({ pos: op.callIndex, op: op.id, isCall: true });
      if (!op.crashed) events.push({ pos: op.returnIndex, op: op.id, isCall: false });
    }
    events.sort((a, b) => a.pos - b.pos || (a.isCall === b.isCall ? 0 : a.isCall ? -1 : 1));
    this.entries.push({ op: -1, isCall: false, match: -1, prev: -1, next: events.length > 0 ? 1 : -1 });
    const callEntry = new Map<number, number>();
    events.forEach((e, k) => {
      const at = k + 1;
      this.entries.push({
        op: e.op,
        isCall: e.isCall,
        match: -1,
        prev: at - 1,
        next: k + 1 < events.length ? at + 1 : -1,
      });
      if (e.isCall) callEntry.set(e.op, at);
      else {
        (this.entries[callEntry.get(e.op)!] as Entry).match = at;
        this.remainingReturns++;
      }
    });
    this.cursor = this.entries[HEAD]!.next;
    if (this.remainingReturns === 0) this.status = "linearizable";
  }

  /**
   * Runs at most `maxSteps` search steps, and stops early once the wall clock reaches
   * `deadlineMs` (read every DEADLINE_CHECK_STEPS steps); returns the status afterwards.
   */
  run(maxSteps: number, deadlineMs = Infinity): PartStatus {
    if (this.status !== "pending") return this.status;
    const { entries, model, stack } = this;
    let budget = maxSteps;
    while (budget-- > 0) {
      if (deadlineMs !== Infinity && (this.steps & (DEADLINE_CHECK_STEPS - 1)) === 0 && wallNowMs() >= deadlineMs)
        break;
      this.steps++;
      const entry = entries[this.cursor]!;
      if (entry.isCall) {
        const op = this.ops[entry.op]!;
        const result = model.step(this.state, op.input, op.output);
        // The state's key is computed once per step: the cache, the crashed-op test and the
        // stack all use it.
        const key = result.ok ? model.key(result.state) : this.key;
        // A crashed operation need not take effect; when it would leave the state as it is,
        // placing it explains nothing more than leaving it out, so it is not tried.
        // Equal keys are confirmed: a model's numeric hash may collide.
        const useless = result.ok && entry.match === -1 && key === this.key && model.equal(result.state, this.state);
        if (result.ok && !useless && this.remember(entry.op, result.state, key)) {
          stack.push({ entry: this.cursor, state: this.state, key: this.key });
          this.state = result.state;
          this.key = key;
          this.lift(this.cursor);
          if (entry.match !== -1 && --this.remainingReturns === 0) return (this.status = "linearizable");
          this.cursor = entries[HEAD]!.next;
        } else {
          this.cursor = entry.next;
        }
        continue;
      }
      // A return: its operation must have been linearized by now, so this prefix is a dead end.
      if (this.longest === undefined || stack.length > this.longest.order.length) {
        this.longest = {
          order: stack.map((f) => entries[f.entry]!.op),
          stateAfter: model.describeState(this.state),
          stuckOp: entry.op,
        };
      }
      const frame = stack.pop();
      if (frame === undefined) return (this.status = "illegal");
      const call = entries[frame.entry]!;
      this.unlift(frame.entry);
      this.toggle(call.op);
      if (call.match !== -1) this.remainingReturns++;
      this.state = frame.state;
      this.key = frame.key;
      this.cursor = call.next;
    }
    return this.status;
  }

  /** Adds `op` to the linearized set and records (set, state); false when already explored. */
  private remember(op: number, state: unknown, key: string | number): boolean {
    this.toggle(op);
    const bucketKey = (this.bitsHash ^ (typeof key === "number" ? key : stringHash(key))) | 0;
    const bucket = this.cache.get(bucketKey);
    if (bucket !== undefined) {
      for (const c of bucket) {
        if (c.key === key && sameBits(c.bits, this.bits) && this.model.equal(c.state, state)) {
          this.toggle(op);
          return false;
        }
      }
      bucket.push({ bits: this.bits.slice(), key, state });
    } else {
      this.cache.set(bucketKey, [{ bits: this.bits.slice(), key, state }]);
    }
    return true;
  }

  private toggle(op: number): void {
    this.bits[op >>> 5]! ^= 1 << (op & 31);
    this.bitsHash ^= opHash(op);
  }

  // Dancing links: a lifted call (and its return) leaves the list; unlift restores it exactly.
  private lift(at: number): void {
    const e = this.entries;
    const call = e[at]!;
    e[call.prev]!.next = call.next;
    if (call.next !== -1) e[call.next]!.prev = call.prev;
    if (call.match !== -1) {
      const ret = e[call.match]!;
      e[ret.prev]!.next = ret.next;
      if (ret.next !== -1) e[ret.next]!.prev = ret.prev;
    }
  }

  private unlift(at: number): void {
    const e = this.entries;
    const call = e[at]!;
    if (call.match !== -1) {
      const ret = e[call.match]!;
      e[ret.prev]!.next = call.match;
      if (ret.next !== -1) e[ret.next]!.prev = call.match;
    }
    e[call.prev]!.next = at;
    if (call.next !== -1) e[call.next]!.prev = at;
  }
}

function stringHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}
