/**
 * The causal slice of a failure: the events of a seed's trace in the happens-before past of its
 * failing event (Lamport's relation), so a reader sees the handful of events that led to it out of
 * thousands. Pure functions over trace events, in trace order; the replay's text story and the
 * timeline page both draw from it.
 *
 * The edges, each from an earlier event to a later one:
 * - program order within an actor (keyed by its IP: the processes of one machine across crashes and
 *   restarts, spawned tasks included, since they share the process's memory);
 * - message: a `net_recv` names its connection and stream offset, and so do the `net_send`s whose
 *   bytes it took;
 * - fault: a `sim_fault` naming an IP (`ip`, `from`, `to`) precedes the next event of each actor at
 *   those IPs (the crash before the restart, the partition before the lost send);
 * - failure: the seed's failure follows its trigger (the last event of the failing actor, or the
 *   last event, when no actor is named) and every earlier event of the trigger's name, the stream a
 *   global invariant read when it fired.
 */
import type { TraceEvent } from "../world/trace-log.ts";
import { SIM_FAULT_EVENT_NAME } from "../world/trace-log.ts";

/** The runner's event marking a seed failure (seed-runner.ts). */
export const FAILURE_EVENT_NAME = "seed_failure";
export const NET_SEND_EVENT_NAME = "net_send";
export const NET_RECV_EVENT_NAME = "net_recv";

export interface CausalSlice {
  /** Index (into the events) of the failing event the slice ends at. */
  readonly failureIndex: number;
  /** Indexes of the events in its past, the failure included, ascending. */
  readonly indexes: readonly number[];
  /** For each index of the slice: the indexes of its direct predecessors in the slice. */
  readonly causes: ReadonlyMap<number, readonly number[]>;
}

const IP = /^\d{1,3}(\.\d{1,3}){3}$/;

function ipOf(address: string | undefined): string | null {
  if (address === undefined) return null;
  const ip = address.replace(/:\d+$/, "");
  return IP.test(ip) ? ip : null;
}

/** The actor an event belongs to: the IP of `name@ip`, the source otherwise; null for the runner and the simulator. */
function actorOf(event: TraceEvent): string | null {
  if (event.source === "sim" || event.source === "runner") return null;
  const at = event.source.lastIndexOf("@");
  return at < 0 ? event.source : event.source.slice(at + 1);
}

/** The IPs a simulator fault concerns. */
function faultIps(event: TraceEvent): string[] {
  const ips: string[] = [];
  for (const key of ["ip", "from", "to"]) {
    const ip = ipOf(event.str(key));
    if (ip !== null && !ips.includes(ip)) ips.push(ip);
  }
  return ips;
}

/** One direction of a connection: its id and the address the bytes go to. */
function streamKey(event: TraceEvent): string | null {
  const id = event.num("connectionId");
  const to = event.str("to");
  if (id === undefined || to === undefined || event.num("offset") === undefined) return null;
  return `${id}>${to}`;
}

/**
 * The direct predecessors of every event (same indexes as `events`): the edges listed in the
 * header. Linear in the trace, but for reads that take many writes.
 */
export function happensBefore(events: readonly TraceEvent[]): number[][] {
  const causes: number[][] = events.map(() => []);
  const lastOfActor = new Map<string, number>();
  // Faults not yet followed by an event of the actor they concern.
  const pendingFaults = new Map<string, number[]>();
  // Per stream: the writes seen so far, as [startOffset, endOffset, index], in stream order.
  const writes = new Map<string, [number, number, number][]>();
  for (const [i, event] of events.entries()) {
    if (event.name === FAILURE_EVENT_NAME && event.source === "runner") continue; // linked by `causalSlice`
    let actor: string | null;
    if (event.name === SIM_FAULT_EVENT_NAME) {
      // A fault on a machine (`ip`) is in that machine's program order (a restart follows its crash);
      // one between two machines (`from`, `to`) waits for the next event of each.
      const own = ipOf(event.str("ip"));
      for (const ip of faultIps(event)) {
        if (ip === own) continue;
        let list = pendingFaults.get(ip);
        if (list === undefined) pendingFaults.set(ip, (list = []));
        list.push(i);
      }
      if (own === null) continue;
      actor = own;
    } else actor = actorOf(event);
    if (actor === null) continue;
    const previous = lastOfActor.get(actor);
    if (previous !== undefined) causes[i]!.push(previous);
    const faults = pendingFaults.get(actor);
    if (faults !== undefined) {
      for (const f of faults) if (f !== previous) causes[i]!.push(f);
      pendingFaults.delete(actor);
    }
    lastOfActor.set(actor, i);
    const stream = streamKey(event);
    if (stream === null) continue;
    const start = event.num("offset")!;
    const end = start + (event.num("bytes") ?? 0);
    if (event.name === NET_SEND_EVENT_NAME) {
      let list = writes.get(stream);
      if (list === undefined) writes.set(stream, (list = []));
      list.push([start, end, i]);
    } else if (event.name === NET_RECV_EVENT_NAME) {
      // The writes whose bytes this read took: those overlapping its range of the stream.
      const list = writes.get(stream) ?? [];
      for (const [s, e, w] of list) if (s < end && e > start) causes[i]!.push(w);
      // Writes wholly read are done with: later reads start past them.
      while (list.length > 0 && list[0]![1] <= end) list.shift();
    }
  }
  return causes;
}

/** The failing event: the `at`-th (0-based) `seed_failure` of the trace, or -1. */
export function failureIndex(events: readonly TraceEvent[], at = 0): number {
  let seen = 0;
  for (const [i, event] of events.entries()) {
    if (event.name !== FAILURE_EVENT_NAME || event.source !== "runner") continue;
    if (seen++ === at) return i;
  }
  return -1;
}

/** What triggered the failure at `failureAt`: the last event before it of `actor` (`name@ip` or `name`), or the last event. */
function triggerOf(events: readonly TraceEvent[], failureAt: number, actor: string | undefined): number {
  for (let i = failureAt - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.source === "runner") continue;
    if (actor === undefined || e.source === actor || e.source.split("@")[0] === actor) return i;
  }
  return -1;
}

/**
 * The happens-before past of the failure at `failureAt` (see the header); null when there is no
 * such event. `actor` is the failure's actor (`SeedFailure.actor`), when known.
 */
export function causalSlice(
  events: readonly TraceEvent[],
  failureAt: number = failureIndex(events),
  actor?: string,
): CausalSlice | null {
  if (failureAt < 0 || failureAt >= events.length) return null;
  const causes = happensBefore(events);
  const trigger = triggerOf(events, failureAt, actor);
  const failureCauses: number[] = [];
  if (trigger >= 0) {
    const name = events[trigger]!.name;
    for (let i = 0; i < failureAt; i++) {
      const e = events[i]!;
      if (i === trigger || (e.name === name && e.source !== "runner")) failureCauses.push(i);
    }
  }
  causes[failureAt] = failureCauses;
  const inSlice = new Uint8Array(events.length);
  const stack = [failureAt];
  inSlice[failureAt] = 1;
  while (stack.length > 0) {
    const i = stack.pop()!;
    for (const c of causes[i]!) {
      if (inSlice[c] === 1) continue;
      inSlice[c] = 1;
      stack.push(c);
    }
  }
  const indexes: number[] = [];
  const direct = new Map<number, readonly number[]>();
  for (let i = 0; i <= failureAt; i++) {
    if (inSlice[i] !== 1) continue;
    indexes.push(i);
    direct.set(i, causes[i]!);
  }
  return { failureIndex: failureAt, indexes, causes: direct };
}
