/**
 * Stacks of seed failures formatted when first read: formatting (source-mapped) costs more than
 * the rest of a failing assertion, and most failing timelines of an exploration are never reported.
 */
import type { SeedFailure, SeedResult } from "./seed-result.ts";

/**
 * Gives `failure` an enumerable `stack` that is formatted at its first read (a spread, JSON or a
 * structured clone reads it like any property) and is a plain value from then on.
 */
export function lazyStack(failure: SeedFailure, stack: () => string | undefined): void {
  Object.defineProperty(failure, "stack", {
    enumerable: true,
    configurable: true,
    get(this: SeedFailure): string | undefined {
      const value = stack();
      Object.defineProperty(this, "stack", { value, enumerable: true, writable: true, configurable: true });
      return value;
    },
  });
}

/** Formats every stack of `result` that is still lazy (a result kept beyond its batch). */
export function formatStacks(result: SeedResult): void {
  for (const failure of result.failures) void failure.stack;
}
