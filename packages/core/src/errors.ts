/**
 * Typed errors shared by the simulator and production code. Every message says what to change.
 */

/** Base class: `instanceof MoonpoolError` catches every error this library throws on purpose. */
export class MoonpoolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A builder or option combination that cannot work. Thrown before any seed runs. */
export class InvalidConfiguration extends MoonpoolError {}

/** Two runs of the same seed diverged. `details` says where (see `@moonpool/sim` for its shape). */
export class DeterminismViolation extends MoonpoolError {
  constructor(
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Simulated code reached outside the simulation (real clock, real timer, unseeded randomness). */
export class SimulationEscape extends MoonpoolError {
  constructor(
    readonly call: string,
    readonly actor: string,
    message: string,
  ) {
    super(message);
  }
}

/** `time.timeout(ms, promise)` elapsed before the promise settled. */
export class TimeoutError extends MoonpoolError {
  constructor(readonly timeoutMs: number) {
    super(`operation timed out after ${timeoutMs} ms`);
  }
}

/** Node-style I/O error with a `code` such as `ECONNREFUSED`, `ECONNRESET`, `ENOENT`, `EIO`. */
export class IoError extends MoonpoolError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** A spawned task was aborted before it finished. */
export class TaskCancelled extends MoonpoolError {
  constructor(readonly taskName: string) {
    super(`task '${taskName}' was cancelled`);
  }
}

/** `send` on a channel after `close()`. */
export class ChannelClosed extends MoonpoolError {
  constructor(readonly channelName: string) {
    super(
      `send on channel '${channelName}' after close(); a closed channel takes no more values (check channel.closed, or close it only once the last sender is done)`,
    );
  }
}

/**
 * The error used for graceful shutdown. It is a DOMException named `AbortError`, like the one
 * `AbortController.abort()` produces, so `err.name === "AbortError"` works everywhere.
 */
export function abortError(reason = "process is shutting down"): DOMException {
  return new DOMException(reason, "AbortError");
}

export function isAbortError(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "AbortError";
}
