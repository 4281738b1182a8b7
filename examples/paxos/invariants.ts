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
import { assertAlways, TraceCursor, type Invariant, type TraceEvent, type TraceQuery } from "@moonpool/sim";
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
 *   that ballot (the proposer counted right);
 * - one value per ballot and slot: no two acceptors ever accept different values in one slot with
 *   one ballot. Paxos's proof rests on it (a ballot belongs to one proposer, which proposes one
 *   value per slot); a reused ballot breaks it long before agreement visibly fails.
 */
export class ConsensusInvariant implements Invariant {
  readonly name = "paxos-consensus";
  private readonly cursor = new TraceCursor();
  private readonly chosen = new Map<number, { value: string; ballot: number }>();
  private readonly proposed = new Set<string>();
  /** `slot/ballot/value` -> acceptors (by actor) that reported accepting it. */
  private readonly acceptances = new Map<string, Set<string>>();
  /** `slot/ballot` -> the first value accepted with it. */
  private readonly ballotValues = new Map<string, string>();
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
        const first = this.ballotValues.get(`${slot}/${ballot}`);
        if (first === undefined) this.ballotValues.set(`${slot}/${ballot}`, value);
        assertAlways(first === undefined || first === value, "one value per ballot and slot", {
          slot,
          ballot: formatBallot(ballot),
          first: first ?? value,
          second: value,
          node: event.num("node") ?? -1,
        });
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
      assertAlways(acceptors >= this.majority, "a chosen value was accepted by a majority", {
        slot,
        ballot: formatBallot(ballot),
        value,
        acceptors,
      });
    }
  }

  reset(): void {
    this.cursor.reset();
    this.chosen.clear();
    this.proposed.clear();
    this.acceptances.clear();
    this.ballotValues.clear();
  }
}

/**
 * The acceptor's own contract, across its reboots (acceptors are identified by IP: a rebooted
 * process is a new instance on the same machine and disk):
 * - it never accepts a ballot below one it promised (or accepted) before;
 * - a promise survives a reboot: the promise it recovers at boot is at least the highest it gave,
 *   unless the node itself found its log damaged (`recovered {damaged: 1}`). The simulator's word
 *   that it damaged the disk is no excuse: an acceptor that lost state without noticing is the bug;
 * - an acceptor that found its log damaged never votes again (no promise, no accept).
 */
export class AcceptorInvariant implements Invariant {
  readonly name = "paxos-acceptor";
  private readonly cursor = new TraceCursor();
  /** Highest ballot each acceptor (by IP) told a proposer it promised or accepted. */
  private readonly promisedByIp = new Map<string, number>();
  /** Acceptors (by IP) that recovered a damaged log. */
  private readonly damagedIps = new Set<string>();

  observe(query: TraceQuery): void {
    for (const event of newEvents(query, this.cursor, ["promised", "accepted", "recovered"])) {
      const ip = event.source.slice(event.source.indexOf("@") + 1);
      const highest = this.promisedByIp.get(ip) ?? 0;
      if (event.name === "recovered") {
        const recovered = field(event.num("promised"), event, "promised");
        const damaged = field(event.num("damaged"), event, "damaged") === 1;
        if (damaged) this.damagedIps.add(ip);
        assertAlways(recovered >= highest || damaged, "a promise survives a reboot", {
          node: event.num("node") ?? -1,
          promisedBefore: formatBallot(highest),
          recovered: formatBallot(recovered),
        });
        continue;
      }
      assertAlways(!this.damagedIps.has(ip), "an acceptor with a damaged log never votes", {
        node: event.num("node") ?? -1,
        fact: event.name,
      });
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
