import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readJson, runCli, tempDir } from "../cli/helpers.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const seeds = Array.from({ length: 100 }, (_, i) => i + 1);

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
        "--timeout",
        "30s",
        "--reporter",
        "json",
        "--out",
        out,
      ],
      // A small heap: the out-of-memory seed gets there within the limit; the workers inherit it.
      { cwd: FIXTURES, env: { MISBEHAVING_SEEDS: "hang:5,exit:17,oom:33", NODE_OPTIONS: "--max-old-space-size=128" } },
    );
    expect(result.code, result.stderr).toBe(1);
    const entry = (await readJson(path.join(out, "report.json"))).simulations[0];
    const failed = (
      entry.report.seeds as { seed: number; ok: boolean; failures: { kind: string; message: string }[] }[]
    ).filter((s) => !s.ok);
    expect(entry.report.seeds).toHaveLength(100);
    expect(failed.map((s) => [s.seed, s.failures.map((f) => f.kind)])).toEqual([
      [5, ["timeout"]],
      [17, ["workerCrash"]],
      [33, ["workerCrash"]],
    ]);
    expect(failed[1]!.failures[0]!.message).toContain("exited with code 3");
    expect(failed[2]!.failures[0]!.message).toContain("out of memory");
    for (const seed of [5, 17, 33])
      expect(result.stderr).toContain(`replay: npx moonpool replay misbehaving --seed ${seed}`);
    expect(result.stderr).not.toMatch(/Unhandled 'error' event/);
  }, 300_000);
});

describe("replay under a wall-clock limit", () => {
  it("a hung timeline's replay is stopped at --timeout with a message, exit 1; a passing one replays as before", async () => {
    const env = { MISBEHAVING_SEEDS: "hang:5" };
    const hung = await runCli(["replay", "misbehaving", "--seed", "5", "--timeout", "2s"], { cwd: FIXTURES, env });
    expect(hung.code).toBe(1);
    expect(hung.stderr).toContain("the replay ran longer than its wall-clock limit of 2.00s and was stopped");
    const passing = await runCli(["replay", "misbehaving", "--seed", "6", "--timeout", "2m"], { cwd: FIXTURES, env });
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toMatch(/^PASSED misbehaving seed 6 /m);
    const noUnit = await runCli(["replay", "misbehaving", "--seed", "6", "--timeout", "30"], { cwd: FIXTURES, env });
    expect(noUnit.code).toBe(2);
    expect(noUnit.stderr).toContain("--timeout '30'");
  }, 120_000);
});
