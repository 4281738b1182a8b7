/**
 * SIGINT (Ctrl-C), SIGTERM (CI cancellation, `timeout`, `docker stop`, Kubernetes) and SIGHUP (a
 * closed terminal) stop a command the same way: the first one aborts the work so the command can
 * write what it has, and the command then exits 128 + the signal's number, as a shell reports a
 * process that signal killed (130, 143, 129); a second signal quits at once with that status.
 */
import { constants } from "node:os";

export const TERMINATION_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type TerminationSignal = (typeof TERMINATION_SIGNALS)[number];

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. */
export function signalExitCode(signal: TerminationSignal): number {
  return 128 + constants.signals[signal];
}

export interface Termination {
  /** Aborted at the first termination signal. */
  readonly signal: AbortSignal;
  /** The first signal received, or null. */
  readonly received: () => TerminationSignal | null;
  /** Stops listening (the default handlers, which end the process, apply again). */
  readonly dispose: () => void;
}

/** Listens for the termination signals; `onFirst` says what the command does with the first one. */
export function onTermination(onFirst: (signal: TerminationSignal) => void): Termination {
  const controller = new AbortController();
  let received: TerminationSignal | null = null;
  const handlers = TERMINATION_SIGNALS.map((name) => {
    const handler = () => {
      if (received !== null) return process.exit(signalExitCode(name));
      received = name;
      controller.abort();
      onFirst(name);
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    received: () => received,
    dispose: () => {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}
