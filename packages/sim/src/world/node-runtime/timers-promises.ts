/**
 * Virtual `node:timers/promises` (`setTimeout`, `setImmediate`, `setInterval`, `scheduler`) and
 * `AbortSignal.timeout`, built on the virtual timers so they share their ownership and ordering.
 */
import { CLEAR_VIRTUAL_TIMER } from "../../engine/escape-guard.ts";
import type { VirtualProcess } from "./virtual-process.ts";
import { normalizeDelayMs, VirtualImmediate, VirtualTimeout, type TimerIds } from "./timers.ts";

/** Node's `AbortError` (code `ABORT_ERR`), what its promise timers reject with on abort. */
export class AbortError extends Error {
  readonly code = "ABORT_ERR";
  constructor(message = "The operation was aborted", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AbortError";
  }
}

interface TimerOptions {
  readonly signal?: AbortSignal;
  readonly ref?: boolean;
}

function timerOptions(options: unknown): TimerOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object") {
    throw Object.assign(new TypeError(`The "options" argument must be of type object. Received ${String(options)}`), {
      code: "ERR_INVALID_ARG_TYPE",
    });
  }
  const { signal } = options as TimerOptions;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw Object.assign(new TypeError(`The "options.signal" property must be an instance of AbortSignal`), {
      code: "ERR_INVALID_ARG_TYPE",
    });
  }
  return options as TimerOptions;
}

/** A promise settled by one virtual timer, rejected with an AbortError when `signal` aborts first. */
function timerPromise<T>(
  options: TimerOptions,
  value: T,
  start: (resolve: () => void) => { close(): void },
): Promise<T> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new AbortError(undefined, { cause: signal.reason }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      timer.close();
      reject(new AbortError(undefined, { cause: signal!.reason }));
    };
    const timer = start(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(value);
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function promiseTimeout(process: VirtualProcess, ids: TimerIds, args: any[]): Promise<unknown> {
  const [delay, value, options] = args;
  const checked = timerOptions(options);
  return timerPromise(checked, value, (resolve) => {
    const timer = new VirtualTimeout(process, ids, resolve, [], normalizeDelayMs(delay), false);
    if (checked.ref === false) timer.unref();
    return timer;
  });
}

export function promiseImmediate(process: VirtualProcess, args: any[]): Promise<unknown> {
  const [value, options] = args;
  const checked = timerOptions(options);
  return timerPromise(checked, value, (resolve) => {
    const immediate = new VirtualImmediate(process, resolve, []);
    return { close: () => immediate[CLEAR_VIRTUAL_TIMER]() };
  });
}

/** `timers/promises.setInterval`: an async iterator yielding `value` once per period, like Node's. */
export async function* promiseInterval(process: VirtualProcess, ids: TimerIds, args: any[]): AsyncGenerator<unknown> {
  const [delay, value, options] = args;
  const { signal, ref } = timerOptions(options);
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
  let notYielded = 0;
  let wake: (() => void) | undefined;
  const interval = new VirtualTimeout(
    process,
    ids,
    () => {
      notYielded++;
      wake?.();
      wake = undefined;
    },
    [],
    normalizeDelayMs(delay),
    true,
  );
  if (ref === false) interval.unref();
  const onAbort = (): void => {
    interval.close();
    wake?.();
    wake = undefined;
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (!signal?.aborted) {
      if (notYielded === 0) await new Promise<void>((resolve) => (wake = resolve));
      for (; notYielded > 0; notYielded--) yield value;
    }
    throw new AbortError(undefined, { cause: signal?.reason });
  } finally {
    interval.close();
    signal?.removeEventListener("abort", onAbort);
  }
}

/** `AbortSignal.timeout(ms)`: aborted with a `TimeoutError` DOMException after `ms` of virtual time. */
export function abortSignalTimeout(process: VirtualProcess, ids: TimerIds, args: any[]): AbortSignal {
  const [delay] = args;
  const ms = Number(delay);
  if (!Number.isInteger(ms) || ms < 0 || ms > Number.MAX_SAFE_INTEGER) {
    throw Object.assign(
      new RangeError(
        `The value of "delay" is out of range. It must be >= 0 && <= ${Number.MAX_SAFE_INTEGER}. Received ${String(delay)}`,
      ),
      {
        code: "ERR_OUT_OF_RANGE",
      },
    );
  }
  const controller = new AbortController();
  const abort = (): void =>
    controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
  new VirtualTimeout(process, ids, abort, [], normalizeDelayMs(ms), false).unref();
  return controller.signal;
}
