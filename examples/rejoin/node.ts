/**
 * A membership view kept by heartbeats, written only against `@moonpool/core`: every node pings
 * its peers, marks a peer down after a silence of `SUSPECT_AFTER_MS`, and up again once it hears
 * from it. Safety has nothing to say here (a view is never wrong, only late); what matters is
 * that once the network heals every node sees every peer again, which is a liveness property.
 *
 * The planted bug `never-rejoin` evicts a peer for good once it was marked down (a tombstone that
 * is never cleared), so a node cut off by a partition never rejoins the others' views.
 */
import { defineService, Transport, TransportError, type NodeContext } from "@moonpool/core";

export const MEMBERSHIP_PORT = 7200;
const PING_INTERVAL_MS = 100;
const PING_TIMEOUT_MS = 100;
export const SUSPECT_AFTER_MS = 500;

export interface Membership {
  ping(request: { readonly from: string }): Promise<{ readonly from: string }>;
}

export const MembershipService = defineService<Membership>("membership", { ping: true });

export interface MembershipOptions {
  readonly bug?: "never-rejoin";
}

export class MembershipNode {
  private readonly lastSeen = new Map<string, number>();
  private readonly up = new Set<string>();
  private readonly evicted = new Set<string>();

  constructor(
    /** Addresses (`ip:port`) of the other nodes. */
    private readonly peers: readonly string[],
    private readonly options: MembershipOptions = {},
  ) {}

  /** Serves until `ctx.shutdown` aborts. */
  async run(ctx: NodeContext): Promise<void> {
    const me = `${ctx.myIp}:${MEMBERSHIP_PORT}`;
    const transport = new Transport(ctx);
    await transport.listen(me);
    transport.serve(MembershipService, {
      ping: async (request) => {
        this.heard(ctx, request.from);
        return { from: me };
      },
    });
    // Every peer starts up: the view is whole until a silence says otherwise.
    for (const peer of this.peers) {
      this.up.add(peer);
      this.lastSeen.set(peer, ctx.time.now());
    }
    this.publish(ctx);
    const stubs = this.peers.map((peer) => ({ peer, stub: transport.stub(MembershipService, peer) }));
    while (!ctx.shutdown.aborted) {
      await ctx.time.sleep(PING_INTERVAL_MS);
      for (const { peer, stub } of stubs) {
        if (this.evicted.has(peer)) continue;
        ctx.task.spawn("ping", async () => {
          try {
            const reply = await stub.ping.tryGetReply({ from: me }, { timeoutMs: PING_TIMEOUT_MS });
            this.heard(ctx, reply.from);
          } catch (error) {
            // A lost ping is what this protocol is for; anything else is a bug in this file.
            if (!(error instanceof TransportError)) throw error;
          }
        });
      }
      this.expire(ctx);
    }
    await transport.close();
  }

  private heard(ctx: NodeContext, peer: string): void {
    if (this.evicted.has(peer)) return;
    this.lastSeen.set(peer, ctx.time.now());
    if (!this.up.has(peer)) {
      this.up.add(peer);
      this.publish(ctx);
    }
  }

  private expire(ctx: NodeContext): void {
    const now = ctx.time.now();
    let changed = false;
    for (const peer of [...this.up]) {
      if (now - (this.lastSeen.get(peer) ?? 0) < SUSPECT_AFTER_MS) continue;
      this.up.delete(peer);
      // The planted bug: a peer once marked down stays out, whatever it says later.
      if (this.options.bug === "never-rejoin") this.evicted.add(peer);
      changed = true;
    }
    if (changed) this.publish(ctx);
  }

  /** The fact the liveness property reads: how many peers this node sees up. */
  private publish(ctx: NodeContext): void {
    ctx.trace.info("view_changed", { up: this.up.size, peers: this.peers.length });
  }
}
