/**
 * Which simulated process owns the code Node runs between engine steps. A native HTTP/2 session does
 * its work from native immediates on the real event loop and calls back into JavaScript from there
 * (stream closes, trailers, write completions); that code belongs to the process whose session it is,
 * so the escape guard answers its clock, timer and random calls as that process (virtual, at the
 * step the loop turn follows) instead of with real ones. The owner is read from the async resource
 * Node runs the callback for (a session or stream handle, a write request, a socket in a `nextTick`'s
 * arguments), and passed on to the ticks, promises and immediates that code creates.
 */
import { createHook, executionAsyncResource } from "node:async_hooks";
import { runningAdopted, simulationArmed } from "../../engine/escape-guard.ts";
import type { EventOwner } from "../../engine/event-queue.ts";
import type { World } from "../world.ts";
import { SimSocket } from "./socket.ts";

export interface Owned {
  readonly world: World;
  readonly owner: EventOwner;
}

/** HTTP/2 sessions and streams of simulated processes, with the process that made or accepted each. */
const owned = new WeakMap<object, Owned>();
/** Async resources created between steps by code of a simulated process. */
const inherited = new WeakMap<object, Owned>();
const STREAM_CLASSES = new Set(["ClientHttp2Stream", "ServerHttp2Stream"]);
/** Node's internal `owner_symbol`: on a native handle, the JavaScript object it belongs to. */
let ownerSymbol: symbol | undefined;
let socketOwner: (socket: SimSocket) => Owned | null = () => null;

/** Marks an HTTP/2 session or stream as code of `owner`. */
export function recordOwner(target: object, world: World, owner: EventOwner): void {
  owned.set(target, { world, owner });
}

function ownedBy(value: unknown): Owned | null {
  if (typeof value !== "object" || value === null) return null;
  if (value instanceof SimSocket) return socketOwner(value);
  const known = owned.get(value);
  if (known !== undefined) return known;
  const record = value as { readonly stream?: unknown; readonly constructor?: { readonly name?: string } };
  if (STREAM_CLASSES.has(record.constructor?.name ?? "")) {
    const session = (value as { readonly session?: object | null }).session;
    return session == null ? null : (owned.get(session) ?? null);
  }
  // Node's `JSStreamSocket` around a simulated socket, and a writable's after-write record.
  return record.stream instanceof SimSocket ? socketOwner(record.stream) : null;
}

function handleOwner(resource: object): unknown {
  if (ownerSymbol === undefined)
    ownerSymbol = Object.getOwnPropertySymbols(resource).find((s) => s.description === "owner_symbol");
  return ownerSymbol === undefined ? undefined : (resource as Record<symbol, unknown>)[ownerSymbol];
}

function ownerOfResource(resource: Record<string, unknown> | undefined): Owned | null {
  if (typeof resource !== "object" || resource === null) return null;
  const known = inherited.get(resource);
  if (known !== undefined) return known;
  const candidates: unknown[] = [resource, handleOwner(resource)];
  const handle = resource.handle;
  if (typeof handle === "object" && handle !== null) candidates.push(handle, handleOwner(handle));
  if (Array.isArray(resource.args)) candidates.push(...resource.args);
  for (const candidate of candidates) {
    const found = ownedBy(candidate);
    if (found !== null) return found;
  }
  return null;
}

/** Between steps, what a simulated process's callback creates (ticks, promises, immediates) stays its own. */
const hook = createHook({
  init(_asyncId, _type, _triggerAsyncId, resource) {
    if (simulationArmed() && !runningAdopted()) return;
    const parent = ownerOfResource(executionAsyncResource() as Record<string, unknown>);
    if (parent !== null) inherited.set(resource, parent);
  },
});
let tracking = false;

/** Starts following callbacks between steps (once per thread, when a seed first uses native HTTP/2). */
export function trackLoopCallbacks(ownerOfSocket: (socket: SimSocket) => Owned | null): void {
  socketOwner = ownerOfSocket;
  if (tracking) return;
  tracking = true;
  hook.enable();
}

/**
 * The owner of the callback running now, if it belongs to a simulated process of `world`; null for
 * anything else on the real loop (the test runner, another seed's leftovers).
 */
export function ownerOfLoopCallback(world: World): EventOwner | null {
  const found = ownerOfResource(executionAsyncResource() as Record<string, unknown>);
  return found !== null && found.world === world ? found.owner : null;
}
