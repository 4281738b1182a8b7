/** End-to-end: `moonpool check-history` on EDN and JSON histories: verdicts, exit codes, HTML, usage errors. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers.ts";

const GOOD = `[{:process 0, :type :invoke, :f :write, :value 1}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 0, :type :ok, :f :write, :value 1}
{:process 1, :type :ok, :f :read, :value 0}]`;
const BAD = `[{:process 0, :type :invoke, :f :write, :value 1}
{:process 0, :type :ok, :f :write, :value 1}
{:process 1, :type :invoke, :f :read, :value nil}
{:process 1, :type :ok, :f :read, :value 0}]`;

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
});
