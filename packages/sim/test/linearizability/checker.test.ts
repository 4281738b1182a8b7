import { describe, expect, it } from "vitest";
import {
  casRegisterModel,
  checkLinearizability,
  CheckOptionsError,
  explainCheck,
  fifoQueueModel,
  kvModel,
  mutexModel,
  registerModel,
  setModel,
  type DeterministicModel,
  type NondeterministicModel,
  type Operation,
  type OpInput,
} from "../../src/linearizability/index.ts";
import { oracleLinearizable } from "./oracle.ts";

/** Builds operations from [client, input, output | undefined (crashed), call, return] rows. */
function ops(rows: [string, OpInput, unknown, number, number?][]): Operation[] {
  return rows.map(([client, input, output, call, ret], id) => ({
    id,
    client,
    input,
    output: ret === undefined ? undefined : output,
    callIndex: call,
    returnIndex: ret ?? Infinity,
    crashed: ret === undefined,
  }));
}

/** A sequential history: each operation completes before the next starts. */
function sequential(rows: [string, OpInput, unknown][]): Operation[] {
  return ops(rows.map(([c, i, o], k) => [c, i, o, 2 * k, 2 * k + 1]));
}

describe("built-in models", () => {
  it("register: a read sees the last write; a stale read in sequence is illegal", () => {
    const ok = sequential([
      ["a", { f: "write", value: 1 }, undefined],
      ["b", { f: "read" }, 1],
    ]);
    expect(checkLinearizability(registerModel(0), ok).verdict).toBe("linearizable");
    const stale = sequential([
      ["a", { f: "write", value: 1 }, undefined],
      ["b", { f: "read" }, 0],
    ]);
    expect(checkLinearizability(registerModel(0), stale).verdict).toBe("illegal");
  });

  it("register: concurrent write and read may be ordered either way", () => {
    const h = ops([
      ["a", { f: "write", value: 1 }, undefined, 0, 3],
      ["b", { f: "read" }, 0, 1, 2],
    ]);
    expect(checkLinearizability(registerModel(0), h).verdict).toBe("linearizable");
  });

  it("cas-register: cas succeeds only on the expected value; a false cas certifies a mismatch", () => {
    const m = casRegisterModel(0);
    expect(
      checkLinearizability(
        m,
        sequential([
          ["a", { f: "cas", value: [0, 5] }, true],
          ["b", { f: "read" }, 5],
        ]),
      ).verdict,
    ).toBe("linearizable");
    expect(checkLinearizability(m, sequential([["a", { f: "cas", value: [1, 5] }, true]])).verdict).toBe("illegal");
    expect(checkLinearizability(m, sequential([["a", { f: "cas", value: [0, 5] }, false]])).verdict).toBe("illegal");
    expect(
      checkLinearizability(
        m,
        sequential([
          ["a", { f: "cas", value: [1, 5] }, false],
          ["b", { f: "read" }, 0],
        ]),
      ).verdict,
    ).toBe("linearizable");
  });

  it("kv: get/put/append per key, checked key by key", () => {
    const m = kvModel();
    const h = sequential([
      ["a", { f: "put", key: "x", value: 1 }, undefined],
      ["b", { f: "append", key: "y", value: "p" }, undefined],
      ["a", { f: "append", key: "y", value: "q" }, undefined],
      ["c", { f: "get", key: "x" }, 1],
      ["c", { f: "get", key: "y" }, ["p", "q"]],
      ["c", { f: "get", key: "z" }, null],
    ]);
    const r = checkLinearizability(m, h);
    expect(r.verdict).toBe("linearizable");
    expect(r.parts).toHaveLength(3);
    const bad = sequential([
      ["a", { f: "append", key: "y", value: "p" }, undefined],
      ["c", { f: "get", key: "y" }, ["q"]],
    ]);
    expect(checkLinearizability(m, bad).verdict).toBe("illegal");
  });

  it("set: a read returns exactly the members added before it, in any order", () => {
    const m = setModel();
    const h = sequential([
      ["a", { f: "add", value: 1 }, undefined],
      ["b", { f: "add", value: 2 }, undefined],
      ["c", { f: "read" }, [2, 1]],
    ]);
    expect(checkLinearizability(m, h).verdict).toBe("linearizable");
    const lost = sequential([
      ["a", { f: "add", value: 1 }, undefined],
      ["c", { f: "read" }, []],
    ]);
    expect(checkLinearizability(m, lost).verdict).toBe("illegal");
  });

  it("fifo-queue: dequeues in enqueue order, null only when empty", () => {
    const m = fifoQueueModel();
    const h = sequential([
      ["a", { f: "enqueue", value: 1 }, undefined],
      ["a", { f: "enqueue", value: 2 }, undefined],
      ["b", { f: "dequeue" }, 1],
      ["b", { f: "dequeue" }, 2],
      ["b", { f: "dequeue" }, null],
    ]);
    expect(checkLinearizability(m, h).verdict).toBe("linearizable");
    const lifo = sequential([
      ["a", { f: "enqueue", value: 1 }, undefined],
      ["a", { f: "enqueue", value: 2 }, undefined],
      ["b", { f: "dequeue" }, 2],
    ]);
    expect(checkLinearizability(m, lifo).verdict).toBe("illegal");
  });

  it("mutex: two holders at once are illegal; overlapping release and acquire are fine", () => {
    const m = mutexModel();
    expect(
      checkLinearizability(
        m,
        sequential([
          ["a", { f: "acquire" }, true],
          ["b", { f: "acquire" }, true],
        ]),
      ).verdict,
    ).toBe("illegal");
    const h = ops([
      ["a", { f: "acquire" }, true, 0, 1],
      ["a", { f: "release" }, true, 2, 5],
      ["b", { f: "acquire" }, true, 3, 4],
    ]);
    expect(checkLinearizability(m, h).verdict).toBe("linearizable");
  });

  it("unknown operations get an error naming the allowed ones", () => {
    expect(() => checkLinearizability(registerModel(), sequential([["a", { f: "incr" }, 1]]))).toThrow(
      /use one of read, write/,
    );
  });
});

