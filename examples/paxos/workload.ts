/**
 * The driver of one seed: clients that use the replicated log the way an application would, a
 * reference model of what they were told, and a recovery tail that checks liveness.
 *
 * Operation alphabet (stable ids, swarmed per seed with `swarmOperations()`):
 * - PROPOSE: put a fresh value in the log, retrying on other nodes when a node does not answer;
 * - READ: ask a node what it knows is chosen in a slot;
 * - RETRY: propose again a value whose outcome was ambiguous (the same value: it is its own
 *   idempotency key, so a node that knows it is chosen answers with its slot).
 *
 * The reference model (`LogModel`) is not a copy of Paxos: it records what the clients proposed
 * and what the cluster told them, and checks that those answers fit together. A request that got
 * no definite answer is ambiguous: the value may or may not be in the log, and the model accepts
 * both outcomes until a later answer (a read, a retry) settles it.
 *
 * After the chaos window the clients stop, the environment heals, and the recovery tail proposes
 * fresh values that must all be decided: safety is the invariants' job, this is liveness.
 */
import {
  assertAlways,
  assertSometimes,
  assertSometimesAll,
  assertSometimesGreaterThan,
  swarmOpEnabled,
  Transport,
  type ServiceStub,
  type SimContext,
  type TaskScope,
  type Tracer,
  type Workload,
} from "@moonpool/sim";
import {
  AdaptiveTimeout,
  ask,
  ballotNode,
  PAXOS_PORT,
  PaxosService,
  type Paxos,
  type Reply,
  type Request,
} from "./protocol.ts";

export const Op = Object.freeze({ Propose: 0, Read: 1, Retry: 2 });
export type OpId = (typeof Op)[keyof typeof Op];
const ALL_OPS: readonly OpId[] = [Op.Propose, Op.Read, Op.Retry];

/**
 * A client waits at least this long for an answer (a proposer may need two phases and a retry),
 * more on a slow network: the timeout adapts like the nodes' (`AdaptiveTimeout`).
 */
export const CLIENT_TIMEOUT_MIN_MS = 900;
export const CLIENT_TIMEOUT_MAX_MS = 6_000;
/** Re-sends of one proposal before the client calls it ambiguous... */
export const MAX_CLIENT_RETRIES = 5;
/** ...or once this much time went by since it was first sent (an application's request deadline). */
export const OPERATION_BUDGET_MS = 2_000;
const RETRY_BACKOFF_MS: readonly [number, number] = [20, 120];
const THINK_TIME_MS: readonly [number, number] = [0, 40];
/** Ambiguous proposals the recovery tail retries (bounded: the tail must stay short). */
const MAX_TAIL_RETRIES = 4;
/** After the chaos window: quiet time for the cluster to notice the network healed. */
const HEAL_SETTLE_MS = 300;

export interface PaxosWorkloadOptions {
  /** The group name of the Paxos processes. */
  readonly group: string;
  /** Concurrent clients (they race each other for slots: that is where Paxos earns its keep). */
  readonly clients?: number;
  /** Operations per client during the chaos window (a client also stops when the window ends). */
  readonly opsPerClient?: number;
  /** The chaos window of the builder (`chaosDuration`): clients work inside it, the tail after it. */
  readonly chaosMs: number;
  /** Fresh values the healed cluster must decide. */
  readonly tailProposals?: number;
  /** Simulated time the recovery tail may take. */
  readonly tailDeadlineMs?: number;
  /**
   * Re-sends of a proposal to the node it was first sent to (the node the client believes leads)
   * before it fails over to another one, as a client library that reconnects to its leader first
   * does. Default 0: fail over at once. A restarted leader then hears its clients before another
   * node takes over, which is when a proposer that forgot its ballots reuses one.
   */
  readonly leaderRetries?: number;
}

type ProposalState = "pending" | "acked" | "ambiguous";

/** What the clients were told, and the checks that those answers agree. */
export class LogModel {
  readonly proposals = new Map<string, ProposalState>();
  /** Slot -> the value some answer said is chosen there. */
  readonly observed = new Map<number, string>();
  /** Ambiguous proposals a later answer showed decided. */
  resolvedAmbiguous = 0;
  highestSlot = -1;

