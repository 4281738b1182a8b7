/**
 * A Raft-style leader election among a fixed set of nodes, written only against `@moonpool/core`:
 * the same code runs on real sockets (`createNodeContext`) and inside the simulator.
 *
 * Each node is a follower until its randomized election timeout expires without word from a
 * leader; it then becomes a candidate for the next term, votes for itself and asks its peers for
 * their votes. A node votes at most once per term, so at most one candidate per term can gather a
 * majority. The winner announces itself with heartbeats, which keep followers from campaigning.
 *
 * Nodes talk through the transport layer: one `Election` service (vote, heartbeat, status), one
 * resilient connection per peer, CRC-32C-checked frames (a corrupted frame drops the connection
 * instead of reaching the protocol). Every call is at most once with a timeout (`tryGetReply`): a
 * lost vote or heartbeat is harmless, and the protocol re-asks on its own schedule anyway.
 */
import {
  assertSometimes,
  assertSometimesGreaterThan,
  buggifyWithProb,
  defineService,
  Transport,
  TransportError,
  type NodeContext,
  type Providers,
  type ServiceStub,
  type TaskScope,
} from "@moonpool/core";

export const ELECTION_PORT = 7100;
/** How often the main loop wakes up to check its timers. */
const TICK_MS = 10;
const HEARTBEAT_INTERVAL_MS = 50;
/** Randomized per wait, so that one node usually times out well before the others (Raft §5.2). */
const ELECTION_TIMEOUT_MS: readonly [number, number] = [150, 300];
/** Shorter than the election timeout: a silent peer must not hold a campaign past the next one. */
const RPC_TIMEOUT_MS = 100;

export type Role = "follower" | "candidate" | "leader";

export interface VoteRequest {
  readonly term: number;
  readonly candidate: string;
}

export interface Election {
  vote(request: VoteRequest): Promise<{ readonly term: number; readonly granted: boolean }>;
  heartbeat(request: { readonly term: number; readonly leader: string }): Promise<{ readonly term: number }>;
  status(request: null): Promise<{ readonly term: number; readonly role: Role; readonly leader: string | null }>;
}

export const ElectionService = defineService<Election>("leader-election", {
  vote: true,
  heartbeat: true,
  status: true,
});

export interface ElectionOptions {
  /** Plants a classic bug: a follower that already voted in this term votes again for another candidate. */
  readonly bug?: "vote-twice";
}

/**
 * The reply, or `null` when the peer did not answer in time: not connected, reset (crashed), or
 * silent for `RPC_TIMEOUT_MS` (stalled or partitioned). The protocol treats all of them as a lost
 * message, which it must tolerate anyway.
 */
export async function ask<A>(call: (options: { timeoutMs: number }) => Promise<A>): Promise<A | null> {
  try {
    return await call({ timeoutMs: RPC_TIMEOUT_MS });
  } catch (error) {
    // Only transport trouble means "no answer"; anything else is a bug in this file and must surface.
    if (error instanceof TransportError) return null;
    throw error;
  }
}

export class ElectionNode {
  private term = 0;
  private votedFor: string | null = null;
  private role: Role = "follower";
  private leader: string | null = null;
  private electionDeadline = 0;
  private nextHeartbeatAt = 0;
  private me = "";
  private stubs: ReadonlyMap<string, ServiceStub<Election>> = new Map();

  constructor(
    /** Addresses (`ip:port`) of the other nodes. */
    private readonly peers: readonly string[],
    private readonly options: ElectionOptions = {},
  ) {}

  private get majority(): number {
    return Math.floor((this.peers.length + 1) / 2) + 1;
  }

  /** Serves until `ctx.shutdown` aborts; network trouble never ends it. */
  async run(ctx: NodeContext): Promise<void> {
    this.me = ctx.myIp;
    const transport = new Transport(ctx);
    await transport.listen(`${ctx.myIp}:${ELECTION_PORT}`);
    transport.serve(ElectionService, {
      vote: async (request) => this.vote(ctx, request),
      heartbeat: async (request) => this.heartbeat(ctx, request),
      status: async () => ({ term: this.term, role: this.role, leader: this.leader }),
    });
    this.stubs = new Map(this.peers.map((peer) => [peer, transport.stub(ElectionService, peer)]));
    this.resetElectionTimer(ctx);
    while (!ctx.shutdown.aborted) {
      await ctx.time.sleep(TICK_MS);
      this.tick(ctx);
    }
    await transport.close();
  }

