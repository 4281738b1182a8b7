/**
 * `process.on('uncaughtException' | 'unhandledRejection', ...)` from a simulated process: the
 * listener belongs to that process (its virtual process object), not to the real Node process, so
 * it sees only that process's errors, dies with it and never outlives the seed. Code outside any
 * simulated process (module top level, the test runner) keeps the real `process` untouched.
 */
import type { EventEmitter } from "node:events";
import { currentVirtualProcess } from "./runtime.ts";
import type { VirtualProcess } from "./virtual-process.ts";

/** The events a simulated process listens to on its own virtual process object. */
export const PROCESS_ERROR_EVENTS: ReadonlySet<string | symbol> = new Set(["uncaughtException", "unhandledRejection"]);

/** `process` methods whose calls for those events go to the calling simulated process. */
const LISTENER_METHODS = [
  "on",
  "addListener",
  "once",
  "prependListener",
  "prependOnceListener",
  "off",
  "removeListener",
  "removeAllListeners",
  "listeners",
  "rawListeners",
  "listenerCount",
] as const;

type ListenerMethod = (typeof LISTENER_METHODS)[number];

/** The process whose code is running, when it is a simulated process (not the runner). */
function callingProcess(): VirtualProcess | null {
  const process = currentVirtualProcess();
  return process !== null && process.owner !== null ? process : null;
}

/**
 * Routes the listener methods of the real `process` for the error events to the calling simulated
 * process while a seed runs; returns the function that restores them.
 */
export function installProcessErrorEvents(): () => void {
  const saved = LISTENER_METHODS.map((name) => [name, Object.getOwnPropertyDescriptor(process, name)] as const);
  for (const name of LISTENER_METHODS) {
    const real = (process as unknown as Record<ListenerMethod, (...args: unknown[]) => unknown>)[name];
    Object.defineProperty(process, name, {
      configurable: true,
      writable: true,
      value: function listenerMethod(this: unknown, ...args: unknown[]): unknown {
        const event = args[0] as string | symbol | undefined;
        const owner = event !== undefined && PROCESS_ERROR_EVENTS.has(event) ? callingProcess() : null;
        if (owner === null) return real.apply(this, args);
        const emitter = owner.errorEvents;
        const result = (emitter[name] as (...a: unknown[]) => unknown).apply(emitter, args);
        // Registration methods return the emitter for chaining: the caller's is `process`.
        return result === emitter ? this : result;
      },
    });
  }
  return () => {
    for (const [name, descriptor] of saved) {
      if (descriptor !== undefined) Object.defineProperty(process, name, descriptor);
      else delete (process as unknown as Record<string, unknown>)[name];
    }
  };
}

/**
 * Node's wrapper for a rejection reason that is not an Error, as its 'uncaughtException' listeners
 * receive it (`ERR_UNHANDLED_REJECTION`).
 */
export function unhandledRejectionError(reason: unknown): Error {
  if (reason instanceof Error) return reason;
  let text: string;
  try {
    text = typeof reason === "string" ? reason : String(reason);
  } catch {
    text = "an object that cannot be converted to a string";
  }
  const error = new Error(
    "This error originated either by throwing inside of an async function without a catch block, " +
      `or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason "${text}".`,
  );
  error.name = "UnhandledPromiseRejection";
  return Object.assign(error, { code: "ERR_UNHANDLED_REJECTION" });
}

/** What became of an error once the process's own listeners had their say. */
export type ErrorOutcome = { readonly handled: true } | { readonly handled: false; readonly error: unknown };

/**
 * Node's order for a process error: an unhandled rejection goes to 'unhandledRejection' listeners,
 * else it becomes an uncaught exception; an uncaught exception goes to 'uncaughtException'
 * listeners; with none, the process dies. A listener that throws is itself an uncaught exception
 * (from an 'uncaughtException' listener: fatal, as in Node).
 */
export function dispatchProcessError(
  process: VirtualProcess,
  kind: "uncaughtException" | "unhandledRejection",
  error: unknown,
  promise: Promise<unknown> | undefined,
): ErrorOutcome {
  const events = process.existingErrorEvents;
  if (kind === "unhandledRejection") {
    if (events !== null && events.listenerCount("unhandledRejection") > 0) {
      try {
        events.emit("unhandledRejection", error, promise);
        return { handled: true };
      } catch (thrown) {
        return dispatchProcessError(process, "uncaughtException", thrown, undefined);
      }
    }
    return uncaught(events, unhandledRejectionError(error), "unhandledRejection");
  }
  return uncaught(events, error, "uncaughtException");
}

function uncaught(events: EventEmitter | null, error: unknown, origin: string): ErrorOutcome {
  if (events === null || events.listenerCount("uncaughtException") === 0) return { handled: false, error };
  try {
    events.emit("uncaughtException", error, origin);
    return { handled: true };
  } catch (thrown) {
    return { handled: false, error: thrown };
  }
}