  propose(value: string): void {
    if (!this.proposals.has(value)) this.proposals.set(value, "pending");
  }

  /** A node said `value` is chosen in `slot`. */
  decided(value: string, slot: number, how: "ack" | "read"): void {
    const previous = this.observed.get(slot);
    assertAlways(previous === undefined || previous === value, "client: a slot never changes its value", {
      slot,
      previous: previous ?? "",
      value,
      how,
    });
    assertAlways(this.proposals.has(value), "client: answers name proposed values", { slot, value });
    if (previous === undefined) this.observed.set(slot, value);
    this.highestSlot = Math.max(this.highestSlot, slot);
    if (this.proposals.get(value) === "ambiguous") this.resolvedAmbiguous += 1;
    if (this.proposals.has(value)) this.proposals.set(value, "acked");
  }

  ambiguous(value: string): void {
    if (this.proposals.get(value) === "pending") this.proposals.set(value, "ambiguous");
  }

  ambiguousValues(): string[] {
    return [...this.proposals].filter(([, state]) => state === "ambiguous").map(([value]) => value);
  }
}

interface ProposeResult {
  readonly ok: boolean;
  readonly depth: number;
}

export class PaxosWorkload implements Workload {
  readonly name = "client";
  readonly model = new LogModel();
  private nodes: ServiceStub<Paxos>[] = [];
  private transport: Transport | null = null;
  /** Distinct leader ballots that answered a client: how often leadership moved. */
  private readonly leaderBallots = new Set<number>();
  private tailDecided = 0;
  private readonly timeout = new AdaptiveTimeout(CLIENT_TIMEOUT_MIN_MS, CLIENT_TIMEOUT_MAX_MS);
  private clients: number;
  private opsPerClient: number;
  private tailProposals: number;
  private readonly tailDeadlineMs: number;

  constructor(private readonly options: PaxosWorkloadOptions) {
    this.clients = options.clients ?? 2;
    this.opsPerClient = options.opsPerClient ?? 30;
    this.tailProposals = options.tailProposals ?? 3;
    this.tailDeadlineMs = options.tailDeadlineMs ?? 8_000;
  }

  async setup(ctx: SimContext): Promise<void> {
    const addresses = ctx.topology.ipsInGroup(this.options.group).map((ip) => `${ip}:${PAXOS_PORT}`);
    const transport = new Transport(ctx);
    this.transport = transport;
    this.nodes = addresses.map((address) => transport.stub(PaxosService, address));
    if (this.nodes.length === 0)
      throw new Error(`no '${this.options.group}' processes: register them with .processes(n, ...)`);
  }

