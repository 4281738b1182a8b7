/**
 * The order service's storage: one record per order appended to `orders.log`, read back at boot.
 *
 * Two durability policies, as services ship them:
 * - "fsync": every append is followed by an `fsync` before the order is acknowledged (a failed
 *   sync leaves the data in the page cache, so it is retried).
 * - "lazy-fsync" (the planted bug): the append is acknowledged at once and a timer `fsync`s the log
 *   every `LAZY_FSYNC_INTERVAL_MS`, the "fsync once a second" trade many stores offer; a crash in
 *   between loses orders the clients were told are placed.
 *
 * The log file is created once and its directory `fsync`ed, so the file itself survives a crash;
 * records are sector-sized and checksummed (`encodeRecord`).
 */
import { type FileHandle, open, readFile } from "node:fs/promises";
import path from "node:path";

export type Durability = "fsync" | "lazy-fsync";

export interface Order {
  readonly id: number;
  readonly sku: string;
  readonly qty: number;
  readonly totalCents: number;
}

export const LOG_FILE = path.resolve("orders.log");
export const LAZY_FSYNC_INTERVAL_MS = 250;

async function syncUntilDone(handle: FileHandle): Promise<void> {
  for (;;) {
    try {
      return await handle.sync();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EIO") throw error;
    }
  }
}

/**
 * One record per 512-byte sector, the order's JSON and its checksum padded with spaces: a crash
 * tears the sector of a write that was not synced yet, and a record that never shares a sector
 * with another cannot take an acknowledged neighbour with it (a shared sector would). The
 * checksum drops a torn record at recovery; a flipped bit in valid JSON would otherwise read back
 * as another order.
 */
export const RECORD_BYTES = 512;

/** FNV-1a over the record's JSON, 8 hex digits. */
function checksum(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, "0");
}

export function encodeRecord(order: Order): string {
  const json = JSON.stringify(order);
  const record = `${json}\t${checksum(json)}`;
  if (record.length >= RECORD_BYTES) throw new RangeError(`an order record must fit ${RECORD_BYTES - 1} bytes`);
  return `${record.padEnd(RECORD_BYTES - 1, " ")}\n`;
}

/** The orders in a log's bytes; a record a crash tore (or cut short) fails its checksum and is skipped. */
function decodeRecords(bytes: Buffer): Order[] {
  const orders: Order[] = [];
  for (let at = 0; at + RECORD_BYTES <= bytes.length; at += RECORD_BYTES) {
    const text = bytes.toString("latin1", at, at + RECORD_BYTES);
    const match = /^(\{[^\t]*\})\t([0-9a-f]{8})/.exec(text);
    if (match === null || checksum(match[1]!) !== match[2]) continue;
    orders.push(JSON.parse(match[1]!) as Order);
  }
  return orders;
}

export class OrderLog {
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly handle: FileHandle,
    private readonly durability: Durability,
    readonly recovered: readonly Order[],
  ) {}

  static async open(durability: Durability): Promise<OrderLog> {
    const handle = await open(LOG_FILE, "a+");
    await syncUntilDone(handle);
    const dir = await open(path.dirname(LOG_FILE), "r");
    try {
      await syncUntilDone(dir);
    } finally {
      await dir.close();
    }
    const log = new OrderLog(handle, durability, decodeRecords(await readFile(LOG_FILE)));
    // A background flush that fails (a sync error, the log closing) is retried by the next tick.
    if (durability === "lazy-fsync")
      log.timer = setInterval(() => log.flush().catch(() => undefined), LAZY_FSYNC_INTERVAL_MS);
    return log;
  }

  /** Resolves once the order may be acknowledged under this log's policy. */
  async append(order: Order): Promise<void> {
    await this.handle.appendFile(encodeRecord(order));
    if (this.durability === "fsync") await syncUntilDone(this.handle);
  }

  private async flush(): Promise<void> {
    await syncUntilDone(this.handle);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.handle.close();
  }
}
