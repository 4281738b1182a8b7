/**
 * The table of virtual implementations, keyed by the `call` name the escape guard's wrappers use
 * (`"setTimeout"`, `"crypto.randomBytes"`, `"net.createServer"`, ...). Each implementation gets the
 * simulated process whose code made the call. Modules add theirs once, when they load.
 */
import type { VirtualProcess } from "./virtual-process.ts";

export type VirtualImplementation = (process: VirtualProcess, thisArg: unknown, args: any[]) => unknown;

const implementations = new Map<string, VirtualImplementation>();

/** Registers virtual implementations by call name; a name registered twice is a programming error. */
export function defineVirtualCalls(table: Readonly<Record<string, VirtualImplementation>>): void {
  for (const [call, implementation] of Object.entries(table)) {
    if (implementations.has(call)) throw new Error(`virtual call '${call}' is defined twice`);
    implementations.set(call, implementation);
  }
}

export function virtualImplementation(call: string): VirtualImplementation | undefined {
  return implementations.get(call);
}

/** Every call name with a virtual implementation (documentation and tests). */
export function virtualCallNames(): string[] {
  return [...implementations.keys()].sort();
}
