/**
 * A multi-decree Paxos node (a replicated log of slots): acceptor, proposer and learner in one
 * process, written only against `@moonpool/core`. The same class runs in the simulator
 * (`simulation.ts`) and on real sockets and files (`main.ts`).
 *
 * - Acceptor: promises ballots (one promise covers every slot, as in multi-Paxos) and accepts
 *   proposals. Each change is appended to its log and synced (`acceptor-store.ts`) before the
 *   reply leaves, so a rebooted acceptor never forgets what it told a proposer.
 * - Proposer: a client's `propose(value)` goes to any node. The node becomes leader with a phase 1
 *   (prepare) for every slot from its first unknown one, adopts the highest-ballot value any
 *   promise reports for a slot, and fills slots in order with phase 2 (accept) until the client's
 *   value is chosen. It keeps its ballot for later requests until an acceptor rejects it.
 * - Learner: the proposer that sees a majority accept announces `decide` to the others; `read`
 *   answers what this node knows is chosen.
 * - A node whose log recovery found damage (`acceptor-store.ts`) may have forgotten promises and
 *   accepted values it acknowledged, and its proposer may have forgotten the rounds it used: it
 *   stops voting (prepares and accepts get no answer) and proposing (clients are told
 *   `not-voting`), for good, and stays a learner. Safe; the cluster needs the other two nodes.
 *
 * Facts for the invariants (`invariants.ts`), emitted at the moment they become true:
 * `promised {node, ballot}` and `accepted {node, slot, ballot, value}` when an acceptor answers a
 * proposer, `recovered {node, promised, round, accepted, damaged}` at boot, and `value_chosen {slot,
 * ballot, value, node}` when a proposer counted a majority of accepts.
 *
 * Planted bugs (`PaxosOptions.bug`, never on by default) each remove one rule that Paxos needs.
 */
import {
  assertAlways,
  assertSometimes,
  assertSometimesEach,
  assertSometimesGreaterThan,
  BrokenPromise,
  buggify,
  buggifyWithProb,
  isAbortError,
  Transport,
  type NodeContext,
  type Providers,
  type ServiceStub,
  type Tracer,
} from "@moonpool/core";
import { AcceptorStore, type DurableState, type LogRecord } from "./acceptor-store.ts";
import {
  announce,
  ask,
  ballotNode,
  ballotRound,
  isNetworkTrouble,
  makeBallot,
  AdaptiveTimeout,
  MAX_NODES,
  PaxosService,
  PEER_RPC_TIMEOUT_MAX_MS,
  PEER_RPC_TIMEOUT_MIN_MS,
  type AcceptedEntry,
  type Paxos,
  type Ballot,
  type Reply,
  type ReplyMessage,
  type Request,
  type RequestMessage,
} from "./protocol.ts";

/** What the node's code needs of its context: the providers and a tracer. */
type Io = Providers & { readonly trace: Tracer };

/** The classic Paxos bugs this example can plant. None is on unless asked for. */
export const PAXOS_BUGS = [
  "promise-before-persist",
  "ballot-reuse-after-restart",
  "no-promise-check",
  "ignore-accepted-values",
  "adopt-first-reported-value",
] as const;
export type PaxosBug = (typeof PAXOS_BUGS)[number];

export interface PaxosOptions {
  /**
   * - `promise-before-persist`: the acceptor answers a prepare before its promise is durable: it
   *   writes promises lazily, every `SHUTDOWN_POLL_MS`, so a crash in between forgets a promise
   *   it gave. Needs process reboots to show.
   * - `ballot-reuse-after-restart`: the proposer keeps its round in memory only and counts up from
   *   it, so after a restart it tries again ballots it already used. Needs process reboots to show.
   * - `no-promise-check`: the acceptor accepts a proposal without comparing its ballot with the
   *   one it promised.
   * - `ignore-accepted-values`: the proposer proposes its client's value even when a promise
   *   reported a value already accepted in that slot.
   * - `adopt-first-reported-value`: the proposer adopts the first accepted value a promise reports
   *   for a slot instead of the one with the highest ballot. Wrong only when two promises report
   *   different values for one slot, which takes a sequence: a value accepted by a single acceptor,
   *   a new leader that missed it getting another value chosen, a third leader that hears both.
   */
  readonly bug?: PaxosBug;
}

export interface PaxosConfig {
  /** This node's id, 1..15; `addresses[id - 1]` is its own listen address. */
  readonly id: number;
  /** `ip:port` of every node of the cluster, in id order (this node's included). */
  readonly addresses: readonly string[];
  readonly options?: PaxosOptions;
}

