/**
 * The wire protocol of the Paxos example: ballots, messages, their encoding, and one RPC helper.
 * Written only against `@moonpool/core`, so it runs on real sockets and in the simulator alike.
 *
 * Every request is one short TCP exchange: connect, send one length-prefixed frame
 * (`FramedConnection`), read the reply frame, close. Each frame carries an FNV-1a checksum of its
 * JSON: the network may corrupt bytes (the simulator's baseline flips bits now and then), and a
 * corrupted `accept` that still parses could make an acceptor accept a value nobody proposed. A
 * frame that fails its checksum is treated as lost, which the protocol tolerates anyway.
 */
import { FramedConnection, IoError, isAbortError, TimeoutError, type Connection, type Providers, decodeChecksummedJson, encodeChecksummedJson, fnv1a32 } from "@moonpool/core";

/** The port every Paxos node listens on in the simulator (production takes it from `--peers`). */
export const PAXOS_PORT = 7000;
/** Node ids are 1..MAX_NODES; a ballot packs (round, node id) into one integer. */
export const MAX_NODES = 15;
const BALLOT_NODE_SLOTS = MAX_NODES + 1;
/**
 * Node-to-node RPC timeouts adapt to the network, like TCP's retransmission timeout: four times
 * the smoothed round trip, doubled after each timeout, within these bounds. A fixed timeout
 * shorter than the round trip would make a slow but healthy network look dead forever.
 */
export const PEER_RPC_TIMEOUT_MIN_MS = 120;
export const PEER_RPC_TIMEOUT_MAX_MS = 2_000;

/** An adaptive timeout: `timeoutMs` follows the round trips `observe` reports. */
export class AdaptiveTimeout {
  private smoothedMs = 0;
  timeoutMs: number;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {
    this.timeoutMs = minMs;
  }

  /** A reply came after `elapsedMs`. */
  answered(elapsedMs: number): void {
    this.smoothedMs = this.smoothedMs === 0 ? elapsedMs : 0.8 * this.smoothedMs + 0.2 * elapsedMs;
    this.timeoutMs = Math.min(this.maxMs, Math.max(this.minMs, 4 * this.smoothedMs));
  }

  /** No reply within the timeout: back off. */
  timedOut(): void {
    this.timeoutMs = Math.min(this.maxMs, this.timeoutMs * 2);
  }
}

/**
 * A ballot is `round * 16 + nodeId`: totally ordered, and unique as long as a node never uses a
 * round twice (which is why the round is persisted). 0 means "none".
 */
export type Ballot = number;

export function makeBallot(round: number, nodeId: number): Ballot {
  return round * BALLOT_NODE_SLOTS + nodeId;
}
export function ballotRound(ballot: Ballot): number {
  return Math.floor(ballot / BALLOT_NODE_SLOTS);
}
export function ballotNode(ballot: Ballot): number {
  return ballot % BALLOT_NODE_SLOTS;
}
export function formatBallot(ballot: Ballot): string {
  return ballot === 0 ? "none" : `${ballotRound(ballot)}.${ballotNode(ballot)}`;
}

/** One accepted proposal as a promise reports it: `[slot, ballot, value]`. */
export type AcceptedEntry = readonly [slot: number, ballot: Ballot, value: string];

export type Request =
  /** Phase 1a for every slot from `fromSlot` on (multi-Paxos: one prepare covers the log's tail). */
  | { readonly type: "prepare"; readonly ballot: Ballot; readonly fromSlot: number }
  /** Phase 2a for one slot. */
  | { readonly type: "accept"; readonly ballot: Ballot; readonly slot: number; readonly value: string }
  /** A proposer tells the learners what it saw chosen. */
  | { readonly type: "decide"; readonly slot: number; readonly ballot: Ballot; readonly value: string }
  /** Client: put `value` in the log. The value is its own idempotency key (clients make it unique). */
  | { readonly type: "propose"; readonly value: string }
  /** Client: what this node knows is chosen in `slot`. */
  | { readonly type: "read"; readonly slot: number }
  /** Operator (and the simulation's liveness check): whether this node's acceptor still votes. */
  | { readonly type: "status" };

export type Reply =
  | {
      readonly type: "promise";
      readonly ok: true;
      readonly ballot: Ballot;
      /** What the acceptor had promised before this prepare (whose leadership ends). */
      readonly previous: Ballot;
      readonly accepted: readonly AcceptedEntry[];
    }
  | { readonly type: "promise"; readonly ok: false; readonly promised: Ballot }
  | { readonly type: "accepted"; readonly ok: boolean; readonly promised: Ballot }
  | { readonly type: "decided" }
  | {
      readonly type: "proposed";
      readonly ok: true;
      readonly slot: number;
      readonly ballot: Ballot;
      /** The value was already known chosen: this is a retry's answer, nothing new was proposed. */
      readonly already: boolean;
    }
  /**
   * `not-voting`: this node's disk was damaged, it neither votes nor proposes any more (ask another
   * node; nothing was proposed).
   */
  | { readonly type: "proposed"; readonly ok: false; readonly reason: "no-quorum" | "busy" | "retry" | "not-voting" }
  | { readonly type: "read"; readonly slot: number; readonly value: string | null }
  | { readonly type: "status"; readonly node: number; readonly voting: boolean };

/** FNV-1a over bytes (the acceptor log checksums its records with it too). */
export const fnv1a = fnv1a32;

/** `[checksum u32 LE][JSON]` (see `encodeChecksummedJson` in @moonpool/core). */
export function encodeMessage(message: Request | Reply): Uint8Array {
  return encodeChecksummedJson(message);
}

/** The message of a frame, or `null` when it was corrupted on the way (a lost message). */
export function decodeMessage<T extends Request | Reply>(frame: Uint8Array): T | null {
  return decodeChecksummedJson<T>(frame);
}

/** Whether `error` is the network (or shutdown) failing, as opposed to a bug in this code. */
export function isNetworkTrouble(error: unknown): boolean {
  return error instanceof IoError || error instanceof TimeoutError || isAbortError(error);
}

/**
 * One request/reply exchange with `addr`, or `null` when the peer did not answer: refused, reset,
 * corrupted, or silent for `timeoutMs` (stalled or partitioned). Callers treat every one of them
 * as a lost message. The connection is closed on every path, a late connect included, so nothing
 * stays open after a timeout (an open socket would keep a production process alive).
 */
export async function call(io: Providers, addr: string, request: Request, timeoutMs: number): Promise<Reply | null> {
  let conn: FramedConnection | null = null;
  let abandoned = false;
  const exchange = async (): Promise<Reply | null> => {
    const raw: Connection = await io.network.connect(addr);
    if (abandoned) {
      await raw.close().catch(() => undefined);
      return null;
    }
    conn = new FramedConnection(raw);
    await conn.send(encodeMessage(request));
    const frame = await conn.recv();
    return frame === null ? null : decodeMessage<Reply>(frame);
  };
  const attempt = exchange();
  try {
    return await io.time.timeout(timeoutMs, attempt);
  } catch (error) {
    if (isNetworkTrouble(error)) return null;
    throw error;
  } finally {
    abandoned = true;
    // The exchange may still be pending (timeout): its own rejection must not go unhandled.
    attempt.catch(() => undefined);
    const open = conn as FramedConnection | null;
    if (open !== null) await open.close().catch(() => undefined);
  }
}
