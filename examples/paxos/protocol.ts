/**
 * The wire protocol of the Paxos example: ballots, messages, and the `Paxos` service that carries
 * them over the transport layer of `@moonpool/core`, so it runs on real sockets and in the
 * simulator alike. The transport keeps one connection per peer and checks every frame with
 * CRC-32C: a corrupted frame drops the connection instead of reaching the protocol (a corrupted
 * `accept` that still parsed could make an acceptor accept a value nobody proposed).
 *
 * Each message has one delivery mode, chosen in `ask` and `announce` (the README says why).
 */
import {
  ApplicationError,
  defineService,
  IoError,
  isAbortError,
  SerializationError,
  TimeoutError,
  TransportError,
  fnv1a32,
  type ServiceStub,
} from "@moonpool/core";

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

/** FNV-1a over bytes (the acceptor log checksums its records with it). */
export const fnv1a = fnv1a32;

/** One kind of request, by its `type`. */
export type RequestMessage<T extends Request["type"]> = Extract<Request, { readonly type: T }>;
/** One kind of reply, by its `type`. */
export type ReplyMessage<T extends Reply["type"]> = Extract<Reply, { readonly type: T }>;

/**
 * The node's service. `null` from `prepare` or `accept` means "no vote": the acceptor could not
 * make its answer durable, or its log was damaged (it votes no more).
 */
export interface Paxos {
  prepare(request: RequestMessage<"prepare">): Promise<ReplyMessage<"promise"> | null>;
  accept(request: RequestMessage<"accept">): Promise<ReplyMessage<"accepted"> | null>;
  decide(request: RequestMessage<"decide">): Promise<void>;
  propose(request: RequestMessage<"propose">): Promise<ReplyMessage<"proposed">>;
  read(request: RequestMessage<"read">): Promise<ReplyMessage<"read">>;
  status(request: RequestMessage<"status">): Promise<ReplyMessage<"status">>;
}

export const PaxosService = defineService<Paxos>("paxos", {
  prepare: true,
  accept: true,
  decide: true,
  propose: true,
  read: true,
  status: true,
});

/** Whether `error` is the network, the disk (or shutdown) failing, as opposed to a bug in this code. */
export function isNetworkTrouble(error: unknown): boolean {
  return error instanceof IoError || error instanceof TimeoutError || isAbortError(error);
}

/**
 * Whether a call's error means "no answer" (not connected, reset, crashed, silent past the
 * timeout, shut down with the request in hand). A handler that threw (`ApplicationError`) or a
 * message that did not encode is a bug in this code, and must surface.
 */
function isNoAnswer(error: unknown): boolean {
  if (error instanceof ApplicationError || error instanceof SerializationError) return false;
  return error instanceof TransportError || isAbortError(error);
}

/**
 * One request to a node and its reply, or `null` when there was none within `timeoutMs`. Callers
 * treat every kind of silence as a lost message. The delivery mode is per message:
 * - `prepare`, `accept`: at most once (`tryGetReply`). Paxos tolerates a lost phase message, and a
 *   proposer that misses a majority starts a new round with a higher ballot, so re-sending an old
 *   ballot's message on a new connection buys nothing.
 * - `propose`, `read`, `status`: at least once (`getReply`), re-sent on a new connection within the
 *   timeout. Safe because each is idempotent: reads change nothing, and a proposal's value is its own
 *   idempotency key (a node that knows the value is chosen answers with its slot, `already`).
 */
export async function ask(stub: ServiceStub<Paxos>, request: Request, timeoutMs: number): Promise<Reply | null> {
  const options = { timeoutMs };
  try {
    switch (request.type) {
      case "prepare":
        return await stub.prepare.tryGetReply(request, options);
      case "accept":
        return await stub.accept.tryGetReply(request, options);
      case "propose":
        return await stub.propose.getReply(request, options);
      case "read":
        return await stub.read.getReply(request, options);
      case "status":
        return await stub.status.getReply(request, options);
      case "decide":
        throw new TypeError("ask(): 'decide' has no reply; use announce()");
    }
  } catch (error) {
    if (isNoAnswer(error)) return null;
    throw error;
  }
}

/**
 * `decide` is fire and forget (`send`): a learner that misses it learns the slot later, when it
 * leads a phase 1 that reports the accepted value, so waiting for an acknowledgement buys nothing.
 */
export function announce(stub: ServiceStub<Paxos>, request: RequestMessage<"decide">): void {
  try {
    stub.decide.send(request);
  } catch (error) {
    // A full queue (the peer has been unreachable for long) loses the announcement like the network would.
    if (!isNoAnswer(error)) throw error;
  }
}
