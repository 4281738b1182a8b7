import { describe, expect, it } from "vitest";
import { checkLinearizability, HistoryError, HistoryRecorder, kvModel } from "../../src/linearizability/index.ts";
import type { TraceFields, Tracer } from "@moonpool/core";

function fakeTrace(): { tracer: Tracer; events: [string, TraceFields | undefined][] } {
  const events: [string, TraceFields | undefined][] = [];
  const record = (name: string, fields?: TraceFields) => void events.push([name, fields]);
  return { tracer: { trace: record, debug: record, info: record, warn: record, error: record }, events };
}

describe("HistoryRecorder", () => {
  it("records invoke/ok/fail/info in order, stamped with time and client, and builds the history", () => {
    let now = 0;
    const { tracer, events } = fakeTrace();
    const h = new HistoryRecorder({ time: { now: () => now }, trace: tracer });
    const put = h.invoke("c1", { f: "put", key: "x", value: 1 });
    now = 5;
    const get = h.invoke("c2", { f: "get", key: "x" });
    const failed = h.invoke("c3", { f: "put", key: "x", value: 2 });
    const lost = h.invoke("c4", { f: "put", key: "x", value: 3 });
    h.invoke("c5", { f: "put", key: "x", value: 4 }); // never completes: crashed
    now = 9;
    put.ok();
    get.ok(1);
    failed.fail();
    lost.info();
    expect(h.events.map((e) => [e.type, e.client, e.timeMs])).toEqual([
      ["invoke", "c1", 0],
      ["invoke", "c2", 5],
      ["invoke", "c3", 5],
      ["invoke", "c4", 5],
      ["invoke", "c5", 5],
      ["ok", "c1", 9],
      ["ok", "c2", 9],
      ["fail", "c3", 9],
      ["info", "c4", 9],
    ]);
    const history = h.history();
    expect(history.map((o) => [o.client, o.crashed, o.output])).toEqual([
      ["c1", false, undefined],
      ["c2", false, 1],
      ["c4", true, undefined],
      ["c5", true, undefined],
    ]);
    expect(history[0]!.returnTimeMs).toBe(9);
    expect(checkLinearizability(kvModel(), history).verdict).toBe("linearizable");
    expect(events).toHaveLength(9);
    expect(events[6]).toEqual([
      "history",
      { type: "ok", client: "c2", op: 1, f: "get", key: "x", value: null, output: "1" },
    ]);
  });

  it("rejects completing an operation twice", () => {
    const h = new HistoryRecorder();
    const op = h.invoke("c", { f: "get", key: "k" });
    op.ok(null);
    expect(() => op.info()).toThrow(HistoryError);
    expect(() => op.ok(null)).toThrow(/already completed; complete each once/);
  });

  it("without a trace or clock it keeps the history in memory, at time 0", () => {
    const h = new HistoryRecorder();
    h.invoke("c", { f: "get", key: "k" }).ok(null);
    expect(h.operationCount).toBe(1);
    expect(h.events[1]!.timeMs).toBe(0);
  });
});
