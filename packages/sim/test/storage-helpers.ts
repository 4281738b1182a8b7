/**
 * Helpers of the storage tests: a world driven directly (World + Incarnation + ActorScope, no
 * runner), actors whose outcome is captured, and the storage `sim_fault` events of a run.
 */
import { Incarnation } from "../src/engine/incarnation.ts";
import type { StopReason } from "../src/engine/engine.ts";
import { World } from "../src/world/world.ts";
import { ActorScope } from "../src/world/scope.ts";
import { ProcessClock } from "../src/world/time.ts";
import { SIM_FAULT_EVENT_NAME, type TraceEvent } from "../src/world/trace-log.ts";
import type { StorageConfig } from "../src/world/storage/config.ts";

export const NODE_IP = "10.0.1.1";
export const OTHER_IP = "10.0.1.2";

/** A world whose trace facts are mixed into the trace hash (as the seed runner does). */
export function hashedWorld(seed: number, config?: StorageConfig): World {
  const world = new World({ seed });
  const engine = world.engine;
  world.trace.onEvent = (event) => {
    engine.mixString(event.name);
    for (const key in event.fields) {
      engine.mixString(key);
      engine.mixString(String(event.fields[key]));
    }
  };
  if (config !== undefined) world.storage.setConfig(config);
  return world;
}

/** A process incarnation on `ip` and its scope. */
export function boot(world: World, ip = NODE_IP, name = "node"): { incarnation: Incarnation; scope: ActorScope } {
  const incarnation = new Incarnation(`${name}@${ip}`);
  return { incarnation, scope: new ActorScope(world, incarnation, null, new ProcessClock(), ip) };
}

export async function runWorld(world: World, done: () => boolean, deadlineUs?: number): Promise<StopReason> {
  world.engine.installTickCounter();
  try {
    return await world.engine.runUntil(done, deadlineUs === undefined ? {} : { deadlineUs });
  } finally {
    world.engine.uninstallTickCounter();
  }
}

/** Tracks an actor body's outcome without ever producing an unhandled rejection. */
export class Actor<T> {
  done = false;
  value: T | undefined;
  error: unknown;
  constructor(body: () => Promise<T>) {
    body().then(
      (v) => {
        this.value = v;
        this.done = true;
      },
      (e: unknown) => {
        this.error = e;
        this.done = true;
      },
    );
  }
}

/** Runs `body` in the world until it settles; resolves or rejects like it. */
export async function runActor<T>(world: World, body: () => Promise<T>): Promise<T> {
  const actor = new Actor(body);
  const reason = await runWorld(world, () => actor.done);
  if (!actor.done) throw new Error(`the actor did not finish: the world stopped with "${reason}"`);
  if (actor.error !== undefined) throw actor.error;
  return actor.value as T;
}

/** The `sim_fault` events of the run so far, optionally of one kind. */
export function faults(world: World, kind?: string): TraceEvent[] {
  return world.trace.snapshot(SIM_FAULT_EVENT_NAME).filter((e) => kind === undefined || e.str("kind") === kind);
}

export function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Deterministic bytes that differ with `salt`. */
export function pattern(sizeBytes: number, salt: number): Uint8Array {
  const out = new Uint8Array(sizeBytes);
  let x = (salt * 2654435761) >>> 0;
  for (let i = 0; i < sizeBytes; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}
