/**
 * A record store as its authors would write it with lowdb: each record is appended to
 * `db.data.records` and acknowledged once `db.write()` resolves. On every boot the store reads its
 * file back and checks that every record it acknowledged before the last crash is still there.
 *
 * Two adapters: lowdb's own `JSONFile` ("steno": temp file and rename, no `fsync`) and
 * `DurableJSONFile` ("fsync"). Both are unmodified lowdb underneath.
 */
import path from "node:path";
import { assertAlways, assertSometimes, isAbortError } from "@moonpool/core";
import type { Process, SimContext } from "@moonpool/sim";
import { Low } from "lowdb";
import { JSONFile } from "lowdb/node";
import { DurableJSONFile } from "./durable-json-file.ts";

export type StoreVariant = "steno" | "fsync";

interface Data {
  records: { seq: number; note: string }[];
}

/** The store's file, next to the working directory as lowdb's README puts it. */
export const STORE_FILE = path.resolve("records.json");

function openDb(variant: StoreVariant): Low<Data> {
  const adapter = variant === "steno" ? new JSONFile<Data>(STORE_FILE) : new DurableJSONFile<Data>(STORE_FILE);
  return new Low<Data>(adapter, { records: [] });
}

/** The records read back at boot: a file a crash left unreadable counts as none. */
async function recover(db: Low<Data>): Promise<{ seqs: Set<number>; readable: boolean }> {
  try {
    await db.read();
    return { seqs: new Set(db.data.records.map((r) => r.seq)), readable: true };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    db.data = { records: [] };
    return { seqs: new Set(), readable: false };
  }
}

export class StoreProcess implements Process {
  readonly name = "store";
  constructor(private readonly variant: StoreVariant) {}

  async run(ctx: SimContext): Promise<void> {
    const key = `acked:${ctx.myIp}`;
    const db = openDb(this.variant);
    const { seqs, readable } = await recover(db);
    const acked = ctx.state.get<number>(key) ?? 0;
    const missing = [...Array(acked).keys()].filter((seq) => !seqs.has(seq));
    assertAlways(missing.length === 0, "no acknowledged record is lost", {
      acked,
      recovered: seqs.size,
      missing: missing.length,
      readable,
    });
    assertSometimes(acked > 0, "a boot found acknowledged records");
    ctx.state.publish(key, Math.min(acked, seqs.size));
    ctx.trace.info("store_recovered", { acked, recovered: seqs.size, readable });
    try {
      for (let seq = db.data.records.length; ; seq++) {
        db.data.records.push({ seq, note: `record ${seq} from ${ctx.myIp}` });
        await db.write();
        ctx.state.publish(key, seq + 1);
        await ctx.time.sleep(ctx.random.randomRange(3, 15));
      }
    } catch (error) {
      if (!isAbortError(error)) throw error;
    }
  }
}
