/**
 * End-to-end: the command line follows Vitest/Playwright conventions: short flags, --bail [n] and
 * -x, a short error with a suggestion for an unknown option, --out checked before the campaign,
 * merge writing a file by default, --seeds taking printed lists, --last-failed / --seeds-from.
 */
import { access, readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJson, runCli, tempDir } from "./helpers.ts";

describe("moonpool CLI conventions", () => {
  it("an unknown option: a short error with a suggestion, exit 2, not the whole help", async () => {
    const typo = await runCli(["run", "counter", "--seed5", "1"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("error: unknown option '--seed5'");
    expect(typo.stderr).toContain("Did you mean one of --seed, --seeds?");
    expect(typo.stderr.trim().split("\n").length).toBeLessThanOrEqual(4);
    expect(typo.stderr).not.toContain("--strict-coverage");
  });

  it("short flags -s -n -j -r -o -c, and --bail n / -x stop after that many failing seeds", async () => {
    const out = await tempDir("short");
    const [short, bail2, x] = await Promise.all([
      runCli([
        "run",
        "counter",
        "-n",
        "3",
        "-j",
        "1",
        "-r",
        "json",
        "-o",
        path.join(out, "short"),
        "-c",
        "moonpool.config.ts",
        "--base-seed",
        "1",
      ]),
      runCli([
        "run",
        "planted-bug",
        "--bail",
        "2",
        "-n",
        "40",
        "--base-seed",
        "3",
        "-r",
        "json",
        "-o",
        path.join(out, "bail2"),
      ]),
      runCli(["run", "planted-bug", "-x", "-n", "40", "--base-seed", "3", "-r", "json", "-o", path.join(out, "x")]),
    ]);
    expect(short.code, short.stderr).toBe(0);
    const shortJson = await readJson(path.join(out, "short", "report.json"));
    expect(shortJson.simulations[0].report.iterations).toBe(3);
    expect(shortJson.host.workers).toBe(1);
    // Every file loaded, every declared safety assertion ran: neither field is written.
    expect("loadFailures" in shortJson).toBe(false);
    const seed = shortJson.simulations[0].report.seedsUsed[1];
    const one = await runCli(["run", "counter", "-s", String(seed), "-r", "json", "-o", path.join(out, "one")]);
    expect((await readJson(path.join(out, "one", "report.json"))).simulations[0].report.seedsUsed).toEqual([seed]);
    expect(one.code).toBe(0);
    for (const [run, dir, failing] of [
      [bail2, "bail2", 2],
      [x, "x", 1],
    ] as const) {
      expect(run.code).toBe(1);
      const entry = (await readJson(path.join(out, dir, "report.json"))).simulations[0];
      expect(entry.stoppedBy).toBe("bail");
      expect(entry.report.failedRuns).toBe(failing);
      expect(entry.report.seeds.at(-1).ok).toBe(false);
    }
    const bad = await runCli(["run", "counter", "--bail", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--bail '0': expected a positive integer");
  });

  it("a report folder that cannot be written is an error before any seed runs", async () => {
    const out = await tempDir("badout");
    const blocked = path.join(out, "file");
    await (await import("node:fs/promises")).writeFile(blocked, "not a folder");
    const run = await runCli(["run", "counter", "-r", "json", "-o", path.join(blocked, "reports")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--out '.*reports': cannot write reports there \(ENOTDIR\); pass a writable folder/);
    expect(run.stderr).not.toContain("▶ counter");
  });

  it("--seeds takes the printed lists; --last-failed and --seeds-from rerun the recorded failing seeds", async () => {
    const out = await tempDir("lastfailed");
    const first = await runCli(["run", "planted-bug", "counter", "--base-seed", "3", "-r", "json", "-o", out]);
    expect(first.code).toBe(1);
    const recorded = (await readJson(path.join(out, "report.json"))).simulations.find(
      (s: any) => s.name === "planted-bug",
    ).report.seedsFailing as number[];
    expect(recorded.length).toBeGreaterThan(0);
    const again = await runCli(["run", "--last-failed", "-r", "json", "-o", out]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `rerunning the failing seeds recorded in ${path.join(out, "report.json")}: planted-bug (${recorded.length} seed`,
    );
    const rerun = await readJson(path.join(out, "report.json"));
    expect(rerun.simulations.map((s: any) => s.name)).toEqual(["planted-bug"]);
    expect(rerun.simulations[0].report.seedsUsed).toEqual(recorded);
    expect(rerun.simulations[0].report.failedRuns).toBe(recorded.length);
    const from = await runCli([
      "run",
      "--seeds-from",
      path.join(out, "report.json"),
      "-r",
      "json",
      "-o",
      path.join(out, "from"),
    ]);
    expect((await readJson(path.join(out, "from", "report.json"))).simulations[0].report.seedsUsed).toEqual(recorded);
    expect(from.code).toBe(1);
    const bracketed = await runCli([
      "run",
      "planted-bug",
      "--seeds",
      `[${recorded.join(", ")}]`,
      "-r",
      "json",
      "-o",
      path.join(out, "list"),
    ]);
    expect(bracketed.code).toBe(1);
    expect((await readJson(path.join(out, "list", "report.json"))).simulations[0].report.seedsUsed).toEqual(recorded);
    const conflict = await runCli(["run", "--last-failed", "--seed", "1", "-o", out]);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain("--last-failed / --seeds-from choose the seeds");
  });

  it("merge writes report.json in the report folder by default; -o - prints it", async () => {
    const out = await tempDir("merge");
    const shard = await runCli([
      "run",
      "counter",
      "--shard",
      "1/1",
      "--base-seed",
      "2",
      "-n",
      "2",
      "-r",
      "json",
      "-o",
      out,
    ]);
    expect(shard.code).toBe(0);
    const shardFile = path.join(out, "report.shard-1-of-1.json");
    const cwd = await tempDir("merge-cwd");
    const merged = await runCli(["merge", shardFile], { cwd });
    expect(merged.code).toBe(0);
    expect(merged.stdout).toBe("");
    expect(merged.stderr).toContain(`merged 1 report into ${path.join("moonpool-reports", "report.json")}`);
    await access(path.join(cwd, "moonpool-reports", "report.json"));
    const printed = await runCli(["merge", shardFile, "-o", "-"], { cwd });
    expect(JSON.parse(printed.stdout).kind).toBe("moonpool-run");
    expect(await readdir(path.join(cwd, "moonpool-reports"))).toEqual(["report.json"]);
  });
});
