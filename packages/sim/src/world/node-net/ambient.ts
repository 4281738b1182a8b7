/**
 * Which simulated process is calling: the owner of the engine event being applied, mapped to the
 * host (network, clock, IP) registered for it. Null outside a seed, so the real modules answer.
 */
import { simulationArmed } from "../../engine/escape-guard.ts";
import type { World } from "../world.ts";
import type { NodeNetHost } from "./socket.ts";

const hosts = new WeakMap<object, NodeNetHost>();
/** The world of the seed that registered last: seeds of one realm run one at a time. */
let latestWorld: World | null = null;

/** Makes `host` the one Node's modules use for code running on behalf of `owner` (an incarnation). */
export function registerNodeHost(world: World, owner: object, host: NodeNetHost): void {
  latestWorld = world;
  hosts.set(owner, host);
}

export function currentNodeHost(): NodeNetHost | null {
  if (latestWorld === null || !simulationArmed()) return null;
  const owner = latestWorld.engine.currentOwner;
  return owner === null ? null : (hosts.get(owner) ?? null);
}
