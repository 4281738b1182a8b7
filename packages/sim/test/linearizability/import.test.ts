import { describe, expect, it } from "vitest";
import { EdnParseError, HistoryError, parseEdn, parseKnossosHistory } from "../../src/linearizability/index.ts";

describe("EDN reader", () => {
  it("reads the forms Jepsen writes", () => {
    const [v] = parseEdn(`[{:process 1, :type :ok, :f :cas, :value [1 2], :s "a\\"b", :n nil, :b true}
      ; a comment
      #{1 2} (3 4) #_ {:ignored 1} #inst "2020-01-01" -5 1.5 12N \\a]`);
    expect(v).toEqual([
      { process: 1, type: "ok", f: "cas", value: [1, 2], s: 'a"b', n: null, b: true },
      [1, 2],
      [3, 4],
      "2020-01-01",
      -5,
      1.5,
      12,
      "a",
    ]);
  });

  it("reports the line of a syntax error", () => {
    expect(() => parseEdn("[{:a 1}\n{:b}]")).toThrow(EdnParseError);
    expect(() => parseEdn("[{:a 1}\n{:b}]")).toThrow(/line 2: a map needs an even number of forms/);
    expect(() => parseEdn("[1 2")).toThrow(/missing "]"/);
    expect(() => parseEdn("]")).toThrow(/unexpected "]"/);
  });

  it("keeps the complete forms of a cut-off collection when asked", () => {
    let line = 0;
    expect(parseEdn("[{:a 1}\n{:b 2}\n{:c", { onTruncated: (l) => (line = l) })).toEqual([[{ a: 1 }, { b: 2 }]]);
    expect(line).toBe(3);
  });
});

describe("Knossos import", () => {
  it("applies Knossos' semantics: ok values copied, fail removed, info crashed, nemesis ignored, nil read unknown", () => {
    const ops = parseKnossosHistory(`[
      {:process 0, :type :invoke, :f :write, :value 1}
      {:process 1, :type :invoke, :f :read, :value nil}
      {:process :nemesis, :type :info, :f :start}
      {:process 0, :type :ok, :f :write, :value 1}
      {:process 1, :type :ok, :f :read, :value 1}
      {:process 2, :type :invoke, :f :cas, :value [1 2]}
      {:process 2, :type :fail, :f :cas, :value [1 2]}
      {:process 3, :type :invoke, :f :write, :value 5}
      {:process 3, :type :info, :f :write, :value 5}
      {:process 4, :type :invoke, :f :read, :value nil}
      {:process 4, :type :ok, :f :read, :value nil}
      {:process 5, :type :invoke, :f :cas, :value [1 3]}
      {:process 5, :type :ok, :f :cas, :value [1 3]}
    ]`);
    expect(ops.map((o) => [o.client, o.input.f, o.input.value, o.output, o.crashed])).toEqual([
      ["0", "write", 1, true, false],
      ["1", "read", null, 1, false],
      ["3", "write", 5, undefined, true],
      ["4", "read", null, undefined, false],
      ["5", "cas", [1, 3], true, false],
    ]);
    expect(ops.map((o) => o.id)).toEqual([0, 1, 2, 3, 4]);
    expect(ops[2]!.returnIndex).toBe(Infinity);
  });

  it("treats a process id reused after an unfinished invocation as a new operation, crashing the old one", () => {
    const ops = parseKnossosHistory(`[{:process 0, :type :invoke, :f :write, :value 1}
      {:process 0, :type :invoke, :f :write, :value 2}
      {:process 0, :type :ok, :f :write, :value 2}]`);
    expect(ops.map((o) => [o.input.value, o.crashed])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it("rejects a completion without an invocation, naming the entry", () => {
    expect(() => parseKnossosHistory(`[{:process 0, :type :ok, :f :read, :value 1}]`)).toThrow(HistoryError);
    expect(() => parseKnossosHistory(`[{:process 0, :type :ok, :f :read, :value 1}]`)).toThrow(
      /entry 0: process 0 completes read without an invocation/,
    );
  });
});