/** How long a proposer keeps trying for one client request before it answers "no-quorum". */
export const PROPOSE_DEADLINE_MS = 600;
/** Phase-1/phase-2 attempts per client request (each failed one starts a new ballot). */
const MAX_ROUNDS_PER_REQUEST = 6;
/** A request that waited this long for the proposer is answered "busy": its client gave up. */
const QUEUED_REQUEST_EXPIRY_MS = 2_000;
/** Random pause after a lost round, so that dueling proposers stop dueling. */
const ROUND_BACKOFF_MS: readonly [number, number] = [5, 60];
/** How often the main loop checks for shutdown (production has no abortable sleep). */
const SHUTDOWN_POLL_MS = 50;
/** A disk that fails at boot is retried this often, then the node gives up and stays down. */
const MAX_RECOVERY_ATTEMPTS = 20;
const RECOVERY_RETRY_MS = 100;
/**
 * "many slots decided": a node knows more than this many chosen slots. About one seed in eight of
 * the campaign gets there (3 s of clients under chaos decide 7 slots at the median; a rebooted
 * node starts its learner from nothing).
 */
const MANY_SLOTS = 12;
/** Quality values of `assertSometimesEach` are clamped to this. */
const QUALITY_MAX = 32_767;

/** A proposer's leadership: a ballot that a majority promised, and what their promises reported. */
interface Leadership {
  readonly ballot: Ballot;
  /** Per slot, the accepted proposal with the highest ballot among the promises. */
  readonly reported: Map<number, { ballot: Ballot; value: string }>;
  /** What this leadership already proposed per slot: one ballot never carries two values for a slot. */
  readonly proposed: Map<number, string>;
}

