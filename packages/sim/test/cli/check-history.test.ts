/** End-to-end: `moonpool check-history` on EDN and JSON histories: verdicts, exit codes, HTML, usage errors. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { knossosHistoryFromRecords, parseKnossosHistory } from "../../src/linearizability/knossos.ts";
import { runCli, tempDir } from "./helpers.ts";

const GOOD = `[{:process 0, :type :invoke, :f :write, :value 1}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 0, :type :ok, :f :write, :value 1}
{:process 1, :type :ok, :f :read, :value 0}]`;
const BAD = `[{:process 0, :type :invoke, :f :write, :value 1}
{:process 0, :type :ok, :f :write, :value 1}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 1, :type :ok, :f :read, :value 0}]`;

// Two keys appended to by two processes, as a Jepsen kv test writes them: x is fine, y reads a value
// that was never appended.
const KV_GOOD = `[{:process 0, :type :invoke, :f :append, :key :x, :value 1}
{:process 0, :type :ok, :f :append, :key :x, :value 1}
{:process 1, :type :invoke, :f :append, :key :y, :value 2}
{:process 1, :type :ok, :f :append, :key :y, :value 2}
{:process 0, :type :invoke, :f :get, :key :x, :value nil}
{:process 0, :type :ok, :f :get, :key :x, :value [1]}
{:process 1, :type :invoke, :f :get, :key :y, :value nil}
{:process 1, :type :ok, :f :get, :key :y, :value [2]}]`;
const KV_BAD = KV_GOOD.replace(":key :y, :value [2]}]", ":key :y, :value [3]}]");
// The same history with its keys dropped: no verdict is possible, and the reason says so.
const KV_NO_KEYS = KV_GOOD.replace(/:key :[xy], /g, "");

describe("moonpool check-history", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir("history");
    await writeFile(path.join(dir, "good.edn"), GOOD);
    await writeFile(path.join(dir, "bad.edn"), BAD);
    await writeFile(
      path.join(dir, "bad.json"),
      JSON.stringify([
        { process: 0, type: "invoke", f: "write", value: 1 },
        { process: 0, type: "ok", f: "write", value: 1 },
        { process: 1, type: "invoke", f: "read", value: null },
        { process: 1, type: "ok", f: "read", value: 0 },
      ]),
    );
    await writeFile(
      path.join(dir, "recorded.json"),
      JSON.stringify([
        { index: 0, type: "invoke", client: "a", op: 0, input: { f: "put", key: "x", value: 1 }, timeMs: 0 },
        { index: 1, type: "ok", client: "a", op: 0, input: { f: "put", key: "x", value: 1 }, timeMs: 5 },
        { index: 2, type: "invoke", client: "b", op: 1, input: { f: "get", key: "x" }, timeMs: 6 },
        { index: 3, type: "ok", client: "b", op: 1, input: { f: "get", key: "x" }, output: 1, timeMs: 9 },
      ]),
    );
    await writeFile(path.join(dir, "broken.edn"), "[{:process 0 :type}]");
    await writeFile(path.join(dir, "kv-good.edn"), KV_GOOD);
    await writeFile(path.join(dir, "kv-bad.edn"), KV_BAD);
    await writeFile(path.join(dir, "kv-no-keys.edn"), KV_NO_KEYS);
    await writeFile(path.join(dir, "unknown-f.edn"), GOOD.replaceAll(":write", ":incr"));
    await writeFile(path.join(dir, "orphan.json"), JSON.stringify([{ process: 0, type: "ok", f: "write", value: 1 }]));
    await writeFile(path.join(dir, "object.json"), JSON.stringify({ history: [] }));
  });

  it("exit 0 and 'linearizable' for a legal history (initial value set with --initial)", async () => {
    const r = await runCli(["check-history", "good.edn", "--model", "register", "--initial", "0"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^linearizable: 2 operations in 1 part, model register/);
  });

  it("exit 1 with the explanation for an illegal history, from EDN and from JSON records", async () => {
    for (const file of ["bad.edn", "bad.json"]) {
      const r = await runCli(["check-history", file, "--model", "register", "--initial", "0"], { cwd: dir });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toContain("not linearizable: part 1 of 1 has no valid order (model register)");
      expect(r.stdout).toContain("cannot place: 1: read → 0 (events 2–3)");
    }
  });

  it("reads HistoryRecorder events as JSON", async () => {
    const r = await runCli(["check-history", "recorded.json", "--model", "kv"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("linearizable: 2 operations in 1 part, model kv");
  });

  it("writes a self-contained HTML view with --html", async () => {
    const r = await runCli(
      ["check-history", "bad.edn", "--model", "register", "--initial", "0", "--html", "bad.html"],
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("HTML: bad.html");
    const html = await readFile(path.join(dir, "bad.html"), "utf8");
    expect(html).toContain("<svg");
    expect(html).toContain('class="op stuck"');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
  });

  it("usage errors say what to change (exit 2)", async () => {
    const noModel = await runCli(["check-history", "good.edn"], { cwd: dir });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain("--model is required: one of register, cas-register, kv");
    const unknown = await runCli(["check-history", "good.edn", "--model", "queue"], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--model 'queue': known models are");
    const broken = await runCli(["check-history", "broken.edn", "--model", "register"], { cwd: dir });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("broken.edn: EDN line 1: a map needs an even number of forms");
    const missing = await runCli(["check-history", "nope.edn", "--model", "register"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read nope.edn: ENOENT");
    const badInitial = await runCli(["check-history", "good.edn", "--model", "register", "--initial", "{x"], {
      cwd: dir,
    });
    expect(badInitial.code).toBe(2);
    expect(badInitial.stderr).toContain("--initial '{x': expected a JSON value");
  });

  it("multi-key EDN histories keep :key: exit 0 for a legal one, 1 naming the key for an illegal one", async () => {
    const good = await runCli(["check-history", "kv-good.edn", "--model", "kv"], { cwd: dir });
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^linearizable: 4 operations in 2 parts, model kv/);
    const bad = await runCli(["check-history", "kv-bad.edn", "--model", "kv"], { cwd: dir });
    expect(bad.code, bad.stderr).toBe(1);
    expect(bad.stdout).toContain("not linearizable");
    expect(bad.stdout).toContain("get y → [3]");
    expect(bad.stderr).toBe("");
  });

  it("exit 2 with a one-line reason, never a stack trace, for anything that is not a verdict", async () => {
    const cases: [file: string, model: string, reason: string][] = [
      ["kv-no-keys.edn", "kv", "kv-no-keys.edn: kv model: operation append has no key; give every operation one"],
      ["unknown-f.edn", "register", 'unknown-f.edn: register model: unknown operation "incr"; use one of read, write'],
      ["orphan.json", "register", "orphan.json: history entry 0: process 0 completes write without an invocation"],
      ["object.json", "register", "object.json: expected a JSON array of history events"],
      ["broken.edn", "kv", "broken.edn: EDN line 1: a map needs an even number of forms"],
    ];
    for (const [file, model, reason] of cases) {
      const r = await runCli(["check-history", file, "--model", model], { cwd: dir });
      expect(r.code, `${file}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.startsWith(`moonpool: ${reason}`), r.stderr).toBe(true);
      expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe("the Knossos importer", () => {
  it("keeps each record's :key, from the invocation or else the completion, on completed and crashed ops", () => {
    const ops = parseKnossosHistory(`[{:process 0, :type :invoke, :f :put, :key :x, :value 1}
{:process 0, :type :ok, :f :put, :key :x, :value 1}
{:process 1, :type :invoke, :f :get, :value nil}
{:process 1, :type :ok, :f :get, :key 7, :value nil}
{:process 2, :type :invoke, :f :append, :key "z", :value 3}
{:process 2, :type :info, :f :append, :key "z", :value 3}]`);
    expect(ops.map((o) => [o.input, o.output, o.crashed])).toEqual([
      [{ f: "put", key: "x", value: 1 }, true, false],
      [{ f: "get", key: "7", value: null }, null, false],
      [{ f: "append", key: "z", value: 3 }, undefined, true],
    ]);
  });

  it("leaves records without a key unkeyed, and passes transactions' micro-ops through", () => {
    const ops = knossosHistoryFromRecords([
      {
        process: 0,
        type: "invoke",
        f: "txn",
        value: [
          ["read", "x", null],
          ["write", "y", 1],
        ],
      },
      {
        process: 0,
        type: "ok",
        f: "txn",
        value: [
          ["read", "x", 0],
          ["write", "y", 1],
        ],
      },
    ]);
    expect(ops).toHaveLength(1);
    expect(ops[0]!.input).toEqual({
      f: "txn",
      value: [
        ["read", "x", 0],
        ["write", "y", 1],
      ],
    });
    expect("key" in ops[0]!.input).toBe(false);
  });
});