  private tick(ctx: NodeContext): void {
    const now = ctx.time.now();
    if (this.role === "leader") {
      if (now < this.nextHeartbeatAt) return;
      this.nextHeartbeatAt = now + HEARTBEAT_INTERVAL_MS;
      // Simulation only: hold the next heartbeat back, as a busy event loop or a congested link
      // would. Followers then give up on a leader that still believes it leads: terms advance,
      // candidates collide and a deposed leader must step down. Never fires in production.
      if (buggifyWithProb("election: leader heartbeat delayed", 0.05)) {
        this.nextHeartbeatAt = now + ctx.random.randomRange(150, 600);
      }
      ctx.task.spawn("heartbeats", () => this.sendHeartbeats(this.term));
    } else if (now >= this.electionDeadline) {
      // Become a candidate synchronously, so no request handled meanwhile sees a half-started term.
      this.term += 1;
      this.role = "candidate";
      this.votedFor = this.me;
      this.leader = null;
      this.resetElectionTimer(ctx); // if this campaign fails, the next one starts on its own
      assertSometimesGreaterThan(this.term, 1, "elections went past the first term");
      ctx.trace.info("campaign_started", { term: this.term });
      ctx.task.spawn("campaign", (scope) => this.campaign(scope, this.term));
    }
  }

  private async campaign(io: TaskScope, term: number): Promise<void> {
    let votes = 1; // our own
    let won = false;
    await Promise.all(
      [...this.stubs.values()].map(async (peer) => {
        const reply = await ask((options) => peer.vote.tryGetReply({ term, candidate: this.me }, options));
        if (reply === null || this.adoptTerm(reply.term)) return;
        // Count only votes for the campaign still running: a late vote for an old term is no vote.
        if (!reply.granted || this.role !== "candidate" || this.term !== term) return;
        votes += 1;
        if (votes >= this.majority) {
          won = true;
          this.role = "leader";
          this.leader = this.me;
          this.nextHeartbeatAt = 0; // announce ourselves on the next tick
          io.trace.info("leader_elected", { term, leader: this.me });
        }
      }),
    );
    assertSometimes(won, "a candidate won an election");
    assertSometimes(!won, "an election ended without a majority");
  }

  private async sendHeartbeats(term: number): Promise<void> {
    await Promise.all(
      [...this.stubs.values()].map(async (peer) => {
        const reply = await ask((options) => peer.heartbeat.tryGetReply({ term, leader: this.me }, options));
        // A follower that moved on to a newer term deposes us (our heartbeats came too late).
        if (reply !== null) this.adoptTerm(reply.term);
      }),
    );
  }

  private vote(io: NodeContext, request: VoteRequest): { term: number; granted: boolean } {
    this.adoptTerm(request.term);
    assertSometimes(this.role === "candidate" && request.term === this.term, "a term had more than one candidate");
    // The rule that makes split brain impossible: one vote per term. The planted bug only
    // checks "did I vote for myself?", so a follower that voted grants a second candidate too.
    const free =
      this.options.bug === "vote-twice"
        ? this.votedFor !== this.me
        : this.votedFor === null || this.votedFor === request.candidate;
    const granted = request.term === this.term && free;
    if (granted) {
      // The story a replay tells: who voted for whom in which term.
      io.trace.info("vote_granted", { term: request.term, candidate: request.candidate });
      this.votedFor = request.candidate;
      this.resetElectionTimer(io); // give the candidate time to win before we run ourselves
    }
    return { term: this.term, granted };
  }

  private heartbeat(io: Providers, request: { readonly term: number; readonly leader: string }): { term: number } {
    this.adoptTerm(request.term);
    if (request.term === this.term) {
      // Someone won this term: a candidate of the same term stands down.
      this.role = "follower";
      this.leader = request.leader;
      this.resetElectionTimer(io);
    }
    return { term: this.term };
  }

  /** Raft's first rule: a newer term makes us a follower of that term. Returns true if it did. */
  private adoptTerm(term: number): boolean {
    if (term <= this.term) return false;
    assertSometimes(this.role === "leader", "a deposed leader stepped down");
    this.term = term;
    this.votedFor = null;
    this.role = "follower";
    this.leader = null;
    return true;
  }

  private resetElectionTimer(io: Providers): void {
    const [lo, hi] = ELECTION_TIMEOUT_MS;
    this.electionDeadline = io.time.now() + io.random.randomRange(lo, hi);
  }
}