describe("crashed (indeterminate) operations", () => {
  it("may take effect after their invocation", () => {
    const h = ops([
      ["a", { f: "write", value: 1 }, undefined, 0],
      ["b", { f: "read" }, 1, 1, 2],
    ]);
    expect(checkLinearizability(registerModel(0), h).verdict).toBe("linearizable");
  });

  it("may never take effect", () => {
    const h = ops([
      ["a", { f: "write", value: 1 }, undefined, 0],
      ["b", { f: "read" }, 0, 1, 2],
      ["b", { f: "read" }, 0, 3, 4],
    ]);
    expect(checkLinearizability(registerModel(0), h).verdict).toBe("linearizable");
  });

  it("never take effect before their invocation", () => {
    const h = ops([
      ["b", { f: "read" }, 1, 0, 1],
      ["a", { f: "write", value: 1 }, undefined, 2],
    ]);
    expect(checkLinearizability(registerModel(0), h).verdict).toBe("illegal");
  });

  it("take effect at most once", () => {
    const h = ops([
      ["a", { f: "append", key: "k", value: "x" }, undefined, 0],
      ["b", { f: "get", key: "k" }, ["x"], 1, 2],
      ["b", { f: "get", key: "k" }, ["x", "x"], 3, 4],
    ]);
    expect(checkLinearizability(kvModel(), h).verdict).toBe("illegal");
  });
});

describe("nondeterministic models", () => {
  // A register whose write may be lost: the state after it is the new or the old value.
  const lossy: NondeterministicModel<number, OpInput, unknown> = {
    name: "lossy-register",
    nondeterministic: true,
    init: () => [0],
    step: (s, input, output) => {
      if (input.f === "write") return [s, input.value as number];
      return output === undefined || output === s ? [s] : [];
    },
  };

  it("are checked over sets of states", () => {
    const h = sequential([
      ["a", { f: "write", value: 1 }, undefined],
      ["b", { f: "read" }, 0],
      ["c", { f: "write", value: 2 }, undefined],
      ["b", { f: "read" }, 2],
    ]);
    expect(checkLinearizability(lossy, h).verdict).toBe("linearizable");
    const h2 = sequential([
      ["a", { f: "write", value: 1 }, undefined],
      ["b", { f: "read" }, 3],
    ]);
    expect(checkLinearizability(lossy, h2).verdict).toBe("illegal");
  });
});

// A small deterministic PRNG so these property tests are reproducible.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

