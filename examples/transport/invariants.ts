/**
 * The invariant replays the server's `append_block` facts after every step: the log must be a
 * gapless hash chain, every reply a client accepted must match the block at its sequence number,
 * an at-most-once append must run at most once, and a request its client was told was never sent
 * (`ConnectionFailed`) must never run.
 */
import { assertAlways, TraceCursor, type Invariant, type TraceQuery } from "@moonpool/sim";
import { chainHash, GENESIS_HASH } from "./append-log.ts";

function need(value: number | undefined, field: string, event: string): number {
  if (value === undefined) throw new Error(`${event} needs a numeric '${field}'`);
  return value;
}

export class ChainReplayInvariant implements Invariant {
  readonly name = "chain-replay";
  private readonly blocks = new TraceCursor();
  private readonly replies = new TraceCursor();
  private readonly notSent = new TraceCursor();
  private seq = 0;
  private hash = GENESIS_HASH;
  private readonly hashBySeq = new Map<number, number>();
  /** How often each `client:op` ran, and which ones were reported never sent. */
  private readonly runs = new Map<string, number>();
  private readonly neverSent = new Set<string>();

  observe(query: TraceQuery): void {
    for (const event of query.since("append_block", this.blocks)) {
      const seq = need(event.num("seq"), "seq", "append_block");
      const hash = need(event.num("hash"), "hash", "append_block");
      const prevHash = need(event.num("prevHash"), "prevHash", "append_block");
      const digest = need(event.num("digest"), "digest", "append_block");
      const chained = seq === this.seq + 1 && prevHash === this.hash;
      assertAlways(chained, "the server's log is a gapless chain", { seq, expectedSeq: this.seq + 1 });
      assertAlways(hash === chainHash(prevHash, seq, digest), "each block's hash replays", { seq });
      this.seq = seq;
      this.hash = hash;
      this.hashBySeq.set(seq, hash);
      const key = `${event.num("client")}:${event.num("op")}`;
      const runs = (this.runs.get(key) ?? 0) + 1;
      this.runs.set(key, runs);
      if (event.str("mode") === "at-most-once") {
        assertAlways(runs === 1, "an at-most-once append runs at most once", { request: key, runs });
      }
      assertAlways(!this.neverSent.has(key), "a request reported never sent does not run", { request: key });
    }
    for (const event of query.since("reply_received", this.replies)) {
      const seq = need(event.num("seq"), "seq", "reply_received");
      assertAlways(this.hashBySeq.get(seq) === event.num("hash"), "every reply matches the server's log", { seq });
    }
    for (const event of query.since("op_not_sent", this.notSent)) {
      const key = `${event.num("client")}:${event.num("op")}`;
      this.neverSent.add(key);
      assertAlways(!this.runs.has(key), "a request reported never sent does not run", { request: key });
    }
  }

  reset(): void {
    this.blocks.reset();
    this.replies.reset();
    this.notSent.reset();
    this.seq = 0;
    this.hash = GENESIS_HASH;
    this.hashBySeq.clear();
    this.runs.clear();
    this.neverSent.clear();
  }
}
