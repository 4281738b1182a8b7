/**
 * The system under test: one server keeps a hash-chained append log and serves it over the
 * transport layer. Each block's hash covers the previous hash, its sequence number and a digest
 * of its data, so a reply's `{ seq, prevHash, hash }` can be checked by the client that sent the
 * data, and the whole log by replaying the server's `append_block` facts. Written only against
 * `@moonpool/core`: the same server runs on real sockets.
 */
import { assertSometimes, BrokenPromise, crc32c, defineService, Transport, type NodeContext } from "@moonpool/core";

export const LOG_PORT = 7300;
/** The largest block the server takes; larger ones are refused with an application error. */
export const MAX_BLOCK_BYTES = 8 * 1024;
export const GENESIS_HASH = 0x6d6f6f6e;

/** How the client sent an append: the server logs it so the invariant can check each mode's promise. */
export type DeliveryMode = "at-least-once" | "at-most-once" | "fire-and-forget";

export interface AppendRequest {
  readonly client: number;
  /** The client's operation number: `(client, op)` names one logical request, however often it is sent. */
  readonly op: number;
  readonly mode: DeliveryMode;
  readonly data: string;
}

export interface AppendReply {
  readonly seq: number;
  readonly prevHash: number;
  readonly hash: number;
}

export interface AppendLog {
  append(request: AppendRequest): Promise<AppendReply>;
  head(request: null): Promise<{ readonly seq: number; readonly hash: number }>;
}

export const AppendLogService = defineService<AppendLog>("append-log", { append: true, head: true });

export type AppendLogBug = "drop-promise";

const encoder = new TextEncoder();

export function blockDigest(data: string): number {
  return crc32c(encoder.encode(data));
}

/** The hash of block `seq` after `prevHash`: CRC-32C over both numbers and the data's digest. */
export function chainHash(prevHash: number, seq: number, digest: number): number {
  const bytes = new Uint8Array(12);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, prevHash, true);
  view.setUint32(4, seq, true);
  view.setUint32(8, digest, true);
  return crc32c(bytes);
}

export class AppendLogServer {
  private seq = 0;
  private hash = GENESIS_HASH;

  constructor(private readonly options: { readonly bug?: AppendLogBug } = {}) {}

  /** Serves until `ctx.shutdown` aborts, then answers what is in flight with `BrokenPromise` and closes. */
  async run(ctx: NodeContext): Promise<void> {
    const transport = new Transport(ctx);
    await transport.listen(`${ctx.myIp}:${LOG_PORT}`);
    transport.serve(AppendLogService, {
      append: async (request) => {
        if (request.data.length > MAX_BLOCK_BYTES) {
          throw new Error(`block of ${request.data.length} bytes exceeds ${MAX_BLOCK_BYTES}`);
        }
        // Appended at once, in arrival order; the reply waits for a simulated flush.
        const prevHash = this.hash;
        const seq = ++this.seq;
        const digest = blockDigest(request.data);
        const hash = chainHash(prevHash, seq, digest);
        this.hash = hash;
        ctx.trace.info("append_block", {
          seq,
          hash,
          prevHash,
          digest,
          bytes: request.data.length,
          client: request.client,
          op: request.op,
          mode: request.mode,
        });
        assertSometimes(request.data.length === 0, "handled an empty block");
        assertSometimes(request.data.length === MAX_BLOCK_BYTES, "handled a max-size block");
        await ctx.time.sleep(ctx.random.randomRange(0, 3));
        // The planted bug: an empty block is appended, but its reply is dropped (as code that
        // forgot to answer on one path would). The client gets `BrokenPromise`.
        if (this.options.bug === "drop-promise" && request.data.length === 0) {
          throw new BrokenPromise("empty block: reply dropped");
        }
        return { seq, prevHash, hash };
      },
      head: async () => ({ seq: this.seq, hash: this.hash }),
    });
    while (!ctx.shutdown.aborted) await ctx.time.sleep(100);
    await transport.close();
  }
}