/** A random concurrent history produced by a real linearizable register (each op takes effect inside its span). */
function randomRegisterHistory(rand: () => number, n: number, clients: number): Operation[] {
  type Pending = { client: string; input: OpInput; call: number; effectAt: number; output?: unknown };
  let value = 0;
  let pos = 0;
  const open = new Map<string, Pending>();
  const done: Operation[] = [];
  let started = 0;
  while (started < n || open.size > 0) {
    const idle = [...Array(clients).keys()].map((c) => `c${c}`).filter((c) => !open.has(c));
    if (started < n && idle.length > 0 && rand() < 0.5) {
      const client = idle[Math.floor(rand() * idle.length)]!;
      const input: OpInput = rand() < 0.5 ? { f: "read" } : { f: "write", value: Math.floor(rand() * 4) };
      open.set(client, { client, input, call: pos++, effectAt: -1 });
      started++;
      continue;
    }
    const list = [...open.values()];
    if (list.length === 0) continue;
    const p = list[Math.floor(rand() * list.length)]!;
    if (p.effectAt < 0) {
      p.effectAt = pos++;
      if (p.input.f === "write") value = p.input.value as number;
      else p.output = value;
      continue;
    }
    open.delete(p.client);
    const crashed = rand() < 0.1;
    done.push({
      id: 0,
      client: p.client,
      input: p.input,
      output: crashed ? undefined : p.output,
      callIndex: p.call,
      returnIndex: crashed ? Infinity : pos++,
      crashed,
    });
  }
  return done.sort((a, b) => a.callIndex - b.callIndex).map((op, id) => ({ ...op, id }));
}

describe("properties", () => {
  it("random sequential histories of a real register are always linearizable", () => {
    const rand = prng(7);
    for (let t = 0; t < 200; t++) {
      let v = 0;
      const rows: [string, OpInput, unknown][] = [];
      for (let k = 0; k < 30; k++) {
        if (rand() < 0.5) rows.push([`c${k % 3}`, { f: "read" }, v]);
        else rows.push([`c${k % 3}`, { f: "write", value: (v = Math.floor(rand() * 5)) }, undefined]);
      }
      expect(checkLinearizability(registerModel(0), sequential(rows)).verdict).toBe("linearizable");
    }
  });

  it("random concurrent histories of a real register are linearizable; one corrupted read is not", () => {
    const rand = prng(11);
    let corruptedIllegal = 0;
    for (let t = 0; t < 150; t++) {
      const h = randomRegisterHistory(rand, 24, 4);
      expect(checkLinearizability(registerModel(0), h).verdict).toBe("linearizable");
      // Corrupt one completed read to a value never written: no order can explain it.
      const reads = h.filter((o) => o.input.f === "read" && !o.crashed);
      if (reads.length === 0) continue;
      const victim = reads[Math.floor(rand() * reads.length)]!;
      const corrupted = h.map((o) => (o.id === victim.id ? { ...o, output: 99 } : o));
      expect(checkLinearizability(registerModel(0), corrupted).verdict).toBe("illegal");
      corruptedIllegal++;
    }
    expect(corruptedIllegal).toBeGreaterThan(100);
  });

  it("agrees with an independent configuration-search oracle on random mutated histories", () => {
    const rand = prng(23);
    const seen = { linearizable: 0, illegal: 0 };
    for (let t = 0; t < 300; t++) {
      const h = randomRegisterHistory(rand, 12, 3).map((o) =>
        o.input.f === "read" && !o.crashed && rand() < 0.15 ? { ...o, output: Math.floor(rand() * 4) } : o,
      );
      const expected = oracleLinearizable(registerModel(0) as DeterministicModel<unknown, OpInput, unknown>, h);
      const verdict = checkLinearizability(registerModel(0), h).verdict;
      expect(verdict).toBe(expected ? "linearizable" : "illegal");
      seen[verdict as "linearizable" | "illegal"]++;
    }
    expect(seen.linearizable).toBeGreaterThan(30);
    expect(seen.illegal).toBeGreaterThan(30);
  });
});

