/**
 * Virtual `setTimeout`, `setInterval` and `setImmediate` (global and `node:timers`): engine events
 * owned by the calling process, so they fire on simulated time, count in the trace hash and never
 * fire once their process crashed. The objects behave like Node's `Timeout` and `Immediate`.
 */
import { CLEAR_VIRTUAL_TIMER } from "../../engine/escape-guard.ts";
import type { VirtualProcess } from "./virtual-process.ts";

type Callback = (...args: any[]) => unknown;

/** Node's bounds: a delay outside 1 ..= 2^31 - 1 ms (or not a number) becomes 1 ms. */
const TIMEOUT_MAX_MS = 2 ** 31 - 1;

export function normalizeDelayMs(delay: unknown): number {
  const ms = Number(delay);
  return ms >= 1 && ms <= TIMEOUT_MAX_MS ? ms : 1;
}

export function checkCallback(callback: unknown): asserts callback is Callback {
  if (typeof callback !== "function") {
    const error = new TypeError(`The "callback" argument must be of type function. Received ${typeof callback}`);
    throw Object.assign(error, { code: "ERR_INVALID_ARG_TYPE" });
  }
}

let nextTimerId = 1;

/** Numeric ids (`+timeout`) of the live virtual timers, for `clearTimeout(id)`. */
export type TimerIds = Map<number, VirtualTimeout>;

function fireTimeout(timer: VirtualTimeout, generation: number): void {
  timer.fire(generation);
}

export class VirtualTimeout {
  readonly id = nextTimerId++;
  /** Bumped by every (re)arm and clear: a queued event of an older generation is stale. */
  private generation = 0;
  private refed = true;
  private armed = false;
  private cleared = false;

  constructor(
    private readonly process: VirtualProcess,
    private readonly ids: TimerIds,
    private readonly callback: Callback,
    private readonly args: readonly unknown[],
    private readonly delayMs: number,
    private readonly repeat: boolean,
  ) {
    this.arm();
  }

  private arm(): void {
    this.armed = true;
    this.ids.set(this.id, this);
    this.process.schedule(this.delayMs, fireTimeout, this, ++this.generation);
  }

  fire(generation: number): void {
    if (generation !== this.generation || !this.armed || !this.process.alive) return;
    if (!this.repeat) this.disarm();
    try {
      this.callback.apply(this, this.args as unknown[]);
    } catch (error) {
      this.process.uncaught(error, "a timer callback");
    }
    // An interval starts its next period once the callback returned, unless it cleared itself.
    if (this.repeat && this.armed && generation === this.generation) this.arm();
  }

  private disarm(): void {
    this.armed = false;
    this.generation++;
    this.ids.delete(this.id);
  }

  /** Restarts the countdown from now (re-arming a timeout that already fired, as Node does). */
  refresh(): this {
    if (!this.cleared) this.arm();
    return this;
  }

  ref(): this {
    this.refed = true;
    return this;
  }

  /** Kept for the API: a simulated process ends when its code returns, not when its loop empties. */
  unref(): this {
    this.refed = false;
    return this;
  }

  hasRef(): boolean {
    return this.refed;
  }

  close(): this {
    this.cleared = true;
    if (this.armed) this.disarm();
    return this;
  }

  [CLEAR_VIRTUAL_TIMER](): void {
    this.close();
  }

  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

function fireImmediate(immediate: VirtualImmediate): void {
  immediate.fire();
}

export class VirtualImmediate {
  private refed = true;
  private pending = true;

  constructor(
    private readonly process: VirtualProcess,
    private readonly callback: Callback,
    private readonly args: readonly unknown[],
  ) {
    process.schedule(0, fireImmediate, this, undefined);
  }

  fire(): void {
    if (!this.pending || !this.process.alive) return;
    this.pending = false;
    try {
      this.callback.apply(this, this.args as unknown[]);
    } catch (error) {
      this.process.uncaught(error, "a timer callback");
    }
  }

  ref(): this {
    this.refed = true;
    return this;
  }

  unref(): this {
    this.refed = false;
    return this;
  }

  hasRef(): boolean {
    return this.refed;
  }

  [CLEAR_VIRTUAL_TIMER](): void {
    this.pending = false;
  }
}

for (const Timer of [VirtualTimeout, VirtualImmediate]) {
  const dispose = (Symbol as { dispose?: symbol }).dispose;
  if (dispose !== undefined) {
    Object.defineProperty(Timer.prototype, dispose, {
      value(this: { [CLEAR_VIRTUAL_TIMER](): void }) {
        this[CLEAR_VIRTUAL_TIMER]();
      },
      configurable: true,
      writable: true,
    });
  }
}

export function virtualSetTimeout(
  process: VirtualProcess,
  ids: TimerIds,
  args: any[],
  repeat: boolean,
): VirtualTimeout {
  const [callback, delay, ...rest] = args;
  checkCallback(callback);
  return new VirtualTimeout(process, ids, callback, rest, normalizeDelayMs(delay), repeat);
}

export function virtualSetImmediate(process: VirtualProcess, args: any[]): VirtualImmediate {
  const [callback, ...rest] = args;
  checkCallback(callback);
  return new VirtualImmediate(process, callback, rest);
}
