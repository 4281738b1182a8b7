/**
 * Imports Jepsen/Knossos histories (EDN vectors of `{:process :type :f :value}` maps) with
 * Knossos' semantics: an `:ok` completion's value is copied into its invocation, `:fail`
 * operations are removed, `:info` completions and invocations that never complete are crashed,
 * nemesis operations are ignored, a `nil` read is unknown, and a process id may be reused after
 * a crash.
 */
import { parseEdn, type EdnValue } from "./edn.ts";
import { HistoryError, type OpInput, type Operation } from "./history.ts";

interface Open {
  readonly process: string;
  readonly f: string;
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

/** The same import from already parsed records (e.g. a JSON export of a Jepsen history). */
export function knossosHistoryFromRecords(events: readonly unknown[]): Operation<OpInput, unknown>[] {
  const open = new Map<string, Open>();
  const ops: Omit<Operation<OpInput, unknown>, "id">[] = [];
  const crash = (o: Open): void => {
    ops.push({
      client: o.process,
      input: { f: o.f, value: o.value },
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
    if (type === "invoke") {
      const previous = open.get(process);
      if (previous !== undefined) crash(previous);
      open.set(process, {
        process,
        f,
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
    const isRead = f === "read";
    ops.push({
      client: process,
      input: { f, value: isRead ? null : value },
      output: isRead ? (value === null ? undefined : value) : true,
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
