/**
 * Native copies of everything the engine and runner use from the real world, captured when this
 * module loads. While a seed runs, the escape guard replaces the globals; the runner itself must
 * keep working, so it only ever calls these copies.
 */
import { performance as nodePerformance } from "node:perf_hooks";

export const natives = {
  setImmediate: globalThis.setImmediate.bind(globalThis),
  setTimeout: globalThis.setTimeout.bind(globalThis),
  clearTimeout: globalThis.clearTimeout.bind(globalThis),
  queueMicrotask: globalThis.queueMicrotask.bind(globalThis),
  nextTick: process.nextTick.bind(process),
  performanceNow: nodePerformance.now.bind(nodePerformance),
  dateNow: Date.now,
  mathRandom: Math.random,
} as const;

/** Wall-clock milliseconds for metrics (never for simulation decisions). */
export function wallNowMs(): number {
  return natives.performanceNow();
}
