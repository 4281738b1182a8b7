/**
 * The network's scheduled events: one small payload object per event, read by a module-level
 * callback, so scheduling allocates no closure.
 */
import type { Connection, Listener } from "@moonpool/core";
import type { SimEvent } from "../../engine/event-queue.ts";
import { Incarnation, type PendingOp } from "../../engine/incarnation.ts";
import type { ActorScope } from "../scope.ts";
import type { SimConnection, SimListener } from "./connection.ts";
import type { SimNetwork } from "./network.ts";

// Event arguments: one small object per event, read by a module-level callback (no closures).
export type ConnectAttempt = {
  net: SimNetwork;
  scope: ActorScope;
  op: PendingOp<Connection>;
  localAddr: string;
  remoteAddr: string;
  /** Chaos decided at connect() that this attempt is refused when it arrives. */
  refused: boolean;
  /** When `connect()` was called (the connect timeout counts from there). */
  startUs: number;
  /** The pending connect timeout while the attempt is in a black hole (held or dropped), else null. */
  timeout: SimEvent | null;
};
export function connectAttempt(
  net: SimNetwork,
  scope: ActorScope,
  op: PendingOp<Connection>,
  localAddr: string,
  remoteAddr: string,
  refused: boolean,
  startUs: number,
): ConnectAttempt {
  return { net, scope, op, localAddr, remoteAddr, refused, startUs, timeout: null };
}
export type AcceptPairing = { listener: SimListener; op: PendingOp<Connection>; conn: SimConnection };
export type BindCompletion = { listener: SimListener; op: PendingOp<Listener> };

/** A chunk (`null`: the FIN) in flight reaches `to`'s side of the network. */
export function deliverChunk(to: SimConnection, data: Uint8Array | null): void {
  to.net.deliver(to, data);
}
/** Where a skipped partial write's prefix would have reached `to` (`NetworkFaultRolls.skippedPrefixArrives`). */
export function arriveSkippedPrefix(to: SimConnection, prefix: Uint8Array): void {
  to.net.faults.skippedPrefixArrives(to, prefix);
}
/** Chunks held by a partition that healed land in an event of their receiver (its code resumes as itself). */
export function landHeldChunks(end: SimConnection): void {
  const net = end.net;
  const from = end.peer;
  if (end.reset || from === null) {
    end.held = null;
    return;
  }
  if (net.partitions.blocks(from.localIp, end.localIp)) {
    if (end.held !== null) net.heldEnds.add(end); // partitioned again at this instant
    return;
  }
  const chunks = end.held ?? [];
  end.held = null;
  net.heldEnds.delete(end);
  for (const data of chunks) {
    if (end.reset || !end.owner.alive || !from.owner.alive) break;
    net.land(end, from, data);
  }
}
export function arriveConnect(attempt: ConnectAttempt): void {
  attempt.net.arrive(attempt);
}
/** A connect in a black hole ran out of time: ETIMEDOUT, as when a TCP connect's SYN retries give up. */
export function timeOutConnect(attempt: ConnectAttempt): void {
  attempt.net.timeOutConnect(attempt);
}
export function completeAccept(pairing: AcceptPairing): void {
  pairing.listener.net.finishAccept(pairing);
}
export function completeBind(done: BindCompletion): void {
  if (done.listener.closed) return; // closed (or its owner crashed) while binding
  done.listener.listening = true;
  if (!Incarnation.resolve(done.op, done.listener)) done.listener.net.closeListener(done.listener, true);
}
export function wakeEnd(end: SimConnection): void {
  end.wake();
}
export function finishWrite(op: PendingOp<void>): void {
  Incarnation.resolve(op, undefined);
}