describe("budgets and interleaving", () => {
  // Thirty concurrent writes followed by a read of a value never written: proving it illegal
  // means trying every subset and order of the writes, far beyond any reasonable budget.
  function hardPart(key: string): Operation[] {
    const rows: [string, OpInput, unknown, number, number][] = [];
    for (let c = 0; c < 30; c++) rows.push([`w${c}`, { f: "put", key, value: c }, undefined, c, 30 + c]);
    rows.push(["r", { f: "get", key }, 999, 60, 61]);
    return ops(rows);
  }

  it("a hard part stops at the step budget as unknown, never as a verdict", () => {
    const r = checkLinearizability(kvModel(), hardPart("hard"), { maxSteps: 50_000 });
    expect(r.verdict).toBe("unknown");
    expect(r.stoppedBy).toBe("steps");
    expect(explainCheck(kvModel(), r)).toMatch(/^unknown: the search stopped \(steps\)/);
  });

  it("a wall-clock timeout also gives unknown", () => {
    const r = checkLinearizability(kvModel(), hardPart("hard"), { timeoutMs: 50 });
    expect(r.verdict).toBe("unknown");
    expect(r.stoppedBy).toBe("timeout");
  });

  it("the step budget holds inside a slice: maxSteps 1,000 runs 1,000 steps, not the 2,000 of a default slice", () => {
    const r = checkLinearizability(kvModel(), hardPart("hard"), { maxSteps: 1_000 });
    expect(r.stoppedBy).toBe("steps");
    expect(r.steps).toBe(1_000);
    const two = [...hardPart("a"), ...hardPart("b")].map((o, id) => ({ ...o, id }));
    const split = checkLinearizability(kvModel(), two, { maxSteps: 3_000, sliceSteps: 2_000 });
    expect(split.steps).toBe(3_000);
    expect(split.parts.map((p) => p.steps)).toEqual([2_000, 1_000]);
  });

  it("without a budget a part runs whole slices (the limits change nothing else)", () => {
    const r = checkLinearizability(kvModel(), hardPart("hard"), { maxSteps: 4_000, sliceSteps: 2_000 });
    expect(r.steps).toBe(4_000);
  });

  it("the timeout holds inside a slice: a 1 ms limit stops a 10-million-step slice long before its end", () => {
    const r = checkLinearizability(kvModel(), hardPart("hard"), { timeoutMs: 1, sliceSteps: 10_000_000 });
    expect(r.stoppedBy).toBe("timeout");
    expect(r.steps).toBeLessThan(10_000_000);
  });

  it("kvModel's numeric state hash is confirmed by structural equality: equal states, and colliding ones, are told apart", () => {
    const m = kvModel();
    const a = m.step(
      m.step(m.init(), { f: "append", key: "k", value: "x" }, undefined).state,
      { f: "append", key: "k", value: "y" },
      undefined,
    ).state;
    const b = m.step(m.init(), { f: "put", key: "k", value: ["x", "y"] }, undefined).state;
    expect(m.hash!(a)).toBe(m.hash!(b));
    expect(m.equal!(a, b)).toBe(true);
    const c = m.step(m.init(), { f: "put", key: "k", value: ["y", "x"] }, undefined).state;
    expect(m.equal!(a, c)).toBe(false);
    expect(m.equal!(a, { ...a, other: 1 })).toBe(false);
    expect(m.step(a, { f: "get", key: "k" }, ["x", "y"]).ok).toBe(true);
    expect(m.step(a, { f: "get", key: "k" }, ["x"]).ok).toBe(false);
    // Explanations print an appended-to value as the array it stands for.
    expect(JSON.stringify(m.step(a, { f: "append", key: "k", value: "z" }, undefined).state)).toBe(
      '{"k":["x","y","z"]}',
    );
  });

  it("an easy illegal part is reported while a hard part is still unfinished", () => {
    const easy = ops([
      ["a", { f: "put", key: "easy", value: 1 }, undefined, 100, 101],
      ["b", { f: "get", key: "easy" }, 2, 102, 103],
    ]);
    const history = [...hardPart("hard"), ...easy].map((o, id) => ({ ...o, id }));
    const r = checkLinearizability(kvModel(), history, { timeoutMs: 60_000 });
    expect(r.verdict).toBe("illegal");
    expect(r.parts[r.illegalPart!]!.operations[0]!.input.key).toBe("easy");
    expect(r.parts.find((p) => p.operations[0]!.input.key === "hard")!.verdict).toBe("unknown");
  });

  it("rejects budgets that are not positive numbers", () => {
    expect(() => checkLinearizability(kvModel(), [], { timeoutMs: 0 })).toThrow(CheckOptionsError);
    expect(() => checkLinearizability(kvModel(), [], { maxSteps: Number.NaN })).toThrow(
      /maxSteps must be a positive number/,
    );
  });
});

describe("explanations", () => {
  it("name the longest partial linearization and the operation that could not be placed", () => {
    const h = sequential([
      ["a", { f: "write", value: 1 }, undefined],
      ["b", { f: "write", value: 2 }, undefined],
      ["c", { f: "read" }, 1],
    ]);
    const r = checkLinearizability(registerModel(0), h);
    const text = explainCheck(registerModel(0), r);
    expect(text).toContain("not linearizable: part 1 of 1");
    expect(text).toContain("longest linearization found: 2 of 3 operations");
    expect(text).toContain("state after it: 2");
    expect(text).toContain("cannot place: c: read → 1 (events 4–5)");
  });

  it("say linearizable with the counts", () => {
    const r = checkLinearizability(registerModel(0), sequential([["a", { f: "read" }, 0]]));
    expect(explainCheck(registerModel(0), r)).toBe("linearizable: 1 operation in 1 part, model register");
  });
});
