/**
 * Which simulated process is calling: the owner of the engine event being applied, mapped to the
 * host (network, clock, IP) registered for it. Null outside a seed, so the real modules answer.
 */
import { simulationArmed } from "../../engine/escape-guard.ts";
import type { EventOwner } from "../../engine/event-queue.ts";
import { Incarnation } from "../../engine/incarnation.ts";
import type { World } from "../world.ts";
import { ownerOfLoopCallback, trackLoopCallbacks } from "./between-steps.ts";
import type { NodeNetHost, SimSocket } from "./socket.ts";

/**
 * The world of the seed that registered last: seeds of one realm run one at a time. Held weakly so
 * the last seed's world (and every context in it) is collected once its campaign ends.
 */
let latestWorld: WeakRef<World> | null = null;

/**
 * Makes `host` the one Node's modules use for code running on behalf of `owner` (its incarnation). Recorded on the
 * two objects themselves, not in WeakMaps: a WeakMap's values stay reachable for young-generation collections until
 * the next full one, and registering two entries per context was a visible part of a short seed.
 */
export function registerNodeHost(world: World, owner: Incarnation, host: NodeNetHost): void {
  if (latestWorld?.deref() !== world) latestWorld = new WeakRef(world);
  for (const hook of registrationHooks) hook();
  if (nativeHttp2Used) settleHttp2(world);
  owner.nodeHost = host;
}

const registrationHooks: (() => void)[] = [];

/** Runs `hook` whenever a process's host is registered (cheap checks only: it runs for every process). */
export function onHostRegistered(hook: () => void): void {
  registrationHooks.push(hook);
}

/**
 * The process of `host` uses Node's sockets: from now on, code the network resumes for it runs in
 * its own events (a healed partition, a peer's reset), so the calls it makes find its host again.
 */
export function markNodeUser(host: NodeNetHost): void {
  host.world.network.resumeAsOwner.add(host.incarnation);
}

/** The process (its world and incarnation) `host` belongs to. */
export function processOf(host: NodeNetHost): { readonly world: World; readonly owner: EventOwner } {
  return { world: host.world, owner: host.incarnation };
}

export function currentNodeHost(): NodeNetHost | null {
  const world = latestWorld?.deref();
  if (world === undefined || !simulationArmed()) return null;
  const owner = world.engine.currentOwner;
  return owner instanceof Incarnation ? (owner.nodeHost as NodeNetHost | null) : null;
}

/**
 * Once a seed of this thread used native HTTP/2, later seeds yield after every step from their first
 * process on: what a finished seed's sessions left in the real loop then runs at the same step every
 * time, instead of at whichever step a wall-time yield happens to fall.
 */
let nativeHttp2Used = false;

/**
 * The seed runs Node's native HTTP/2 session: the engine yields to the real loop after every step from
 * now on, so the session's writes (native immediates) land between steps, in step order.
 */
export function useNativeHttp2(): void {
  nativeHttp2Used = true;
  const world = latestWorld?.deref();
  if (world !== undefined) settleHttp2(world);
}

function socketOwner(socket: SimSocket): { readonly world: World; readonly owner: EventOwner } | null {
  return processOf(socket.host);
}

/**
 * The engine hands the real loop a turn after every step, and what Node's native HTTP/2 code runs in
 * that turn for a process of this world is answered as that process (see between-steps.ts).
 */
function settleHttp2(world: World): void {
  world.engine.yieldEveryStep = true;
  const ownerBetweenSteps = () => ownerOfLoopCallback(world);
  world.engine.ownerBetweenSteps = ownerBetweenSteps;
  trackLoopCallbacks(socketOwner);
}
