import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readJson, runCli, tempDir } from "../cli/helpers.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
// Seeds around the three misbehaving ones (3, 7, 10), on both sides of each, to show the others
// pass: the worker each bad seed takes down is replaced and runs the next seed. Each seed starts in
// a fresh realm, so the count is what this test costs.
const seeds = Array.from({ length: 12 }, (_, i) => i + 1);

describe("a campaign survives seeds that hang, kill their worker or run out of memory", () => {
  it("exactly those seeds fail with their cause and replay command, the others pass, exit 1, report written", async () => {
    const out = await tempDir("misbehaving");
    const result = await runCli(
      [
        "run",
        "misbehaving",
        "--seeds",
        seeds.join(","),
        "--workers",
        "2",
        // Far above any step of the fixture (30 ms at most) and of the out-of-memory seed's heap
        // filling (128 MB), which must end as a crash, not as a hang.
        "--timeout",
        "10s",
        "--reporter",
        "json",
        "--out",
        out,
      ],
      // A small heap: the out-of-memory seed gets there within the limit; the workers inherit it.
      {
        cwd: FIXTURES,
        env: { MISBEHAVING_SEEDS: "hang:3,exit:7,oom:10", NODE_OPTIONS: "--max-old-space-size=128" },
        isolation: "default",
      },
    );
    expect(result.code, result.stderr).toBe(1);
    const entry = (await readJson(path.join(out, "report.json"))).simulations[0];
    const failed = (
      entry.report.seeds as { seed: number; ok: boolean; failures: { kind: string; message: string }[] }[]
    ).filter((s) => !s.ok);
    expect(entry.report.seeds).toHaveLength(seeds.length);
    expect(failed.map((s) => [s.seed, s.failures.map((f) => f.kind)])).toEqual([
      [3, ["hung"]],
      [7, ["workerCrash"]],
      [10, ["workerCrash"]],
    ]);
    expect(failed[0]!.failures[0]!.message).toMatch(
      /^hung: no engine step for 10\.00s \(last step #\d+ at simulated \d+ms\)/,
    );
    expect(failed[1]!.failures[0]!.message).toContain("exited with code 3");
    expect(failed[2]!.failures[0]!.message).toContain("out of memory");
    for (const seed of [3, 7, 10])
      expect(result.stderr).toContain(`replay: npx moonpool replay misbehaving --seed ${seed}`);
    expect(result.stderr).not.toMatch(/Unhandled 'error' event/);
  });
});

/** A hang limit far above any one step of the fixture (30 ms at most) and far below a test's time. */
const HANG_LIMIT = "1s";
const HUNG_1S = /hung: no engine step for 1\.00s \(last step #\d+ at simulated \d+ms\)/;

describe("hang detection by progress, not by total duration", () => {
  it("a slow seed that keeps stepping passes; a synchronous loop and an endless promise chain fail alone", async () => {
    const out = await tempDir("hang-progress");
    const result = await runCli(
      [
        "run",
        "misbehaving",
        "--seeds",
        "1,2,3,4,5,6,7,8",
        "--workers",
        "2",
        "--hang-timeout",
        HANG_LIMIT,
        "--reporter",
        "json",
        "--out",
        out,
      ],
      // Seed 2 blocks 30 ms in each of 100 steps: about 3 s in all, three times the hang limit.
      { cwd: FIXTURES, env: { MISBEHAVING_SEEDS: "slow:2,hang:4,spin:6" }, isolation: "default" },
    );
    expect(result.code, result.stderr).toBe(1);
    const entry = (await readJson(path.join(out, "report.json"))).simulations[0];
    const seedsRun = entry.report.seeds as {
      seed: number;
      ok: boolean;
      failures: { kind: string; message: string }[];
    }[];
    expect(seedsRun).toHaveLength(8);
    const failed = seedsRun.filter((s) => !s.ok);
    expect(failed.map((s) => [s.seed, s.failures.map((f) => f.kind)])).toEqual([
      [4, ["hung"]],
      [6, ["hung"]],
    ]);
    for (const s of failed) expect(s.failures[0]!.message).toMatch(HUNG_1S);
    // The terminal shows the first seed of the group; the report keeps every one's replay command.
    expect(result.stderr).toContain("replay: npx moonpool replay misbehaving --seed 4");
    expect(
      (entry.failures as { seed: number; kind: string; replayCommand: string }[]).map((f) => [
        f.seed,
        f.kind,
        f.replayCommand,
      ]),
    ).toEqual([
      [4, "hung", "npx moonpool replay misbehaving --seed 4"],
      [6, "hung", "npx moonpool replay misbehaving --seed 6"],
    ]);
  });

  it("an exploring root whose budget takes longer than the hang limit is bounded by its budget: exit 0", async () => {
    const out = await tempDir("hang-explore");
    const result = await runCli(
      [
        "run",
        "slow-exploring",
        "--seeds",
        "1,2",
        "--workers",
        "2",
        "--hang-timeout",
        HANG_LIMIT,
        "--reporter",
        "json",
        "--out",
        out,
      ],
      { cwd: FIXTURES, isolation: "default" },
    );
    expect(result.code, result.stderr).toBe(0);
    const entry = (await readJson(path.join(out, "report.json"))).simulations[0];
    expect((entry.report.seeds as { ok: boolean }[]).map((s) => s.ok)).toEqual([true, true]);
    // Every root spent its whole budget (80 timelines of 40 ms and more): seconds past the limit.
    expect(entry.report.exploration.timelines).toBe(160);
  });
});

describe("replay under the hang rule", () => {
  it("a hung timeline's replay is stopped with a message, exit 1; slow and passing ones replay as before", async () => {
    const env = { MISBEHAVING_SEEDS: "hang:5,spin:7,slow:8" };
    const hung = await runCli(["replay", "misbehaving", "--seed", "5", "--hang-timeout", "2s"], { cwd: FIXTURES, env });
    expect(hung.code).toBe(1);
    expect(hung.stderr).toMatch(
      /moonpool: the replay hung: no engine step for 2\.00s \(last step #\d+ at simulated \d+ms\) and was stopped/,
    );
    const spinning = await runCli(["replay", "misbehaving", "--seed", "7", "--timeout", HANG_LIMIT], {
      cwd: FIXTURES,
      env,
    });
    expect(spinning.code).toBe(1);
    expect(spinning.stderr).toMatch(HUNG_1S);
    const slow = await runCli(["replay", "misbehaving", "--seed", "8", "--hang-timeout", HANG_LIMIT], {
      cwd: FIXTURES,
      env,
    });
    expect(slow.code, slow.stderr).toBe(0);
    expect(slow.stdout).toMatch(/^PASSED misbehaving seed 8 /m);
    const passing = await runCli(["replay", "misbehaving", "--seed", "6", "--timeout", "2m"], { cwd: FIXTURES, env });
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toMatch(/^PASSED misbehaving seed 6 /m);
    const noUnit = await runCli(["replay", "misbehaving", "--seed", "6", "--timeout", "30"], { cwd: FIXTURES, env });
    expect(noUnit.code).toBe(2);
    expect(noUnit.stderr).toContain("--timeout '30'");
    const both = await runCli(["replay", "misbehaving", "--seed", "6", "--timeout", "1s", "--hang-timeout", "1s"], {
      cwd: FIXTURES,
      env,
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--timeout is the older name of --hang-timeout");
  });

  it("a replay that exhausts its heap ends with one line, exit 1, not V8's trace", async () => {
    const result = await runCli(["replay", "misbehaving", "--seed", "33"], {
      cwd: FIXTURES,
      env: { MISBEHAVING_SEEDS: "oom:33", NODE_OPTIONS: "--max-old-space-size=64" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^moonpool: the replay ran out of memory \(heap limit \d+ MB\) and was stopped$/m);
    expect(result.stderr).not.toMatch(/FATAL ERROR|Last few GCs|Native stack|JavaScript heap/);
  });
});
