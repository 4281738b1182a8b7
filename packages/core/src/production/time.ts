/** `TimeProvider` on the real clock: `setTimeout` timers and a `performance.now()` origin. */
import { performance } from "node:perf_hooks";
import { TimeoutError } from "../errors.ts";
import type { TimeProvider } from "../providers.ts";
import { never, type Halt } from "./halt.ts";

/** Node's setTimeout fires at once above this delay, so longer sleeps are chained. */
const MAX_TIMER_MS = 2_147_483_647;

export interface ProductionTimeOptions {
  /**
   * The `performance.now()` reading that `now()` counts from. Defaults to the moment of
   * construction; providers that must agree (a process and its tasks) share one origin.
   */
  readonly origin?: number;
  /** The kill switch of the task this provider belongs to (set by `ProductionTask`). */
  readonly halt?: Halt;
}

function checkDelay(what: string, ms: number): void {
  if (typeof ms !== "number" || !(ms >= 0) || !Number.isFinite(ms)) {
    throw new RangeError(`${what} needs a finite number of milliseconds >= 0, got ${String(ms)}`);
  }
}

/** Calls `fire` after `ms`, chaining timers for delays Node cannot schedule in one; returns `cancel`. */
function startTimer(ms: number, fire: () => void): () => void {
  let handle: ReturnType<typeof setTimeout>;
  const deadline = performance.now() + ms;
  const arm = (delay: number): void => {
    handle = setTimeout(() => {
      const left = deadline - performance.now();
      if (left > MAX_TIMER_MS) arm(MAX_TIMER_MS);
      else if (delay === MAX_TIMER_MS && left > 0) arm(left);
      else fire();
    }, delay);
  };
  arm(Math.min(ms, MAX_TIMER_MS));
  return () => clearTimeout(handle);
}

export class ProductionTime implements TimeProvider {
  /** The `performance.now()` reading that `now()` counts from. */
  readonly origin: number;
  private readonly halt: Halt | undefined;

  constructor(options: ProductionTimeOptions = {}) {
    this.origin = options.origin ?? performance.now();
    this.halt = options.halt;
  }

  /** A provider on the same clock whose operations stop with `halt` (for a task scope). */
  scoped(halt: Halt): ProductionTime {
    return new ProductionTime({ origin: this.origin, halt });
  }

  sleep(delayMs: number): Promise<void> {
    checkDelay("sleep(delayMs)", delayMs);
    const halt = this.halt;
    if (halt?.halted) return never();
    return new Promise<void>((resolve) => {
      const offHalt = halt?.onHalt(() => cancel());
      const cancel = startTimer(delayMs, () => {
        offHalt?.();
        resolve();
      });
    });
  }

  /** Milliseconds since this provider (or the provider it was scoped from) was created. */
  now(): number {
    return performance.now() - this.origin;
  }

  /** The same reading as `now()`: a real machine has one clock. */
  timer(): number {
    return this.now();
  }

  timeout<T>(timeoutMs: number, promise: Promise<T>): Promise<T> {
    checkDelay("timeout(timeoutMs)", timeoutMs);
    const halt = this.halt;
    if (halt?.halted) return never();
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = (): boolean => {
        if (done) return false;
        done = true;
        cancel();
        offHalt?.();
        return true;
      };
      const offHalt = halt?.onHalt(() => finish());
      const cancel = startTimer(timeoutMs, () => {
        if (finish()) reject(new TimeoutError(timeoutMs));
      });
      promise.then(
        (value) => {
          if (finish()) resolve(value);
        },
        (error: unknown) => {
          if (finish()) reject(error);
        },
      );
    });
  }
}