  async run(ctx: SimContext): Promise<void> {
    // The run's sizes, which a shrunk run (`moonpool shrink`) may lower.
    this.clients = ctx.size("clients", this.clients);
    this.opsPerClient = ctx.size("opsPerClient", this.opsPerClient);
    this.tailProposals = ctx.size("tailProposals", this.tailProposals);
    // The builder's window (a shrunk run may shorten it), else the configured one.
    const chaosEnd = ctx.time.now() + (ctx.chaosWindow.durationMs ?? this.options.chaosMs);
    const enabled = ALL_OPS.filter((op) => swarmOpEnabled(op));
    // Proposals drive everything else: a seed without them would test nothing.
    if (!enabled.includes(Op.Propose)) enabled.unshift(Op.Propose);

    const sessions = Array.from({ length: this.clients }, (_, c) =>
      ctx.task.spawn(`client-${c}`, (io) => this.clientSession(io, c, enabled, chaosEnd)),
    );
    for (const session of sessions) await session.join();

    // Recovery tail: the environment stopped injecting faults at chaosEnd; the cluster must now
    // decide new slots on its own.
    const now = ctx.time.now();
    if (now < chaosEnd + HEAL_SETTLE_MS) await ctx.time.sleep(chaosEnd + HEAL_SETTLE_MS - now);
    const tailDeadline = ctx.time.now() + this.tailDeadlineMs;
    for (let i = 0; i < this.tailProposals; i++) {
      const value = `tail-${i}`;
      this.publish(ctx, value);
      let ok = false;
      while (!ok && ctx.time.now() < tailDeadline) {
        ok = (
          await this.proposeWithRetries(ctx, value, ctx.random.randomRange(0, this.nodes.length), "tail", tailDeadline)
        ).ok;
      }
      if (ok) this.tailDecided += 1;
    }
    // Liveness needs a majority of voting acceptors: a node whose disk was damaged stops voting
    // for good (node.ts), and with two of them no quorum can ever form again. Asked only on failure.
    const voting = this.tailDecided === this.tailProposals ? this.nodes.length : await this.votingNodes(ctx);
    assertAlways(
      this.tailDecided === this.tailProposals || voting <= this.nodes.length / 2,
      "the healed cluster decides new slots",
      {
        decided: this.tailDecided,
        proposed: this.tailProposals,
        deadlineMs: this.tailDeadlineMs,
        voting,
      },
    );

    // Ambiguous proposals get one more chance on the healed cluster: each ends up decided (it was
    // in the log all along, or it is added now), which settles what the model could not know.
    for (const value of this.model.ambiguousValues().slice(0, MAX_TAIL_RETRIES)) {
      await this.proposeWithRetries(ctx, value, ctx.random.randomRange(0, this.nodes.length), "retry", tailDeadline);
    }

    // Final live query, while the processes still run: every slot a client was told about reads
    // back the same from every node that knows it.
    for (const [slot] of this.model.observed) {
      for (const node of this.nodes) {
        const reply = await this.request(ctx, node, { type: "read", slot });
        if (reply?.type === "read" && reply.value !== null) this.model.decided(reply.value, slot, "read");
      }
    }
    assertSometimes(this.model.resolvedAmbiguous > 0, "an ambiguous proposal was resolved later");
    await this.transport?.close();
  }

  async check(): Promise<void> {
    // The retained model after the processes stopped: every acknowledged value has its slot.
    for (const [value, state] of this.model.proposals) {
      if (state !== "acked") continue;
      assertAlways([...this.model.observed.values()].includes(value), "client: an acknowledged value has a slot", {
        value,
      });
    }
  }

  /** Nodes that answer that they still vote (an unanswered node counts as voting: it may just be slow). */
  private async votingNodes(ctx: SimContext): Promise<number> {
    let voting = 0;
    for (const node of this.nodes) {
      const reply = await this.request(ctx, node, { type: "status" });
      if (reply?.type !== "status" || reply.voting) voting += 1;
    }
    return voting;
  }

  /** One client: a fixed number of operations, or until the chaos window ends. */
  private async clientSession(
    io: TaskScope,
    client: number,
    enabled: readonly OpId[],
    chaosEnd: number,
  ): Promise<void> {
    let leader = io.random.randomRange(0, this.nodes.length);
    for (let i = 0; i < this.opsPerClient && io.time.now() < chaosEnd; i++) {
      // Two draws per step whatever the operation, so recipes keep their meaning across swarms.
      const op = enabled[io.random.randomRange(0, enabled.length)]!;
      const pick = io.random.random();
      if (op === Op.Propose) {
        const value = `c${client}-${i}`;
        this.publish(io, value);
        // Mostly the node that answered last (a leader), sometimes any node (a competing proposer).
        const target = pick % 16 === 0 ? pick % this.nodes.length : leader;
        const result = await this.proposeWithRetries(io, value, target, "propose", io.time.now() + OPERATION_BUDGET_MS);
        if (result.ok) leader = this.lastLeader ?? leader;
      } else if (op === Op.Retry) {
        const ambiguous = this.model.ambiguousValues();
        if (ambiguous.length > 0) {
          const value = ambiguous[pick % ambiguous.length]!;
          const result = await this.proposeWithRetries(
            io,
            value,
            pick % this.nodes.length,
            "retry",
            io.time.now() + OPERATION_BUDGET_MS,
          );
          assertSometimes(result.ok, "an ambiguous proposal was retried to an answer");
        }
      } else {
        const slot = pick % (this.model.highestSlot + 2);
        const reply = await this.request(io, this.nodes[pick % this.nodes.length]!, { type: "read", slot });
        if (reply?.type === "read" && reply.value !== null) this.model.decided(reply.value, slot, "read");
      }
      await io.time.sleep(io.random.randomRange(THINK_TIME_MS[0], THINK_TIME_MS[1]));
    }
  }

