/**
 * Buggify: cooperative fault injection at points the application chooses. Each point carries an
 * explicit, stable id (a JS call site has no file:line of its own, and an id keeps recipes valid
 * when code moves).
 *
 * In a simulation, a point is activated or not once per seed (50 %), then an active point fires
 * on each call with probability 25 % (or `p`). Outside a simulation nothing fires.
 */
import { activeSimulation } from "./hook.ts";

/** Default firing probability of an active buggify point. */
export const BUGGIFY_FIRE_PROBABILITY = 0.25;

export function buggify(id: string): boolean {
  return activeSimulation()?.buggify(id, BUGGIFY_FIRE_PROBABILITY) ?? false;
}

export function buggifyWithProb(id: string, probability: number): boolean {
  return activeSimulation()?.buggify(id, probability) ?? false;
}

/**
 * An application knob: `defaultValue` normally; when the point fires, a uniform integer in
 * `[lo, hi)` (an empty range yields `lo`).
 */
export function buggifyKnob(id: string, defaultValue: number, range: readonly [lo: number, hi: number]): number {
  const sim = activeSimulation();
  return sim === undefined ? defaultValue : sim.buggifyKnob(id, defaultValue, range[0], range[1]);
}

/**
 * Whether operation family `opId` (an integer 0..255) is enabled in this seed's swarm of the
 * operation alphabet. Always true unless the builder enabled `swarmOperations()`.
 */
export function swarmOpEnabled(opId: number): boolean {
  return activeSimulation()?.swarmOpEnabled(opId) ?? true;
}
