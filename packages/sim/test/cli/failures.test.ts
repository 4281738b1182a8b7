/**
 * End-to-end: failures a user can act on. The real `moonpool` binary on fixtures-failures/ (a
 * file that throws at import, a workload TypeError, expected failures) and on the repository's
 * own examples (the vote-twice replay). `moonpool run` on the whole repository is in tier 2,
 * repository-run.heavy.test.ts.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { checkXml } from "./xml-check.ts";
import { readJson, runCli, tempDir, type CliResult } from "./helpers.ts";

const FAILURE_FIXTURES = fileURLToPath(new URL("./fixtures-failures/", import.meta.url));
const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));

describe("failures people can act on", () => {
  let out: string;
  let all: CliResult;

  beforeAll(async () => {
    out = await tempDir("failures");
    all = await runCli(["run", "--base-seed", "1", "--workers", "2", "--reporter", "text,json,junit", "--out", out], {
      cwd: FAILURE_FIXTURES,
    });
  });

  it("a file that fails to load is reported with its line and skipped; the other files run (exit 1 for their failures)", async () => {
    expect(all.stderr).toContain(
      "✗ broken.sim.ts failed to load, its simulations are skipped: Cannot read properties of null (reading 'port')",
    );
    expect(all.stderr).toContain("    at broken.sim.ts:5:23");
    expect(all.stderr).toContain("      > 5 | const port = settings.port;");
    expect(all.stderr).toMatch(/▶ expected-found/);
    expect(all.stderr).toMatch(/▶ type-error/);
    expect(all.stdout).toMatch(/Simulations: 2 passed, 3 failed \(.*\), 1 file failed to load/);
    expect(all.code).toBe(1);
    const json = await readJson(path.join(out, "report.json"));
    expect(json.loadFailures).toEqual([
      { file: "broken.sim.ts", message: "Cannot read properties of null (reading 'port')" },
    ]);
    // Alone, the working files pass: a load failure then exits 2 (the command could not do all its job).
    const list = await runCli(["list"], { cwd: FAILURE_FIXTURES });
    expect(list.code).toBe(2);
    expect(
      list.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(["expected-found", "expected-missing", "never-checked", "task-failure", "type-error"]);
    const found = await runCli(["run", "expected-found", "--base-seed", "1"], { cwd: FAILURE_FIXTURES });
    expect(found.code).toBe(2);
  });

  it("a workload TypeError shows the user's file:line:column and a code frame, in the text report and JUnit", async () => {
    const section = all.stdout.split("type-error (type-error.sim.ts)")[1]!;
    expect(section).toContain(
      "✗ [workload] workload client@10.0.0.1 run() rejected: TypeError: Cannot read properties of undefined (reading 'port'): 6 seeds of 6",
    );
    expect(section).toContain("    at type-error.sim.ts:17:56");
    expect(section).toContain('      > 17 |         ctx.trace.info("connecting", { port: peers[0]!.port });');
    const xml = checkXml(await readFile(path.join(out, "junit.xml"), "utf8"));
    const cases = xml.elements.filter((e) => e.name === "testcase").map((e) => e.attributes.name);
    expect(cases).toContain(
      "type-error › [workload] workload client@10.0.0.1 run() rejected: TypeError: Cannot read properties of undefined (reading &apos;port&apos;)",
    );
    expect(cases).toContain("broken.sim.ts (load)");
  });

  it("a spawned task that throws fails its seed, though its workload returned normally", () => {
    const section = all.stdout.split("task-failure (task-failure.sim.ts)")[1]!.split("\ntype-error (")[0]!;
    expect(section).toContain("Iterations: 6 | Passed: 0 | Failed: 6");
    expect(section).toContain("✗ [task] task 'flusher' of client@10.0.0.1 failed: Error: flush lost its buffer");
    expect(section).toContain("    at task-failure.sim.ts:13:17");
    expect(all.stderr).toMatch(/✗ task-failure {2}6 seeds, 6 failing/);
  });

  it("a safety assertion no seed evaluated is listed; --strict-coverage fails on it", async () => {
    const section = all.stdout.split("never-checked (never-checked.sim.ts)")[1]!.split("\ntask-failure (")[0]!;
    expect(section).toContain(
      "--- Never Evaluated: 1 declared assertion no seed reached (--strict-coverage fails on them) ---",
    );
    expect(section).toContain('- [always] "every acknowledged write is durable" (never-checked.sim.ts:13)');
    expect(section).not.toContain('- "the writer finished"');
    expect(all.stderr).toMatch(/✓ never-checked {2}6 seeds/);
    const json = await readJson(path.join(out, "report.json"));
    const entry = json.simulations.find((s: any) => s.name === "never-checked");
    expect(entry.neverEvaluated).toEqual([
      { message: "every acknowledged write is durable", kind: "always", where: "never-checked.sim.ts:13" },
    ]);
    expect("neverEvaluated" in json.simulations.find((s: any) => s.name === "type-error")).toBe(false);
    const strict = await runCli(["run", "never-checked", "--base-seed", "1", "--strict-coverage"], {
      cwd: FAILURE_FIXTURES,
    });
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/✗ never-checked/);
  });

  it("merge keeps a safety assertion never evaluated in any shard", async () => {
    const dir = await tempDir("never-merge");
    const shards = await Promise.all(
      ["1/2", "2/2"].map((shard) =>
        runCli(["run", "never-checked", "--base-seed", "1", "--shard", shard, "-r", "json", "-o", dir], {
          cwd: FAILURE_FIXTURES,
        }),
      ),
    );
    for (const shard of shards) expect(shard.code, shard.stderr).toBe(2); // broken.sim.ts still fails to load
    const merged = await runCli([
      "merge",
      path.join(dir, "report.shard-1-of-2.json"),
      path.join(dir, "report.shard-2-of-2.json"),
      "-o",
      path.join(dir, "merged.json"),
    ]);
    expect(merged.code, merged.stderr).toBe(0);
    const entry = (await readJson(path.join(dir, "merged.json"))).simulations[0];
    expect(entry.neverEvaluated).toEqual([
      { message: "every acknowledged write is durable", kind: "always", where: "never-checked.sim.ts:13" },
    ]);
  });

  it("one group per failure, earliest seed first; the other seeds' list reruns exactly those seeds", async () => {
    const section = all.stdout.split("type-error (type-error.sim.ts)")[1]!;
    const earliest = /earliest: seed (\d+) \(#(\d+)\) at ([\d.]+) ms/.exec(section)!;
    const rerun = /5 other seeds: rerun: npx moonpool run type-error --seeds ([\d,]+)/.exec(section)!;
    const json = await readJson(path.join(out, "report.json"));
    const seeds = json.simulations.find((s: any) => s.name === "type-error").report.seeds as {
      seed: number;
      index: number;
      simulatedTimeMs: number;
    }[];
    const first = [...seeds].sort((a, b) => a.simulatedTimeMs - b.simulatedTimeMs)[0]!;
    expect(Number(earliest[1])).toBe(first.seed);
    // The text and the JSON number seeds the same way (0-based).
    expect(Number(earliest[2])).toBe(first.index);
    const others = rerun[1]!.split(",").map(Number);
    expect(others.sort()).toEqual(
      seeds
        .map((s) => s.seed)
        .filter((s) => s !== first.seed)
        .sort(),
    );
    const again = await runCli(
      ["run", "type-error", "--seeds", rerun[1]!, "--reporter", "json", "--out", path.join(out, "rerun")],
      { cwd: FAILURE_FIXTURES },
    );
    const rerunJson = await readJson(path.join(out, "rerun", "report.json"));
    expect(again.stderr).toContain("broken.sim.ts failed to load");
    expect(rerunJson.simulations[0].report.seedsUsed).toEqual(rerun[1]!.split(",").map(Number));
    expect(rerunJson.simulations[0].report.failedRuns).toBe(5);
  });

  it("expectFailure: a simulation that fails on purpose passes when a seed fails, and fails when none does", async () => {
    expect(all.stderr).toMatch(
      /✓ expected-found {2}failed as expected \(expectFailure\): 6 seeds, 6 failing, 1 violation/,
    );
    expect(all.stderr).toMatch(/✗ expected-missing {2}expected to fail \(expectFailure\), but no seed failed/);
    const json = await readJson(path.join(out, "report.json"));
    const byName = Object.fromEntries(json.simulations.map((s: any) => [s.name, s]));
    expect(byName["expected-found"]).toMatchObject({ status: "passed", expectFailure: true });
    expect(byName["expected-missing"]).toMatchObject({ status: "failed", expectFailure: true });
    expect(byName["type-error"].status).toBe("failed");
    expect("expectFailure" in byName["type-error"]).toBe(false);
  });
});

describe("the repository's examples", () => {
  it("the vote-twice replay tells the story: at most 60 lines up to the failure, with the votes that split the brain", async () => {
    // From base seed 1 the bug fails at seed indexes 0 and 4: 5 seeds print a replay command.
    const run = await runCli(["run", "leader-election-vote-twice", "--base-seed", "1", "--iterations", "5"], {
      cwd: REPOSITORY,
    });
    // The replay command printed for the earliest failing seed.
    const seed = /^ {2}replay: npx moonpool replay leader-election-vote-twice --seed (\d+)$/m.exec(run.stdout)![1]!;
    const story = await runCli(["replay", "leader-election-vote-twice", "--seed", seed], { cwd: REPOSITORY });
    expect(story.code).toBe(1);
    const lines = story.stdout.split("\n");
    const failureLine = lines.findIndex((l) => l.startsWith("✗ ") && l.includes("seed_failure"));
    expect(failureLine).toBeGreaterThan(0);
    expect(failureLine + 1).toBeLessThanOrEqual(60);
    const term = /term=(\d+), first=([\d.]+), second=([\d.]+)/.exec(lines[failureLine]!)!;
    const upTo = lines.slice(0, failureLine).join("\n");
    // Both winners campaigned, one voter granted its vote to each of them in that term.
    for (const ip of [term[2], term[3]]) {
      expect(upTo).toContain(`vote_granted term=${term[1]} candidate="${ip}"`);
      expect(upTo).toMatch(new RegExp(`leader_elected term=${term[1]} leader="${ip!.replace(/\./g, "\\.")}"`));
    }
    // Injected faults are folded, and the trace stops shortly after the failure.
    expect(upTo).not.toMatch(/ sim sim_fault kind="partial_(read|write)"/);
    expect(story.stdout).toMatch(/the trace stops 100 ms after the failure: \d+ more events/);
    // --actor keeps the failure marker; --faults and --full show what was folded and cut.
    const actor = await runCli(["replay", "leader-election-vote-twice", "--seed", seed, "--actor", "nobody"], {
      cwd: REPOSITORY,
    });
    expect(actor.stdout.split("\n").filter((l) => l.startsWith("["))).toEqual([]);
    expect(actor.stdout).toMatch(/^✗ .* seed_failure /m);
    const full = await runCli(["replay", "leader-election-vote-twice", "--seed", seed, "--faults", "--full"], {
      cwd: REPOSITORY,
    });
    expect(full.stdout).toMatch(/ sim sim_fault kind=/);
    expect(full.stdout).toContain("shutdown_triggered");
    expect(full.stdout).not.toContain("the trace stops");
  });
});