/** A promise-chain lock: the acceptor and the proposer each handle one request at a time. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

type PhaseOutcome = "won" | "rejected" | "no-quorum";

export class PaxosNode {
  private readonly id: number;
  private readonly addresses: readonly string[];
  private readonly bug: PaxosBug | undefined;
  private readonly majority: number;

  // Acceptor (in memory; the store holds the durable copy).
  private promised: Ballot = 0;
  private readonly accepted = new Map<number, { ballot: Ballot; value: string }>();
  private readonly acceptorLock = new Mutex();
  private store: AcceptorStore | null = null;
  /** The log was damaged: this node neither votes nor proposes any more. */
  private damaged = false;

  // Proposer.
  private round = 0;
  /** The highest ballot any rejection told us about: the next ballot must beat it. */
  private highestSeen: Ballot = 0;
  private leadership: Leadership | null = null;
  private readonly proposerLock = new Mutex();
  /** How long to wait for a peer (adapts to the round trips seen). */
  private readonly peerTimeout = new AdaptiveTimeout(PEER_RPC_TIMEOUT_MIN_MS, PEER_RPC_TIMEOUT_MAX_MS);
  /** Peers (by index) that did not answer their last RPC: the node's view of the fault regime. */
  private readonly silentPeers = new Set<number>();
  /** A client of every node's service, by index (this node's own entry is never used). */
  private stubs: readonly ServiceStub<Paxos>[] = [];

  // Learner.
  private readonly chosen = new Map<number, string>();
  private readonly slotOfValue = new Map<string, number>();
  private firstUnknown = 0;

  constructor(config: PaxosConfig) {
    if (
      !Number.isSafeInteger(config.id) ||
      config.id < 1 ||
      config.id > MAX_NODES ||
      config.id > config.addresses.length
    ) {
      throw new RangeError(
        `PaxosNode: id must be 1..${Math.min(MAX_NODES, config.addresses.length)} (an index into addresses, from 1), got ${config.id}`,
      );
    }
    this.id = config.id;
    this.addresses = config.addresses.slice();
    this.bug = config.options?.bug;
    this.majority = Math.floor(this.addresses.length / 2) + 1;
  }

  get myAddress(): string {
    return this.addresses[this.id - 1]!;
  }

  /** Recovers the durable state, then serves until `ctx.shutdown` aborts. */
  async run(ctx: NodeContext): Promise<void> {
    const opened = await this.openStore(ctx);
    if (opened === null) return; // the disk never came back: this node stays down
    const { store, recovery } = opened;
    this.store = store;
    this.restore(recovery.state);
    ctx.trace.info("recovered", {
      node: this.id,
      promised: this.promised,
      round: this.round,
      accepted: this.accepted.size,
      truncatedBytes: recovery.truncatedBytes,
      damaged: this.damaged ? 1 : 0,
    });
    if (this.damaged) ctx.trace.warn("acceptor_not_voting", { node: this.id, reason: "damaged log" });
    // Boot is a stable observation point: true only after a reboot that found a promise on disk.
    assertSometimes(this.promised > 0, "acceptor recovered persisted state");

    const transport = new Transport(ctx);
    // Served before the listener accepts anything: a request must never find no endpoint here.
    transport.serve(PaxosService, {
      prepare: (request) => this.onPrepare(ctx, request.ballot, request.fromSlot),
      accept: (request) => this.onAccept(ctx, request.ballot, request.slot, request.value),
      decide: async (request) => this.learn(request.slot, request.value),
      propose: (request) =>
        this.onPropose(ctx, request.value).catch((error: unknown) => {
          // A graceful shutdown cut the proposal short: dropped unanswered (the client retries), not failed.
          if (isAbortError(error)) throw new BrokenPromise("the node is shutting down");
          throw error;
        }),
      read: async (request) => this.onRead(request.slot),
      status: async () => ({ type: "status" as const, node: this.id, voting: !this.damaged }),
    });
    await transport.listen(this.myAddress);
    this.stubs = this.addresses.map((address) => transport.stub(PaxosService, address));
    ctx.trace.info("listening", { node: this.id, addr: this.myAddress });
    try {
      while (!ctx.shutdown.aborted) {
        await ctx.time.sleep(SHUTDOWN_POLL_MS);
        if (this.bug === "promise-before-persist") await this.flushPromise(ctx);
      }
    } catch (error) {
      if (!isAbortError(error)) throw error;
    }
    // Requests still in hand are answered `BrokenPromise`, so their clients retry elsewhere at once.
    await transport.close();
    await store.close();
  }

  /** Opens the durable state, retrying a failing disk for a while. */
  private async openStore(ctx: NodeContext): Promise<Awaited<ReturnType<typeof AcceptorStore.open>> | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await AcceptorStore.open(ctx.storage);
      } catch (error) {
        if (!isNetworkTrouble(error)) throw error;
        ctx.trace.warn("recovery_failed", { node: this.id, attempt, error: String(error) });
        if (attempt >= MAX_RECOVERY_ATTEMPTS || ctx.shutdown.aborted) return null;
        await ctx.time.sleep(RECOVERY_RETRY_MS);
      }
    }
  }

  private restore(state: DurableState): void {
    this.damaged = state.damaged;
    this.promised = state.promised;
    for (const [slot, entry] of state.accepted) this.accepted.set(slot, { ...entry });
    // The planted bug forgets the round at every boot, so a restarted proposer reuses ballots.
    this.round = this.bug === "ballot-reuse-after-restart" ? 0 : state.round;
  }

  // --- serving ---------------------------------------------------------------------------------

  /** This node's own acceptor's answer to a phase message (the proposer asks itself without the network). */
  private handlePhase(io: Io, request: RequestMessage<"prepare" | "accept">): Promise<Reply | null> {
    if (request.type === "prepare") return this.onPrepare(io, request.ballot, request.fromSlot);
    return this.onAccept(io, request.ballot, request.slot, request.value);
  }

  private onRead(slot: number): ReplyMessage<"read"> {
    return { type: "read", slot, value: this.chosen.get(slot) ?? null };
  }

  /** A client's proposal: queued behind the proposer's current request. */
  private onPropose(io: Io, value: string): Promise<ReplyMessage<"proposed">> {
    if (this.damaged) return Promise.resolve({ type: "proposed", ok: false, reason: "not-voting" });
    const receivedAt = io.time.now();
    return this.proposerLock.run(() => this.propose(io, value, receivedAt));
  }

  // --- acceptor --------------------------------------------------------------------------------

  /** The planted bug's lazy write: the promise already given, made durable a little later. */
  private async flushPromise(io: NodeContext): Promise<void> {
    await this.acceptorLock.run(async () => {
      if (this.promised > this.store!.durablePromise) await this.persist(io, { t: "promise", ballot: this.promised });
    });
  }

  /** Writes `record` durably; false if the disk failed (then there is no reply to give). */
  private async persist(io: Providers & { trace: Tracer }, record: LogRecord): Promise<boolean> {
    try {
      await this.store!.append(record);
      return true;
    } catch (error) {
      if (!isNetworkTrouble(error)) throw error;
      io.trace.warn("persist_failed", { node: this.id, record: record.t, error: String(error) });
      return false;
    }
  }

  /** Phase 1b. A ballot equal to the promise is promised again (a retransmitted prepare). */
  private onPrepare(io: Io, ballot: Ballot, fromSlot: number): Promise<ReplyMessage<"promise"> | null> {
    if (this.damaged) return Promise.resolve(null); // it may have forgotten what it promised: no vote
    return this.acceptorLock.run(async () => {
      const stale = ballot < this.promised;
      assertSometimes(stale, "stale ballot rejected");
      if (stale) return { type: "promise", ok: false, promised: this.promised };
      const previous = this.promised;
      if (ballot > previous) {
        if (this.bug === "promise-before-persist") {
          // The planted bug, a "group commit" that acknowledges before the commit: the promise is
          // answered now and written by the next flush (`flushPromise`). A crash in between
          // forgets a promise a proposer is already counting on.
          this.promised = ballot;
        } else {
          if (!(await this.persist(io, { t: "promise", ballot }))) return null;
          this.promised = ballot;
        }
      }
      io.trace.info("promised", { node: this.id, ballot });
      const accepted: AcceptedEntry[] = [];
      for (const [slot, entry] of this.accepted) if (slot >= fromSlot) accepted.push([slot, entry.ballot, entry.value]);
      return { type: "promise", ok: true, ballot, previous, accepted };
    });
  }

  /** Phase 2b. */
  private onAccept(io: Io, ballot: Ballot, slot: number, value: string): Promise<ReplyMessage<"accepted"> | null> {
    if (this.damaged) return Promise.resolve(null);
    return this.acceptorLock.run(async () => {
      // The rule that keeps a chosen value chosen; the planted bug skips it.
      const reject = ballot < this.promised && this.bug !== "no-promise-check";
      assertSometimes(reject, "stale ballot rejected");
      if (reject) return { type: "accepted", ok: false, promised: this.promised };
      if (!(await this.persist(io, { t: "accept", ballot, slot, value }))) return null;
      this.promised = Math.max(this.promised, ballot);
      this.accepted.set(slot, { ballot, value });
      io.trace.info("accepted", { node: this.id, slot, ballot, value });
      return { type: "accepted", ok: true, promised: this.promised };
    });
  }

  // --- proposer --------------------------------------------------------------------------------

  /** Puts `value` in the log (or finds it there) and answers the client. */
  private async propose(io: Io, value: string, receivedAt: number): Promise<ReplyMessage<"proposed">> {
    // The client gave up on a request that waited this long; it will retry with the same value.
    if (io.time.now() - receivedAt > QUEUED_REQUEST_EXPIRY_MS) return { type: "proposed", ok: false, reason: "busy" };
    const known = this.slotOfValue.get(value);
    if (known !== undefined) return { type: "proposed", ok: true, slot: known, ballot: 0, already: true };

    // Two phases of round trips must fit, however slow the network is today.
    const deadline = receivedAt + Math.max(PROPOSE_DEADLINE_MS, 3 * this.peerTimeout.timeoutMs);
    let rounds = 0;
    while (rounds < MAX_ROUNDS_PER_REQUEST && io.time.now() < deadline) {
      if (this.leadership === null) {
        const outcome = await this.prepare(io);
        if (outcome !== "won") {
          rounds += 1;
          await io.time.sleep(io.random.randomRange(ROUND_BACKOFF_MS[0], ROUND_BACKOFF_MS[1]));
          continue;
        }
      }
      const lead = this.leadership!;
      const slot = this.firstUnknown;
      // Paxos's second rule: a slot where some promise reported an accepted value gets that value
      // (the highest ballot's), not ours. The planted bug ignores the report.
      const adopted = this.bug === "ignore-accepted-values" ? undefined : lead.reported.get(slot)?.value;
      const proposal = lead.proposed.get(slot) ?? adopted ?? value;
      lead.proposed.set(slot, proposal);

      // Simulation only: a pause between winning phase 1 and sending phase 2, the window in which a
      // competing proposer's prepare overtakes ours (stale ballots, duels, leader changes).
      const pause = buggify("paxos: pause before accept");
      assertSometimes(pause, "accept delayed after prepare");
      if (pause) await io.time.sleep(io.random.randomRange(10, 150));

      const outcome = await this.acceptPhase(io, lead.ballot, slot, proposal);
      if (outcome !== "won") {
        this.leadership = null;
        rounds += 1;
        await io.time.sleep(io.random.randomRange(ROUND_BACKOFF_MS[0], ROUND_BACKOFF_MS[1]));
        continue;
      }
      io.trace.info("value_chosen", { slot, ballot: lead.ballot, value: proposal, node: this.id });
      this.learn(slot, proposal);
      this.announce(slot, lead.ballot, proposal);
      const mine = this.slotOfValue.get(value);
      if (mine !== undefined) {
        // Simulation only: the value is in the log but the client hears "retry", as if the reply
        // had been lost. The client must retry without creating a second, different outcome.
        const lostAck = buggifyWithProb("paxos: decided proposal reported as failed", 0.1);
        assertSometimes(lostAck, "decided proposal reported as failed");
        if (lostAck) return { type: "proposed", ok: false, reason: "retry" };
        return { type: "proposed", ok: true, slot: mine, ballot: lead.ballot, already: false };
      }
    }
    return { type: "proposed", ok: false, reason: "no-quorum" };
  }

  /** Phase 1 for a fresh ballot. On success `this.leadership` holds it. */
  private async prepare(io: Io): Promise<PhaseOutcome> {
    // Past every ballot a rejection reported, and past every round this node ever reserved. The
    // planted bug counts up from its in-memory round only, one round per attempt, and after a
    // restart that count starts again from 0: its early ballots are ballots it already used.
    const round =
      (this.bug === "ballot-reuse-after-restart" ? this.round : Math.max(this.round, ballotRound(this.highestSeen))) +
      1;
    // The round is reserved on disk before it is used: a reboot then never reuses a ballot.
    if (this.bug !== "ballot-reuse-after-restart" && !(await this.persist(io, { t: "round", round })))
      return "no-quorum";
    this.round = round;
    const ballot = makeBallot(round, this.id);
    const fromSlot = this.firstUnknown;
    const replies = await this.gather(
      io,
      this.everyone(),
      { type: "prepare", ballot, fromSlot },
      (r) => r.type === "promise" && r.ok,
    );
    const promises = replies.filter(
      (r): r is Extract<Reply, { type: "promise"; ok: true }> => r.type === "promise" && r.ok,
    );
    for (const r of replies)
      if (r.type === "promise" && !r.ok) this.highestSeen = Math.max(this.highestSeen, r.promised);
    const outcome: PhaseOutcome =
      promises.length >= this.majority
        ? "won"
        : replies.some((r) => r.type === "promise" && !r.ok)
          ? "rejected"
          : "no-quorum";
    this.transition("prepare", outcome);
    if (outcome !== "won") return outcome;

    const reported = new Map<number, { ballot: Ballot; value: string }>();
    let previous: Ballot = 0;
    let conflicting = false;
    for (const promise of promises) {
      previous = Math.max(previous, promise.previous);
      for (const [slot, b, value] of promise.accepted) {
        const best = reported.get(slot);
        if (best !== undefined && best.value !== value) conflicting = true;
        // The highest ballot's value is the only one that may already be chosen; the planted bug
        // keeps whichever report came in first.
        const better =
          this.bug === "adopt-first-reported-value" ? best === undefined : best === undefined || b > best.ballot;
        if (better) reported.set(slot, { ballot: b, value });
      }
    }
    // The dangerous recovery case: a slot where the quorum reports two different values (only the
    // highest ballot's may be chosen already).
    assertSometimes(conflicting, "promises reported conflicting values for a slot");
    // The leadership that ended was someone else's: the cluster moved to a new leader.
    assertSometimes(previous !== 0 && ballotNode(previous) !== this.id, "leader changed");
    this.leadership = { ballot, reported, proposed: new Map() };
    io.trace.debug("leader", { node: this.id, ballot, fromSlot, reported: reported.size });
    return "won";
  }

  /** Phase 2 for one slot. */
  private async acceptPhase(io: Io, ballot: Ballot, slot: number, value: string): Promise<PhaseOutcome> {
    // Simulation only: ask a bare majority (ourselves and one peer) instead of everyone. Correct,
    // and it leaves the third acceptor behind, so later leaders must recover values from fewer copies.
    const bare = buggify("paxos: accept to a bare quorum");
    assertSometimes(bare, "accept sent to a bare quorum");
    const targets = bare ? this.bareQuorum(io) : this.everyone();
    const replies = await this.gather(
      io,
      targets,
      { type: "accept", ballot, slot, value },
      (r) => r.type === "accepted" && r.ok,
    );
    const accepts = replies.filter((r) => r.type === "accepted" && r.ok).length;
    for (const r of replies)
      if (r.type === "accepted" && !r.ok) this.highestSeen = Math.max(this.highestSeen, r.promised);
    const outcome: PhaseOutcome =
      accepts >= this.majority ? "won" : replies.some((r) => r.type === "accepted" && !r.ok) ? "rejected" : "no-quorum";
    this.transition("accept", outcome);
    return outcome;
  }

  /** Indexes of every node, this one first. */
  private everyone(): number[] {
    const me = this.id - 1;
    return [me, ...this.addresses.map((_, i) => i).filter((i) => i !== me)];
  }

  private bareQuorum(io: Providers): number[] {
    const peers = this.everyone().slice(1);
    const chosenPeers: number[] = [];
    while (chosenPeers.length < this.majority - 1) {
      const i = io.random.randomRange(0, peers.length);
      chosenPeers.push(peers.splice(i, 1)[0]!);
    }
    return [this.id - 1, ...chosenPeers];
  }

  /**
   * Sends `request` to `targets` (our own acceptor directly, the others over the network) and
   * resolves with the replies received once `good` ones reach a majority, once a majority is out
   * of reach, or once every target answered or timed out. Stragglers finish on their own. Silence
   * is a `null` reply; an error is a bug in this code and rejects.
   */
  private gather(
    io: Io,
    targets: readonly number[],
    request: RequestMessage<"prepare" | "accept">,
    good: (r: Reply) => boolean,
  ): Promise<Reply[]> {
    return new Promise<Reply[]>((resolve, reject) => {
      const replies: Reply[] = [];
      let pending = targets.length;
      let goods = 0;
      let done = false;
      const settle = (index: number, reply: Reply | null): void => {
        pending -= 1;
        if (index !== this.id - 1) {
          if (reply === null) this.silentPeers.add(index);
          else this.silentPeers.delete(index);
        }
        if (done) return;
        if (reply !== null) {
          replies.push(reply);
          if (good(reply)) goods += 1;
        }
        if (goods >= this.majority || goods + pending < this.majority || pending === 0) {
          done = true;
          resolve(replies.slice());
        }
      };
      for (const index of targets) {
        const answer = index === this.id - 1 ? this.handlePhase(io, request) : this.callPeer(io, index, request);
        answer.then((reply) => settle(index, reply), reject);
      }
    });
  }

  /** One RPC to a peer, feeding the adaptive timeout. */
  private async callPeer(io: Io, index: number, request: Request): Promise<Reply | null> {
    const timeoutMs = this.peerTimeout.timeoutMs;
    const start = io.time.now();
    const reply = await ask(this.stubs[index]!, request, timeoutMs);
    const elapsedMs = io.time.now() - start;
    if (reply !== null) this.peerTimeout.answered(elapsedMs);
    else if (elapsedMs >= timeoutMs) this.peerTimeout.timedOut();
    return reply;
  }

  /** One coarse state per phase outcome and fault regime, ranked by how far the log got. */
  private transition(phase: "prepare" | "accept", outcome: PhaseOutcome): void {
    const silent = this.silentPeers.size;
    const faultRegime = silent === 0 ? "all-peers" : silent < this.majority ? "degraded" : "isolated";
    assertSometimesEach(
      "paxos transition",
      { phase: `${phase}-${outcome}`, faultRegime },
      { decidedSlots: Math.min(this.chosen.size, QUALITY_MAX) },
    );
  }

  // --- learner ---------------------------------------------------------------------------------

  private learn(slot: number, value: string): void {
    const known = this.chosen.get(slot);
    // Local half of agreement: a node is never told two different values for one slot.
    assertAlways(known === undefined || known === value, "a node learns one value per slot", {
      node: this.id,
      slot,
      known: known ?? "",
      value,
    });
    if (known !== undefined) return;
    this.chosen.set(slot, value);
    if (!this.slotOfValue.has(value)) this.slotOfValue.set(value, slot);
    while (this.chosen.has(this.firstUnknown)) this.firstUnknown += 1;
    assertSometimesGreaterThan(this.chosen.size, MANY_SLOTS, "many slots decided");
  }

  /** Tells the other nodes what was chosen (best effort: a node that misses it learns in phase 1). */
  private announce(slot: number, ballot: Ballot, value: string): void {
    for (const index of this.everyone().slice(1)) announce(this.stubs[index]!, { type: "decide", slot, ballot, value });
  }
}
