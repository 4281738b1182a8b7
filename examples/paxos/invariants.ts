/**
 * Global safety, checked by the simulator after every step. No single node can check these (each
 * knows only its own promises and what it saw chosen), so the nodes and the client publish facts
 * and these invariants read every actor's facts in timeline order, through cursors: each step
 * costs only the facts it added.
 *
 * Checking after every step catches a violation the moment it appears, even when a later state
 * hides it (an acceptor that forgot a promise and then learned a higher one looks healthy at the
 * end of the run).
 */
import { assertAlways, SIM_FAULT_EVENT_NAME, TraceCursor, type Invariant, type TraceEvent, type TraceQuery } from "@moonpool/sim";
import { formatBallot } from "./protocol.ts";

/** The events named `names` that `cursor` has not seen, merged in timeline order. */
function newEvents(query: TraceQuery, cursor: TraceCursor, names: readonly string[]): TraceEvent[] {
  const events: TraceEvent[] = [];
  for (const name of names) events.push(...query.since(name, cursor));
  if (names.length > 1) events.sort((a, b) => a.seq - b.seq);
  return events;
}

function field<T>(value: T | undefined, event: TraceEvent, key: string): T {
  // A fact without its fields is a bug in the emitting code, not a protocol violation.
  if (value === undefined) throw new Error(`${event.name} needs a '${key}' field, got ${event.format()}`);
  return value;
}

/**
 * The consensus properties:
 * - agreement: at most one value is chosen per slot, whoever chose it and with whatever ballot;
 * - validity: a chosen value is one a client proposed (the workload publishes `proposed`);
 * - a value is reported chosen only after a majority of acceptors reported accepting it with
 *   that ballot (the proposer counted right).
 */
export class ConsensusInvariant implements Invariant {
  readonly name = "paxos-consensus";
  private readonly cursor = new TraceCursor();
  private readonly chosen = new Map<number, { value: string; ballot: number }>();
  private readonly proposed = new Set<string>();
  /** `slot/ballot/value` -> acceptors (by actor) that reported accepting it. */
  private readonly acceptances = new Map<string, Set<string>>();
  private readonly majority: number;

  constructor(clusterSize: number) {
    this.majority = Math.floor(clusterSize / 2) + 1;
  }

  observe(query: TraceQuery): void {
    for (const event of newEvents(query, this.cursor, ["proposed", "accepted", "value_chosen"])) {
      if (event.name === "proposed") {
        this.proposed.add(field(event.str("value"), event, "value"));
        continue;
      }
      const slot = field(event.num("slot"), event, "slot");
      const ballot = field(event.num("ballot"), event, "ballot");
      const value = field(event.str("value"), event, "value");
      const key = `${slot}/${ballot}/${value}`;
      if (event.name === "accepted") {
        let set = this.acceptances.get(key);
        if (set === undefined) this.acceptances.set(key, (set = new Set()));
        set.add(event.source);
        continue;
      }
      // value_chosen
      const first = this.chosen.get(slot);
      if (first === undefined) this.chosen.set(slot, { value, ballot });
      // Constant messages (they are the properties' identities); the details say where and what.
      assertAlways(first === undefined || first.value === value, "agreement: one chosen value per slot", {
        slot,
        first: first?.value ?? value,
        firstBallot: formatBallot(first?.ballot ?? ballot),
        second: value,
        secondBallot: formatBallot(ballot),
      });
      assertAlways(this.proposed.has(value), "validity: a chosen value was proposed", { slot, value });
      const acceptors = this.acceptances.get(key)?.size ?? 0;
      assertAlways(acceptors >= this.majority, "a chosen value was accepted by a majority", { slot, ballot: formatBallot(ballot), value, acceptors });
    }
  }

  reset(): void {
    this.cursor.reset();
    this.chosen.clear();
    this.proposed.clear();
    this.acceptances.clear();
  }
}

/** Storage fault kinds after which synced data may legitimately be gone (the disk lost it). */
const STORAGE_DAMAGE_KINDS = new Set(["storage_write_fault", "storage_read_fault", "storage_torn_write", "storage_lost_write", "storage_wipe"]);

/**
 * The acceptor's own contract, across its reboots (acceptors are identified by IP: a rebooted
 * process is a new instance on the same machine and disk):
 * - it never accepts a ballot below one it promised (or accepted) before;
 * - a promise survives a reboot: the promise it recovers at boot is at least the highest it gave.
 *   A disk the simulator says it damaged excuses a lost promise (the `sim_fault` stream says so);
 *   nothing else does.
 */
export class AcceptorInvariant implements Invariant {
  readonly name = "paxos-acceptor";
  private readonly cursor = new TraceCursor();
  /** Highest ballot each acceptor (by IP) told a proposer it promised or accepted. */
  private readonly promisedByIp = new Map<string, number>();
  private readonly damagedIps = new Set<string>();

  observe(query: TraceQuery): void {
    for (const event of newEvents(query, this.cursor, [SIM_FAULT_EVENT_NAME, "promised", "accepted", "recovered"])) {
      if (event.name === SIM_FAULT_EVENT_NAME) {
        const ip = event.str("ip");
        if (ip !== undefined && STORAGE_DAMAGE_KINDS.has(event.str("kind") ?? "")) this.damagedIps.add(ip);
        continue;
      }
      const ip = event.source.slice(event.source.indexOf("@") + 1);
      const highest = this.promisedByIp.get(ip) ?? 0;
      if (event.name === "recovered") {
        const recovered = field(event.num("promised"), event, "promised");
        assertAlways(recovered >= highest || this.damagedIps.has(ip), "a promise survives a reboot", {
          node: event.num("node") ?? -1,
          promisedBefore: formatBallot(highest),
          recovered: formatBallot(recovered),
        });
        continue;
      }
      const ballot = field(event.num("ballot"), event, "ballot");
      if (event.name === "accepted") {
        assertAlways(ballot >= highest, "acceptor never accepts below its promise", {
          node: event.num("node") ?? -1,
          slot: event.num("slot") ?? -1,
          ballot: formatBallot(ballot),
          promised: formatBallot(highest),
        });
      }
      if (ballot > highest) this.promisedByIp.set(ip, ballot);
    }
  }

  reset(): void {
    this.cursor.reset();
    this.promisedByIp.clear();
    this.damagedIps.clear();
  }
}
