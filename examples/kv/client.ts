/**
 * The client side of the store: ABD quorum reads and writes (Attiya, Bar-Noy, Dolev). A write
 * reads the highest timestamp from a majority, then stores its value under a higher one on a
 * majority. A read takes the newest version a majority holds and writes it back to a majority
 * before returning it, so no later read can return anything older. Any two majorities share a
 * replica, which is what makes every operation appear to happen at one instant.
 */
import { assertSometimes, type Providers, type ServiceStub, type Transport } from "@moonpool/core";
import {
  compareTs,
  KV_PORT,
  KvService,
  request,
  ZERO_TS,
  type Kv,
  type Reply,
  type Request,
  type Timestamp,
} from "./protocol.ts";

export interface KvClientOptions {
  /**
   * Plants a classic bug: reads are served by one replica (the first that answers), with no
   * quorum and no write-back, as a follower serving reads without a lease would.
   */
  readonly bug?: "stale-read";
}

/** Not enough replicas answered: the operation did not complete. */
export class QuorumUnavailable extends Error {
  override readonly name = "QuorumUnavailable";
  constructor(
    readonly phase: "read" | "write",
    readonly answers: number,
  ) {
    super(`only ${answers} replica(s) answered the ${phase} phase; a majority is needed`);
  }
}

export class KvClient {
  private readonly majority: number;
  private readonly replicas: readonly ServiceStub<Kv>[];

  constructor(
    private readonly id: string,
    /** Carries the requests: one connection per replica, shared by every client of the transport. */
    transport: Transport,
    /** IPs of every replica. */
    replicaIps: readonly string[],
    private readonly options: KvClientOptions = {},
  ) {
    this.majority = Math.floor(replicaIps.length / 2) + 1;
    this.replicas = replicaIps.map((ip) => transport.stub(KvService, `${ip}:${KV_PORT}`));
  }

  /** The value of `key`, or `null` when it was never written. */
  async get(io: Providers, key: string): Promise<string | null> {
    if (this.options.bug === "stale-read") {
      const first = io.random.randomRange(0, this.replicas.length);
      for (let k = 0; k < this.replicas.length; k++) {
        const reply = await request(this.replicas[(first + k) % this.replicas.length]!, { type: "read", key });
        if (reply?.type === "read") return reply.value;
      }
      throw new QuorumUnavailable("read", 0);
    }
    const newest = await this.readPhase(key);
    await this.writePhase(key, newest.ts, newest.value);
    return newest.value;
  }

  /**
   * Stores `value`. A `QuorumUnavailable` from the read phase means nothing was written; from
   * the write phase, the value may or may not have been stored.
   */
  async put(key: string, value: string): Promise<void> {
    const newest = await this.readPhase(key);
    await this.writePhase(key, [newest.ts[0] + 1, this.id], value);
  }

  private async readPhase(key: string): Promise<{ ts: Timestamp; value: string | null }> {
    const replies = await this.broadcast({ type: "read", key });
    const reads = replies.filter((r): r is Extract<Reply, { type: "read" }> => r?.type === "read");
    if (reads.length < this.majority) throw new QuorumUnavailable("read", reads.length);
    let newest: { ts: Timestamp; value: string | null } = { ts: ZERO_TS, value: null };
    for (const r of reads) if (compareTs(r.ts, newest.ts) > 0) newest = r;
    assertSometimes(
      reads.some((r) => compareTs(r.ts, newest.ts) < 0),
      "a quorum read found a replica behind",
    );
    return newest;
  }

  private async writePhase(key: string, ts: Timestamp, value: string | null): Promise<void> {
    const replies = await this.broadcast({ type: "write", key, ts, value });
    const acks = replies.filter((r) => r?.type === "written").length;
    if (acks < this.majority) throw new QuorumUnavailable("write", acks);
  }

  /** Asks every replica at once and waits for each answer or its timeout. */
  private broadcast(message: Request): Promise<(Reply | null)[]> {
    return Promise.all(this.replicas.map((replica) => request(replica, message)));
  }
}
