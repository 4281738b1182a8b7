/**
 * Imports Jepsen/Knossos histories (EDN vectors of `{:process :type :f :value}` maps) with
 * Knossos' semantics: an `:ok` completion's value is copied into its invocation, `:fail`
 * operations are removed, `:info` completions and invocations that never complete are crashed,
 * nemesis operations are ignored, a `nil` read is unknown, and a process id may be reused after
 * a crash. An operation's `:key` (multi-key histories, checked one key at a time by the kv model)
 * is kept; a `get` returns its value like a `read` does, with `nil` meaning the key is absent.
 */
import { parseEdn, type EdnValue } from "./edn.ts";
import { HistoryError, type OpInput, type Operation } from "./history.ts";

interface Open {
  readonly process: string;
  readonly f: string;
  readonly key?: string;
  readonly value: unknown;
  readonly callIndex: number;
  readonly time?: number;
}

export interface KnossosImportOptions {
  /** Called when the file ends mid-record (a log cut off); the complete records are kept. */
  readonly onTruncated?: (line: number) => void;
}

export function parseKnossosHistory(text: string, options: KnossosImportOptions = {}): Operation<OpInput, unknown>[] {
  // A history log cut off mid-record keeps its complete records, as Knossos' own reader does.
  const forms = parseEdn(text, { onTruncated: options.onTruncated ?? (() => {}) });
  // A file is one vector/list of maps, or a sequence of maps.
  return knossosHistoryFromRecords(forms.length === 1 && Array.isArray(forms[0]) ? (forms[0] as EdnValue[]) : forms);
}

// Keys are strings in the models; EDN keywords already read as strings, numbers are printed, and
// a composite key keeps its JSON text so equal keys stay equal.
function keyOf(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  return typeof raw === "string" ? raw : typeof raw === "object" ? JSON.stringify(raw) : String(raw);
}

/** The same import from already parsed records (e.g. a JSON export of a Jepsen history). */
export function knossosHistoryFromRecords(events: readonly unknown[]): Operation<OpInput, unknown>[] {
  const open = new Map<string, Open>();
  const ops: Omit<Operation<OpInput, unknown>, "id">[] = [];
  const crash = (o: Open): void => {
    ops.push({
      client: o.process,
      input: { f: o.f, ...(o.key !== undefined ? { key: o.key } : {}), value: o.value },
      output: undefined,
      callIndex: o.callIndex,
      returnIndex: Infinity,
      crashed: true,
      ...(o.time !== undefined ? { callTimeMs: o.time / 1e6 } : {}),
    });
  };
  events.forEach((raw, index) => {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw new HistoryError(`history entry ${index} is not a map: ${JSON.stringify(raw)}`);
    }
    const e = raw as Record<string, unknown>;
    const process = String(e.process);
    if (process === "nemesis") return;
    const type = e.type;
    const f = String(e.f);
    const time = typeof e.time === "number" ? e.time : undefined;
    const key = keyOf(e.key);
    if (type === "invoke") {
      const previous = open.get(process);
      if (previous !== undefined) crash(previous);
      open.set(process, {
        process,
        f,
        ...(key !== undefined ? { key } : {}),
        value: e.value ?? null,
        callIndex: index,
        ...(time !== undefined ? { time } : {}),
      });
      return;
    }
    const call = open.get(process);
    if (call === undefined) {
      if (type === "info") return; // an info with no open operation carries no constraint
      throw new HistoryError(`history entry ${index}: process ${process} completes ${f} without an invocation`);
    }
    open.delete(process);
    if (type === "fail") return;
    if (type === "info") {
      crash(call);
      return;
    }
    if (type !== "ok") throw new HistoryError(`history entry ${index}: unknown :type ${JSON.stringify(type)}`);
    const value = (e.value ?? null) as unknown;
    const isRead = f === "read" || f === "get";
    // The invocation names the key; a completion that alone carries it still counts.
    const opKey = call.key ?? key;
    ops.push({
      client: process,
      input: { f, ...(opKey !== undefined ? { key: opKey } : {}), value: isRead ? null : value },
      output: f === "read" ? (value === null ? undefined : value) : isRead ? value : true,
      callIndex: call.callIndex,
      returnIndex: index,
      crashed: false,
      ...(call.time !== undefined ? { callTimeMs: call.time / 1e6 } : {}),
      ...(time !== undefined ? { returnTimeMs: time / 1e6 } : {}),
    });
  });
  for (const o of open.values()) crash(o);
  ops.sort((a, b) => a.callIndex - b.callIndex);
  return ops.map((op, id) => ({ ...op, id }));
}
