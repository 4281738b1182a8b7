/**
 * The durable state of one Paxos node, on `ctx.storage`: an append-only log of checksummed
 * records, synced before the node acts on them. It holds what Paxos needs to survive a reboot:
 *
 * - the acceptor's promise (the highest ballot it promised);
 * - every accepted proposal (slot, ballot, value);
 * - the proposer's highest round, reserved before the round is used, so that a rebooted proposer
 *   never reuses a ballot.
 *
 * Record: `[length u32 LE][fnv1a u32 LE][JSON]`. Recovery reads records until the first one that
 * is short, fails its checksum or does not parse.
 *
 * **A damaged log.** Bytes after the last good record mean the disk damaged the log: a corrupted
 * sector, a write that never landed (phantom) or landed elsewhere (misdirected), or a write torn
 * by a crash. Whatever follows the damage may be records that were synced and acknowledged, and
 * an acceptor that forgot a promise or an accepted value breaks Paxos (agreement fails: this
 * example's campaign found it once reboots let acceptors recover from damaged disks). A torn
 * unsynced tail cannot be told apart from a damaged acknowledged record (a torn write spoils a
 * whole sector, earlier records included), so any damage counts: the store reports the log
 * **damaged**, durably (a `damaged` record in a snapshot that replaces the log, so a later reboot
 * cannot mistake the cut-off log for a healthy one), and the node stops voting for good
 * (`node.ts`). Rebuilding such an acceptor takes a catch-up from its peers or a reconfiguration,
 * which this example leaves out. A log that ends cleanly lost nothing that was synced: a crash
 * drops unsynced writes whole, and only the last append can be unsynced.
 *
 * After any I/O error the log is not trusted for appends any more: the next append writes the
 * whole state to a fresh file, syncs it and renames it over the log (metadata is durable when
 * `rename` resolves). The same rewrite compacts a log that grew past `MAX_LOG_RECORDS`.
 */
import { assertSometimes, IoError, OpenOptions, type StorageFile, type StorageProvider } from "@moonpool/core";
import { fnv1a } from "./protocol.ts";

export const LOG_PATH = "paxos/acceptor.log";
const REWRITE_PATH = "paxos/acceptor.log.rewrite";
const HEADER_BYTES = 8;
/** A record is a few dozen bytes; anything longer is garbage (a torn or misdirected write). */
const MAX_RECORD_BYTES = 64 * 1024;
/** Past this many records the next append compacts the log into a snapshot. */
export const MAX_LOG_RECORDS = 4096;

export type LogRecord =
  | { readonly t: "promise"; readonly ballot: number }
  | { readonly t: "accept"; readonly ballot: number; readonly slot: number; readonly value: string }
  | { readonly t: "round"; readonly round: number }
  /** The log was found damaged once: this acceptor may have forgotten what it acknowledged. */
  | { readonly t: "damaged" };

export interface DurableState {
  promised: number;
  /** Slot -> the proposal accepted last in that slot. */
  readonly accepted: Map<number, { ballot: number; value: string }>;
  round: number;
  /** The log was damaged at some recovery: what this node acknowledged may be lost. */
  damaged: boolean;
}

export function emptyState(): DurableState {
  return { promised: 0, accepted: new Map(), round: 0, damaged: false };
}

function copyState(state: DurableState): DurableState {
  return { promised: state.promised, accepted: new Map(state.accepted), round: state.round, damaged: state.damaged };
}

/** Applies one record in log order: promises only grow, the last accept of a slot wins. */
export function applyRecord(state: DurableState, record: LogRecord): void {
  switch (record.t) {
    case "promise":
      state.promised = Math.max(state.promised, record.ballot);
      break;
    case "accept":
      state.promised = Math.max(state.promised, record.ballot);
      state.accepted.set(record.slot, { ballot: record.ballot, value: record.value });
      break;
    case "round":
      state.round = Math.max(state.round, record.round);
      break;
    case "damaged":
      state.damaged = true;
      break;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeRecord(record: LogRecord): Uint8Array {
  const json = encoder.encode(JSON.stringify(record));
  const bytes = new Uint8Array(HEADER_BYTES + json.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, json.length, true);
  view.setUint32(4, fnv1a(json), true);
  bytes.set(json, HEADER_BYTES);
  return bytes;
}

function isRecord(value: unknown): value is LogRecord {
  const r = value as Record<string, unknown> | null;
  if (r === null || typeof r !== "object") return false;
  const n = (k: string): boolean => Number.isSafeInteger(r[k]) && (r[k] as number) >= 0;
  if (r.t === "promise") return n("ballot");
  if (r.t === "accept") return n("ballot") && n("slot") && typeof r.value === "string";
  if (r.t === "round") return n("round");
  if (r.t === "damaged") return true;
  return false;
}

/** Parses the valid prefix of a log: its records and its length in bytes. */
export function decodeLog(bytes: Uint8Array): { records: LogRecord[]; validBytes: number } {
  const records: LogRecord[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  while (offset + HEADER_BYTES <= bytes.length) {
    const length = view.getUint32(offset, true);
    if (length > MAX_RECORD_BYTES || offset + HEADER_BYTES + length > bytes.length) break;
    const json = bytes.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length);
    if (fnv1a(json) !== view.getUint32(offset + 4, true)) break;
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoder.decode(json));
    } catch {
      break;
    }
    if (!isRecord(parsed)) break;
    records.push(parsed);
    offset += HEADER_BYTES + length;
  }
  return { records, validBytes: offset };
}

