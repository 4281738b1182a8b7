/**
 * A peer: one Yjs document kept in sync with the other peers through y-protocols messages over
 * the simulated network, written as it would be for real Node (Yjs, y-protocols and lib0 are used
 * unmodified; backoff uses `node:timers/promises` and `Math.random`). Peer i dials every peer after
 * it and accepts the ones before it; on every (re)connection both ends send sync step 1 (their state
 * vector), so whatever a broken connection lost is sent again as step 2.
 */
import { assertSometimes, type Process, type SimContext } from "@moonpool/sim";
import { isAbortError } from "@moonpool/core";
import { setTimeout as sleep } from "node:timers/promises";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as awarenessProtocol from "y-protocols/awareness";
import * as syncProtocol from "y-protocols/sync";
import * as Y from "yjs";
import { FramedConnection } from "./framing.ts";
import { docKey, EDIT_PORT, MESSAGE, SYNC_PORT } from "./protocol.ts";

/** The planted bug: sync step 1 only on the first connection to a peer, never after a reconnection. */
export type YjsBug = "no-resync-on-reconnect";

const MAX_BACKOFF_MS = 800;
const CONNECT_TIMEOUT_MS = 1_000;
const HEARTBEAT_MS = 250;
const IDLE_TIMEOUT_MS = 1_000;

function frame(type: number, write: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  write(encoder);
  return encoding.toUint8Array(encoder);
}

export class YjsPeer implements Process {
  readonly name = "peer";
  // Made in run(), inside the seed: the builder also calls the factory once outside any seed (to
  // learn the group's name), and Awareness starts a timer that would then be a real one.
  private doc!: Y.Doc;
  private awareness!: awarenessProtocol.Awareness;
  private readonly links = new Set<FramedConnection>();
  /** Peers this one has synchronised with at least once (the planted bug skips later resyncs). */
  private readonly syncedWith = new Set<string>();

  constructor(private readonly bug: YjsBug | undefined) {}

  async run(ctx: SimContext): Promise<void> {
    this.doc = new Y.Doc();
    this.awareness = new awarenessProtocol.Awareness(this.doc);
    // Every local change (an insert, or an update received from one link) goes to the other links.
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      const message = frame(MESSAGE.sync, (encoder) => syncProtocol.writeUpdate(encoder, update));
      for (const link of this.links) if (link !== origin) link.send(message);
    });
    const me = ctx.topology.myIp;
    ctx.state.publish(docKey(me), this.doc);
    ctx.trace.info("peer_started", { clientID: this.doc.clientID });
    this.awareness.setLocalState({ ip: me, since: Date.now() });
    const peers = ctx.topology.ipsInGroup("peer");
    const syncListener = await ctx.network.bind(`${me}:${SYNC_PORT}`);
    const editListener = await ctx.network.bind(`${me}:${EDIT_PORT}`);
    ctx.task.spawn("accept-peers", async (scope) => {
      for (;;) {
        const connection = await syncListener.accept();
        const remote = connection.peerAddr.split(":")[0]!;
        scope.task.spawn(`link-${remote}`, () => this.serveLink(ctx, new FramedConnection(connection), remote));
      }
    });
    ctx.task.spawn("accept-editor", async (scope) => {
      for (;;) {
        const connection = await editListener.accept();
        scope.task.spawn("editor", () => this.serveEditor(new FramedConnection(connection)));
      }
    });
    for (const remote of peers.slice(peers.indexOf(me) + 1))
      ctx.task.spawn(`dial-${remote}`, () => this.dial(ctx, remote));
    await new Promise<void>((resolve) => ctx.shutdown.addEventListener("abort", () => resolve(), { once: true }));
    this.awareness.destroy();
  }

  /** Keeps a connection to `remote` open, reconnecting with jittered exponential backoff. */
  private async dial(ctx: SimContext, remote: string): Promise<void> {
    let backoffMs = 20;
    for (;;) {
      try {
        // A connect into a partition may never answer: give up and redial.
        const connection = await ctx.time.timeout(CONNECT_TIMEOUT_MS, ctx.network.connect(`${remote}:${SYNC_PORT}`));
        backoffMs = 20;
        await this.serveLink(ctx, new FramedConnection(connection), remote);
      } catch (error) {
        if (isAbortError(error)) throw error;
      }
      // Shutdown ends the backoff with an AbortError: the process is stopping, so the dialer ends.
      const stopped = await sleep(backoffMs * (0.5 + Math.random()), false, { signal: ctx.shutdown }).catch(() => true);
      if (stopped) return;
      backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    }
  }

  /** One connection to another peer: resync, then apply whatever arrives until it closes or breaks. */
  private async serveLink(ctx: SimContext, link: FramedConnection, remote: string): Promise<void> {
    this.links.add(link);
    const reconnection = this.syncedWith.has(remote);
    this.syncedWith.add(remote);
    if (reconnection) ctx.trace.info("peer_reconnected", { remote });
    assertSometimes(reconnection, "a peer reconnected to another after its connection broke");
    if (!(reconnection && this.bug === "no-resync-on-reconnect")) {
      link.send(frame(MESSAGE.sync, (encoder) => syncProtocol.writeSyncStep1(encoder, this.doc)));
    }
    const announce = () =>
      link.send(
        frame(MESSAGE.awareness, (encoder) => {
          encoding.writeVarUint8Array(
            encoder,
            awarenessProtocol.encodeAwarenessUpdate(this.awareness, [this.doc.clientID]),
          );
        }),
      );
    announce();
    // Heartbeats, and a watchdog that drops a link silent for too long (a partition stalls a
    // connection without closing it), as y-websocket does.
    const heartbeat = setInterval(announce, HEARTBEAT_MS);
    const watchdog = setTimeout(() => link.close(), IDLE_TIMEOUT_MS);
    try {
      for (let message = await link.next(); message !== null; message = await link.next()) {
        watchdog.refresh();
        this.receive(link, message);
      }
    } catch (error) {
      if (isAbortError(error)) throw error;
      // A reset connection: the dialer reconnects.
    } finally {
      clearInterval(heartbeat);
      clearTimeout(watchdog);
      this.links.delete(link);
      link.close();
    }
  }

  private receive(link: FramedConnection, message: Uint8Array): void {
    const decoder = decoding.createDecoder(message);
    const type = decoding.readVarUint(decoder);
    if (type === MESSAGE.sync) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE.sync);
      syncProtocol.readSyncMessage(decoder, encoder, this.doc, link);
      // Step 1 is answered with step 2 (what the other side lacks).
      if (encoding.length(encoder) > 1) link.send(encoding.toUint8Array(encoder));
    } else if (type === MESSAGE.awareness) {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(decoder), link);
    }
  }

  /** The editor's connection: each insert goes into the document at a random place, then is acknowledged. */
  private async serveEditor(editor: FramedConnection): Promise<void> {
    const items = this.doc.getArray<string>("items");
    try {
      for (let message = await editor.next(); message !== null; message = await editor.next()) {
        const decoder = decoding.createDecoder(message);
        if (decoding.readVarUint(decoder) !== MESSAGE.insert) continue;
        const id = decoding.readVarString(decoder);
        items.insert(Math.floor(Math.random() * (items.length + 1)), [id]);
        editor.send(frame(MESSAGE.insertAck, (encoder) => encoding.writeVarString(encoder, id)));
      }
    } catch (error) {
      if (isAbortError(error)) throw error;
    } finally {
      editor.close();
    }
  }
}
