/**
 * undici's `headersTimeout` and `bodyTimeout` on the calling process's virtual timers. undici runs
 * both on one module-level "fast timer" tick, armed by whichever process needed it first: one
 * crash of that process (or the end of a seed) stops every other process's timeouts for good.
 * The simulated agents turn undici's own off and wrap each request's handler with these instead.
 */
import { bodyTimeoutError, headersTimeoutError } from "./undici-errors.ts";

/** undici's defaults: 300 s for each. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 300_000;
export const DEFAULT_BODY_TIMEOUT_MS = 300_000;

type Handler = Record<string, ((...args: any[]) => unknown) | undefined>;
type Timer = ReturnType<typeof setTimeout>;

/**
 * A request's handler (undici's dispatch handler, the form Node's fetch and `undici.request`
 * pass) with the two timeouts: headers from the request's start until its response headers,
 * body from the headers until the end, restarted by every chunk. On expiry the request is
 * aborted with undici's error, which also destroys its socket, as undici's own timers do.
 */
export function withTimeouts(inner: Handler, headersMs: number, bodyMs: number): Handler {
  let timer: Timer | null = null;
  let abort: ((error: Error) => void) | null = null;
  const clear = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  const arm = (delayMs: number, error: () => Error): void => {
    clear();
    if (delayMs > 0) timer = setTimeout(() => abort?.(error()), delayMs);
  };
  const overrides: Handler = {
    onConnect: (...args: unknown[]) => {
      abort = args[0] as (error: Error) => void;
      arm(headersMs, headersTimeoutError);
      return inner.onConnect?.(...args);
    },
    onHeaders: (...args: unknown[]) => {
      arm(bodyMs, bodyTimeoutError);
      return inner.onHeaders?.(...args);
    },
    onData: (...args: unknown[]) => {
      timer?.refresh();
      return inner.onData?.(...args);
    },
  };
  for (const key of ["onComplete", "onError", "onUpgrade"]) {
    overrides[key] = (...args: unknown[]) => {
      clear();
      return inner[key]?.(...args);
    };
  }
  // Everything else reaches the handler itself, with itself as `this` (handlers may use private fields).
  return new Proxy(inner, {
    get(target, key) {
      if (typeof key === "string" && key in overrides && typeof target[key] === "function") return overrides[key];
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
