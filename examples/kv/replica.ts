/**
 * A replica: the latest (timestamp, value) of every key, kept in memory and in an append-only log
 * on `ctx.storage` that is synced before a write is acknowledged, so an acknowledged write
 * survives a crash. It never decides anything: ordering comes from the clients' timestamps.
 *
 * Log record: `[length u32 LE][checksummed JSON]`. Recovery reads records until the first one
 * that is short or fails its checksum (a write torn by a crash, never acknowledged) and cuts the
 * log there, so later appends follow the last good record.
 */
import {
  assertSometimes,
  BrokenPromise,
  decodeChecksummedJson,
  encodeChecksummedJson,
  IoError,
  isAbortError,
  OpenOptions,
  Transport,
  type NodeContext,
  type StorageFile,
  type Tracer,
} from "@moonpool/core";
import { compareTs, KV_PORT, KvService, ZERO_TS, type Reply, type Request, type Timestamp } from "./protocol.ts";

export const LOG_PATH = "kv/replica.log";
const HEADER_BYTES = 4;

interface Versioned {
  readonly ts: Timestamp;
  readonly value: string | null;
}

interface LogRecord {
  readonly key: string;
  readonly ts: Timestamp;
  readonly value: string | null;
}

export class Replica {
  private readonly data = new Map<string, Versioned>();
  private log!: StorageFile;
  private logBytes = 0;
  /** Appends are serialised: each one writes at the end and syncs before the next starts. */
  private appending: Promise<void> = Promise.resolve();
  /**
   * Set when an append failed: memory may now hold a write the disk does not, so the replica
   * stops answering rather than acknowledge what a crash could take back.
   */
  private broken = false;

  async run(ctx: NodeContext): Promise<void> {
    await this.recover(ctx);
    const transport = new Transport(ctx);
    // A broken replica answers nothing (`null`): the client counts it as a lost message.
    transport.serve(KvService, {
      read: async (message) => (this.broken ? null : this.read(message.key)),
      write: async (message) => {
        if (this.broken) return null;
        try {
          const reply = await this.write(ctx, message);
          return this.broken ? null : reply;
        } catch (error) {
          // A graceful shutdown cut the append short: the write is dropped unanswered, not failed.
          if (isAbortError(error)) throw new BrokenPromise("the replica is shutting down");
          throw error;
        }
      },
    });
    await transport.listen(`${ctx.myIp}:${KV_PORT}`);
    await new Promise<void>((resolve) => {
      if (ctx.shutdown.aborted) resolve();
      else ctx.shutdown.addEventListener("abort", () => resolve(), { once: true });
    });
    await transport.close();
  }

  private async recover(ctx: NodeContext): Promise<void> {
    this.log = await ctx.storage.open(LOG_PATH, OpenOptions.readWriteCreate);
    const size = await this.log.size();
    const bytes = size === 0 ? new Uint8Array(0) : await this.log.read(0, size);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let offset = 0;
    let records = 0;
    while (offset + HEADER_BYTES <= bytes.length) {
      const length = view.getUint32(offset, true);
      if (length === 0 || offset + HEADER_BYTES + length > bytes.length) break;
      const record = decodeChecksummedJson<LogRecord>(
        bytes.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length),
      );
      if (record === null) break;
      this.apply(record.key, { ts: record.ts, value: record.value });
      offset += HEADER_BYTES + length;
      records++;
    }
    if (offset < size) {
      await this.log.setLength(offset);
      await this.log.sync();
    }
    this.logBytes = offset;
    assertSometimes(records > 0, "a replica recovered writes from its log");
    if (records > 0) ctx.trace.info("replica_recovered", { records, keys: this.data.size });
  }

  private apply(key: string, next: Versioned): boolean {
    const current = this.data.get(key);
    if (current !== undefined && compareTs(next.ts, current.ts) <= 0) return false;
    this.data.set(key, next);
    return true;
  }

  private persist(record: LogRecord): Promise<void> {
    const body = encodeChecksummedJson(record);
    const frame = new Uint8Array(HEADER_BYTES + body.length);
    new DataView(frame.buffer).setUint32(0, body.length, true);
    frame.set(body, HEADER_BYTES);
    const next = this.appending.then(async () => {
      await this.log.write(this.logBytes, frame);
      await this.log.sync();
      this.logBytes += frame.length;
    });
    // A failed append fails its own request; the next one still runs.
    this.appending = next.catch(() => undefined);
    return next;
  }

  private read(key: string): Extract<Reply, { type: "read" }> {
    const v = this.data.get(key) ?? { ts: ZERO_TS, value: null };
    return { type: "read", ts: v.ts, value: v.value };
  }

  private async write(
    io: { readonly trace: Tracer },
    message: Extract<Request, { type: "write" }>,
  ): Promise<Extract<Reply, { type: "written" }>> {
    try {
      if (this.apply(message.key, { ts: message.ts, value: message.value })) {
        // Durable before acknowledged: a crash after the ack must not lose the write.
        await this.persist({ key: message.key, ts: message.ts, value: message.value });
        io.trace.debug("replica_stored", { key: message.key, counter: message.ts[0], writer: message.ts[1] });
      } else {
        // A newer version is already here, but its append may still be in flight: acknowledge
        // only once it is durable too.
        await this.appending;
      }
    } catch (error) {
      if (!(error instanceof IoError)) throw error;
      this.broken = true;
      io.trace.warn("replica_broken", { reason: error.message });
    }
    return { type: "written" };
  }
}