  /** `proposed` facts feed the validity invariant: only published values may ever be chosen. */
  private publish(io: { readonly trace: Tracer }, value: string): void {
    this.model.propose(value);
    io.trace.info("proposed", { value });
  }

  private lastLeader: number | null = null;

  /** One request with the client's adaptive timeout. */
  private async request(io: TaskScope | SimContext, node: ServiceStub<Paxos>, request: Request): Promise<Reply | null> {
    const timeoutMs = this.timeout.timeoutMs;
    const start = io.time.now();
    const reply = await ask(node, request, timeoutMs);
    const elapsedMs = io.time.now() - start;
    if (reply !== null) this.timeout.answered(elapsedMs);
    else if (elapsedMs >= timeoutMs) this.timeout.timedOut();
    return reply;
  }

  /**
   * Sends `value` to node `first`, then again while nobody gives a definite answer and the
   * operation's `deadline` allows: to the same node when it asked for a retry, to another one when
   * it did not answer or found no quorum. Without a definite answer the proposal is ambiguous: it
   * may be in the log or not.
   */
  private async proposeWithRetries(
    io: TaskScope | SimContext,
    value: string,
    first: number,
    kind: "propose" | "retry" | "tail",
    deadline: number,
  ): Promise<ProposeResult> {
    const previousLeader = this.lastLeader;
    const previousBallots = this.leaderBallots.size;
    const wasAmbiguous = this.model.proposals.get(value) === "ambiguous";
    let target = first;
    let leaderFailures = 0;
    let oldLeaderUnavailable = false;
    let reply: Reply | null = null;
    let depth = 0;
    for (; depth <= MAX_CLIENT_RETRIES; depth++) {
      if (depth > 0) {
        if (io.time.now() >= deadline) break;
        await io.time.sleep(io.random.randomRange(RETRY_BACKOFF_MS[0], RETRY_BACKOFF_MS[1]));
      }
      reply = await this.request(io, this.nodes[target]!, { type: "propose", value });
      if (reply?.type === "proposed" && reply.ok) break;
      const busy = reply?.type === "proposed" && !reply.ok && (reply.reason === "busy" || reply.reason === "retry");
      if (target === previousLeader && !busy) oldLeaderUnavailable = true;
      // Another node, unless this one only asked us to come back, or it is the leader the client
      // keeps retrying: the one that failed may be partitioned, stalled or deposed.
      if (!busy && target === first && leaderFailures < (this.options.leaderRetries ?? 0)) leaderFailures += 1;
      else if (!busy) target = (target + 1 + io.random.randomRange(0, this.nodes.length - 1)) % this.nodes.length;
    }
    assertSometimesGreaterThan(depth, 2, "deep client retry chain");
    if (reply?.type !== "proposed" || !reply.ok) {
      this.model.ambiguous(value);
      assertSometimesAll("failover made progress", {
        oldLeaderUnavailable,
        newQuorumFormed: false,
        clientCompleted: false,
      });
      return { ok: false, depth };
    }
    this.model.decided(value, reply.slot, "ack");
    assertSometimes(reply.already && kind !== "tail", "a retry found its proposal already decided");
    assertSometimes(wasAmbiguous && reply.already, "an ambiguous proposal turned out to be decided");
    if (!reply.already) {
      this.leaderBallots.add(reply.ballot);
      this.lastLeader = ballotNode(reply.ballot) - 1;
    }
    assertSometimesGreaterThan(this.leaderBallots.size, 4, "repeated ballot changes");
    const newQuorumFormed = this.leaderBallots.size > previousBallots && this.lastLeader !== previousLeader;
    assertSometimesAll("failover made progress", { oldLeaderUnavailable, newQuorumFormed, clientCompleted: true });
    return { ok: true, depth };
  }
}
