/**
 * Helpers of the storage tests: a world driven directly (World + Incarnation + ActorScope, no
 * runner), actors whose outcome is captured, and the storage `sim_fault` events of a run.
 */
import type { Incarnation } from "../src/engine/incarnation.ts";
import { World } from "../src/world/world.ts";
import type { ActorScope } from "../src/world/scope.ts";
import { Actor, boot as bootActor, runActor, runWorld } from "./fixtures/drive-world.ts";
import { SIM_FAULT_EVENT_NAME, type TraceEvent } from "../src/world/trace-log.ts";
import type { StorageConfig } from "../src/world/storage/config.ts";

export const NODE_IP = "10.0.1.1";
export const OTHER_IP = "10.0.1.2";

/** A world, optionally with a storage configuration (trace facts are part of its hash). */
export function hashedWorld(seed: number, config?: StorageConfig): World {
  const world = new World({ seed });
  if (config !== undefined) world.storage.setConfig(config);
  return world;
}

/** A process incarnation on `ip` and its scope. */
export function boot(world: World, ip = NODE_IP, name = "node"): { incarnation: Incarnation; scope: ActorScope } {
  return bootActor(world, ip, name);
}

export { Actor, runActor, runWorld };

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
