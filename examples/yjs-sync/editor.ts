/**
 * The editor: during the chaos window it asks random peers to insert uniquely named items and
 * remembers the acknowledged ones; once the chaos is over it waits for the documents to converge
 * and checks that they did and that no acknowledged insert was lost.
 */
import { assertAlways, assertSometimes, type SimContext, type Workload } from "@moonpool/sim";
import { isAbortError } from "@moonpool/core";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import * as Y from "yjs";
import { FramedConnection } from "./framing.ts";
import { docKey, EDIT_PORT, MESSAGE } from "./protocol.ts";

/** Longest wait for an acknowledgement before the editor gives up on that connection. */
const ACK_TIMEOUT_MS = 1_000;
/** Time after the chaos window for the documents to converge. */
export const CONVERGE_WITHIN_MS = 10_000;

export class Editor implements Workload {
  readonly name = "editor";
  private readonly acknowledged: string[] = [];

  constructor(private readonly activeMs: number) {}

  async run(ctx: SimContext): Promise<void> {
    const peers = ctx.topology.ipsInGroup("peer");
    const connections = new Map<string, FramedConnection>();
    const end = ctx.time.now() + this.activeMs;
    for (let n = 0; ctx.time.now() < end; n++) {
      const ip = peers[ctx.random.randomRange(0, peers.length)]!;
      const id = `item-${n}`;
      try {
        let connection = connections.get(ip);
        if (connection === undefined) {
          connection = new FramedConnection(
            await ctx.time.timeout(ACK_TIMEOUT_MS, ctx.network.connect(`${ip}:${EDIT_PORT}`)),
          );
          connections.set(ip, connection);
        }
        const encoder = encoding.createEncoder();
        encoding.writeVarUint(encoder, MESSAGE.insert);
        encoding.writeVarString(encoder, id);
        connection.send(encoding.toUint8Array(encoder));
        if (await this.awaitAck(ctx, connection, id)) this.acknowledged.push(id);
        else throw new Error("connection closed");
      } catch (error) {
        if (isAbortError(error)) throw error;
        // A lost or late acknowledgement: the insert may or may not have happened.
        connections.get(ip)?.close();
        connections.delete(ip);
      }
      await ctx.time.sleep(ctx.random.randomRange(5, 80));
    }
    for (const connection of connections.values()) connection.close();
    assertSometimes(this.acknowledged.length > 0, "an insert was acknowledged");

    await ctx.chaosWindow.whenEnded();
    const docs = peers.map((ip) => ctx.state.get<Y.Doc>(docKey(ip))!);
    // lib0 draws a clientID from crypto.getRandomValues: each process has its own random stream.
    assertAlways(new Set(docs.map((doc) => doc.clientID)).size === docs.length, "every document has its own clientID");
    const deadline = ctx.time.now() + CONVERGE_WITHIN_MS;
    while (!converged(docs) && ctx.time.now() < deadline) await ctx.time.sleep(100);
    assertAlways(converged(docs), "every document converges after the chaos window", {
      stateVectors: docs.map((doc) => Buffer.from(Y.encodeStateVector(doc)).toString("hex")).join(" "),
    });
    const lost = this.acknowledged.filter((id) =>
      docs.some((doc) => !doc.getArray<string>("items").toArray().includes(id)),
    );
    assertAlways(lost.length === 0, "no acknowledged insert is lost", { lost: lost.slice(0, 5).join(",") });
    ctx.trace.info("documents_converged", {
      items: docs[0]!.getArray("items").length,
      acknowledged: this.acknowledged.length,
    });
  }

  /** True once `id` is acknowledged, false if the connection closed first; rejects on timeout or reset. */
  private async awaitAck(ctx: SimContext, connection: FramedConnection, id: string): Promise<boolean> {
    for (;;) {
      const message = await ctx.time.timeout(ACK_TIMEOUT_MS, connection.next());
      if (message === null) return false;
      const decoder = decoding.createDecoder(message);
      if (decoding.readVarUint(decoder) === MESSAGE.insertAck && decoding.readVarString(decoder) === id) return true;
    }
  }
}

/** Equal state vectors and content everywhere, and nothing waiting for missing updates. */
export function converged(docs: readonly Y.Doc[]): boolean {
  const first = Y.encodeStateVector(docs[0]!);
  const content = JSON.stringify(docs[0]!.getArray("items").toArray());
  return docs.every(
    (doc) =>
      doc.store.pendingStructs === null &&
      doc.store.pendingDs === null &&
      Buffer.compare(Buffer.from(Y.encodeStateVector(doc)), Buffer.from(first)) === 0 &&
      JSON.stringify(doc.getArray("items").toArray()) === content,
  );
}
