/**
 * `session.setTimeout()` and `stream.setTimeout()` of a simulated HTTP/2 session on simulated time.
 * Node arms them with an internal timer of the real event loop, which would fire by the wall clock;
 * here the timer sleeps on the process's clock instead, and dies with the process.
 */
import type { TimeProvider } from "@moonpool/core";

/** What Node's HTTP/2 code does with the timer it keeps: `refresh()` on every read and write. */
class SimIdleTimer {
  private deadlineMs = 0;
  private waiting = false;
  private cleared = false;

  constructor(
    private readonly time: TimeProvider,
    private readonly timeoutMs: number,
    private readonly onTimeout: () => void,
  ) {
    this.refresh();
  }

  refresh(): this {
    this.cleared = false;
    this.deadlineMs = this.time.now() + this.timeoutMs;
    if (!this.waiting) this.wait(this.timeoutMs);
    return this;
  }

  clear(): void {
    this.cleared = true;
  }

  // Simulated timers never hold the real event loop open.
  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  hasRef(): boolean {
    return false;
  }

  private wait(delayMs: number): void {
    this.waiting = true;
    this.time.sleep(delayMs).then(
      () => {
        this.waiting = false;
        if (this.cleared) return;
        const remainingMs = this.deadlineMs - this.time.now();
        // Below a microsecond the clock cannot move: that is the deadline. Like Node's, the timer
        // fires once; the next activity (a refresh) arms it again.
        if (remainingMs < 0.001) {
          this.cleared = true;
          this.onTimeout();
        } else this.wait(remainingMs);
      },
      () => {}, // the process is shutting down: nobody waits for this timer any more
    );
  }
}

interface TimedHttp2 {
  destroyed: boolean;
  timeout?: number;
  _onTimeout(): void;
  once(event: "timeout", listener: () => void): unknown;
  removeListener(event: "timeout", listener: () => void): unknown;
  setTimeout(msecs: number, callback?: () => void): unknown;
}

/** Gives a session or stream of a simulated process an idle timeout on `time` (before any is armed). */
export function simulatedTimeouts(target: object, time: TimeProvider): void {
  const key = Object.getOwnPropertySymbols(target).find((s) => s.description === "timeout");
  if (key === undefined) return;
  const slots = target as Record<symbol, { clear?: () => void } | null | undefined>;
  const nodeSetTimeout = (target as TimedHttp2).setTimeout;
  const setTimeout = function setTimeout(this: TimedHttp2, msecs: number, callback?: () => void) {
    if (this.destroyed) return this;
    // Node's own checks and messages for a bad duration or callback, before anything is armed.
    if (typeof msecs !== "number" || !(msecs >= 0) || (callback !== undefined && typeof callback !== "function"))
      return nodeSetTimeout.call(this, msecs, callback);
    this.timeout = msecs;
    const previous = slots[key];
    if (previous instanceof SimIdleTimer) previous.clear();
    else if (previous != null) clearTimeout(previous as unknown as NodeJS.Timeout);
    slots[key] = null;
    if (msecs === 0) {
      if (callback !== undefined) this.removeListener("timeout", callback);
      return this;
    }
    slots[key] = new SimIdleTimer(time, msecs, () => this._onTimeout());
    if (callback !== undefined) this.once("timeout", callback);
    return this;
  };
  Object.defineProperty(target, "setTimeout", { configurable: true, writable: true, value: setTimeout });
  // A server's timeout was armed on Node's timer before its 'session' event: move it to simulated time.
  const armed = target as TimedHttp2;
  if (slots[key] != null && typeof armed.timeout === "number" && armed.timeout > 0) armed.setTimeout(armed.timeout);
}
