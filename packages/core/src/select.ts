/**
 * `select`: wait for the first of several promises, like `tokio::select!`.
 *
 * `Promise.race` favours branches earlier in the list when several are already settled; a fair
 * `select` starts at a rotating offset instead, drawn from the simulation's `select` stream (or
 * `Math.random` in production) so seeds explore every winner. `selectBiased` keeps source order:
 * use it for guard-style selects (real work first, then shutdown or timeout).
 */
import { activeSimulation } from "./hook.ts";

export type SelectResult<B extends Record<string, Promise<unknown>>> = {
  [K in keyof B]: { readonly key: K; readonly value: Awaited<B[K]> };
}[keyof B];

function race<B extends Record<string, Promise<unknown>>>(branches: B, offset: number): Promise<SelectResult<B>> {
  const keys = Object.keys(branches);
  if (keys.length === 0) throw new TypeError("select needs at least one branch");
  const ordered: Promise<SelectResult<B>>[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[(i + offset) % keys.length]!;
    ordered.push(branches[key]!.then((value) => ({ key, value }) as SelectResult<B>));
  }
  return Promise.race(ordered);
}

export function select<B extends Record<string, Promise<unknown>>>(branches: B): Promise<SelectResult<B>> {
  const count = Object.keys(branches).length;
  const sim = activeSimulation();
  // Production: any fair offset will do, so the real Math.random is the right source.
  const offset = count <= 1 ? 0 : sim !== undefined ? sim.selectOffset(count) : Math.floor(Math.random() * count);
  return race(branches, offset);
}

export function selectBiased<B extends Record<string, Promise<unknown>>>(branches: B): Promise<SelectResult<B>> {
  return race(branches, 0);
}
