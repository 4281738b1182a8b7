/**
 * A member of the room, written as a production client would: a `ws` WebSocket that reconnects
 * with a jittered backoff (`setTimeout`, `Math.random`), resumes from the last message it saw, and
 * drops a connection that stopped sending pings. It posts during the chaos window, then waits until
 * it has caught up with the room. Every message it sees is checked.
 */
import { assertAlways, assertSometimes, type SimContext, type Workload } from "@moonpool/sim";
import { randomFillSync } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { WebSocket } from "ws";
import { CORRUPT_CLOSE_CODE, decode, encode, resumeQuery, type ServerFrame } from "./frames.ts";
import { HEARTBEAT_MS, ROOM_PORT } from "./room.ts";

export const POSTS_PER_MEMBER = 15;
/** After the chaos window a member must have caught up with the room within this much simulated time. */
export const CATCH_UP_WITHIN_MS = 15_000;
export const HANDSHAKE_TIMEOUT_MS = 1_000;

/** The members of one seed that have caught up (the referee ends the seed when all have). */
export class Roster {
  readonly caughtUp = new Set<string>();
}

export class Member implements Workload {
  readonly name: string;
  /** The room's life this member knows (a restarted server starts a new one) and the last message seen. */
  private epoch = "";
  private lastSeq = 0;
  /** The room's head announced by the current connection's welcome (-1 before it arrived). */
  private announcedHead = -1;
  private socket: WebSocket | null = null;
  private reconnects = 0;
  private stopping = false;

  constructor(
    index: number,
    private readonly chaosMs: number,
    private readonly roster: Roster,
  ) {
    this.name = `member-${index}`;
  }

  async run(ctx: SimContext): Promise<void> {
    const host = ctx.topology.ipsInGroup("room")[0]!;
    ctx.shutdown.addEventListener(
      "abort",
      () => {
        this.stopping = true;
        this.socket?.close(1000, "bye");
      },
      { once: true },
    );
    await sleep(50); // the server's bind latency
    const connection = this.stayConnected(host);
    for (let i = 0; i < POSTS_PER_MEMBER && ctx.time.now() < this.chaosMs; i++) {
      await sleep(20 + Math.random() * 150);
      // A post made while disconnected is lost, as a chat app without an outbox would lose it.
      if (this.socket?.readyState === WebSocket.OPEN)
        this.socket.send(encode({ type: "post", from: this.name, text: `${this.name} #${i}` }));
    }
    if (ctx.time.now() < this.chaosMs) await sleep(this.chaosMs - ctx.time.now());
    const deadlineMs = this.chaosMs + CATCH_UP_WITHIN_MS;
    while (!this.caughtUp() && ctx.time.now() < deadlineMs && !this.stopping) await sleep(100);
    if (!this.stopping) {
      assertAlways(this.caughtUp(), "after the chaos a member catches up with the room", {
        member: this.name,
        lastSeq: this.lastSeq,
        head: this.announcedHead,
      });
      assertSometimes(this.reconnects > 0, "a member caught up after reconnecting");
      this.roster.caughtUp.add(this.name);
    }
    await connection;
  }

  private caughtUp(): boolean {
    return this.socket?.readyState === WebSocket.OPEN && this.announcedHead >= 0 && this.lastSeq >= this.announcedHead;
  }

  /** Connects, and reconnects after every close until the simulation shuts down. */
  private async stayConnected(host: string): Promise<void> {
    while (!this.stopping) {
      const code = await this.connectOnce(host);
      if (this.stopping) return;
      assertSometimes(code === 1006, "a member's connection broke (1006)");
      this.reconnects++;
      await sleep(100 + Math.random() * 200);
    }
  }

  /** One connection, until it closes; resolves with the close code. */
  private connectOnce(host: string): Promise<number> {
    return new Promise((resolve) => {
      const url = `ws://${host}:${ROOM_PORT}/room?${resumeQuery(this.epoch, this.lastSeq)}`;
      const socket = new WebSocket(url, {
        // Without it a handshake whose request or answer was lost (a corrupted header) waits forever.
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
        // By default ws masks frames from an 8 KiB pool kept at module level, refilled from whichever
        // process empties it, so one seed's draws would depend on the seeds before it: mask each
        // frame from this process's own randomness instead.
        generateMask: (mask) => randomFillSync(mask),
      });
      this.socket = socket;
      this.announcedHead = -1;
      let pingTimer: ReturnType<typeof setTimeout> | undefined;
      // ws's documented client heartbeat: no ping for a while means the server or the path is gone.
      const expectPing = () => {
        clearTimeout(pingTimer);
        pingTimer = setTimeout(() => socket.terminate(), 2 * HEARTBEAT_MS + 200);
      };
      socket.on("open", expectPing);
      socket.on("ping", expectPing);
      socket.on("message", (data) => {
        const frame = decode<ServerFrame>(data);
        if (frame === null) return socket.close(CORRUPT_CLOSE_CODE, "corrupted frame");
        this.receive(frame);
      });
      socket.on("error", () => {}); // followed by 'close'
      socket.on("close", (code) => {
        clearTimeout(pingTimer);
        if (this.socket === socket) this.socket = null;
        resolve(code);
      });
    });
  }

  private receive(frame: ServerFrame): void {
    if (frame.type === "welcome") {
      if (frame.epoch !== this.epoch) {
        // A new life of the room (the server restarted): its history starts again from 1.
        assertSometimes(this.epoch !== "", "a member found the room restarted");
        this.epoch = frame.epoch;
        this.lastSeq = 0;
      }
      this.announcedHead = frame.head;
      return;
    }
    assertAlways(frame.seq === this.lastSeq + 1, "a member sees every message of the room once, in order", {
      member: this.name,
      expected: this.lastSeq + 1,
      got: frame.seq,
    });
    this.lastSeq = frame.seq;
    assertSometimes(frame.from === this.name, "a member saw its own post in the room");
  }
}

/** Ends the seed once every member has caught up (or the catch-up time is over). */
export class Referee implements Workload {
  readonly name = "referee";
  constructor(
    private readonly chaosMs: number,
    private readonly members: number,
    private readonly roster: Roster,
  ) {}

  async run(ctx: SimContext): Promise<void> {
    await ctx.time.sleep(this.chaosMs);
    const endMs = this.chaosMs + CATCH_UP_WITHIN_MS + 1_000;
    while (this.roster.caughtUp.size < this.members && ctx.time.now() < endMs) await ctx.time.sleep(100);
  }
}