/** The records that rebuild `state` on their own (a compacted log). */
function snapshotRecords(state: DurableState): LogRecord[] {
  const records: LogRecord[] = [];
  if (state.damaged) records.push({ t: "damaged" });
  if (state.promised > 0) records.push({ t: "promise", ballot: state.promised });
  if (state.round > 0) records.push({ t: "round", round: state.round });
  for (const [slot, { ballot, value }] of state.accepted) records.push({ t: "accept", ballot, slot, value });
  return records;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** What recovery found on disk. */
export interface Recovery {
  readonly state: DurableState;
  readonly records: number;
  /** Bytes after the valid prefix: damage, found at this recovery (the log is then replaced by a snapshot marked damaged). */
  readonly truncatedBytes: number;
}

export class AcceptorStore {
  /** A mirror of what is durable: exactly the records whose append resolved. */
  private durable: DurableState;
  private file: StorageFile;
  private endOffset: number;
  private records: number;
  /** After an I/O error the log's tail is unknown: the next append rewrites the whole state. */
  private mustRewrite = false;
  /** Appends are serialized: a record is durable before the next one is written. */
  private tail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly storage: StorageProvider,
    file: StorageFile,
    recovery: Recovery,
    endOffset: number,
  ) {
    this.file = file;
    this.durable = copyState(recovery.state);
    this.endOffset = endOffset;
    this.records = recovery.records;
  }

  /**
   * Opens (or creates) the log and replays it. A damaged log is replaced, before this resolves, by
   * a snapshot of its valid prefix marked `damaged` (see the file comment). I/O errors propagate:
   * the node cannot start without its state (the damaged log stays as it was, to be found again).
   */
  static async open(storage: StorageProvider): Promise<{ store: AcceptorStore; recovery: Recovery }> {
    if (await storage.exists(REWRITE_PATH)) await storage.delete(REWRITE_PATH); // a rewrite a crash interrupted
    const file = await storage.open(LOG_PATH, OpenOptions.readWriteCreate);
    const size = await file.size();
    let decoded = decodeLog(size === 0 ? new Uint8Array(0) : await file.read(0, size));
    // A read can return the wrong bytes once (a misdirected read): read again before calling it damage.
    if (decoded.validBytes < size) decoded = decodeLog(await file.read(0, size));
    const { records, validBytes } = decoded;
    const state = emptyState();
    for (const record of records) applyRecord(state, record);
    const recovery: Recovery = { state, records: records.length, truncatedBytes: size - validBytes };
    const store = new AcceptorStore(storage, file, recovery, validBytes);
    if (validBytes < size) {
      try {
        // Through the rewrite path: the snapshot replaces the damaged log in one rename.
        store.mustRewrite = true;
        await store.append({ t: "damaged" });
      } catch (error) {
        await file.close().catch(() => undefined);
        throw error;
      }
      state.damaged = true;
    }
    return { store, recovery };
  }

  /** The promise the log holds now (what a reboot would recover). */
  get durablePromise(): number {
    return this.durable.promised;
  }

  /** Appends `record` and syncs it. Resolves once it is durable; rejects with `IoError` if it may not be. */
  append(record: LogRecord): Promise<void> {
    const result = this.tail.then(() => this.write(record));
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private async write(record: LogRecord): Promise<void> {
    // Every append is the observation point: true when a disk error forced the slow, safe path.
    assertSometimes(this.mustRewrite, "acceptor log rewritten after a disk error");
    if (this.mustRewrite || this.records >= MAX_LOG_RECORDS) {
      await this.rewrite(record);
      return;
    }
    const bytes = encodeRecord(record);
    try {
      await this.file.write(this.endOffset, bytes);
      await this.file.sync();
    } catch (error) {
      if (error instanceof IoError) this.mustRewrite = true;
      throw error;
    }
    this.endOffset += bytes.length;
    this.records += 1;
    applyRecord(this.durable, record);
  }

  /** Writes the whole state plus `record` to a fresh file, syncs it, and renames it over the log. */
  private async rewrite(record: LogRecord): Promise<void> {
    this.mustRewrite = true;
    const next = copyState(this.durable);
    applyRecord(next, record);
    const records = snapshotRecords(next);
    const bytes = concat(records.map(encodeRecord));
    const fresh = await this.storage.open(REWRITE_PATH, OpenOptions.createWrite);
    try {
      await fresh.write(0, bytes);
      await fresh.sync();
    } finally {
      await fresh.close();
    }
    await this.storage.rename(REWRITE_PATH, LOG_PATH);
    await this.file.close().catch(() => undefined);
    this.file = await this.storage.open(LOG_PATH, OpenOptions.readWrite);
    this.durable = next;
    this.endOffset = bytes.length;
    this.records = records.length;
    this.mustRewrite = false;
  }

  async close(): Promise<void> {
    await this.tail;
    await this.file.close().catch(() => undefined);
  }
}
