/**
 * End-to-end: the real `moonpool` binary on the fixture simulations (fixtures/*.sim.ts, with
 * fixtures/moonpool.config.ts): list, run (passing and failing, exit codes), replay of a printed
 * failure, the JSON report against report.schema.json, JUnit XML, and the usage errors.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPORT_SCHEMA_VERSION } from "../../src/index.ts";
import { checkXml } from "./xml-check.ts";
import { validate } from "./json-schema.ts";
import { readJson, runCli, tempDir, type CliResult } from "./helpers.ts";

const SCHEMA_FILE = new URL("../../report.schema.json", import.meta.url);

/** Splits a printed command into arguments (double quotes group, as a shell would). */
function shellWords(command: string): string[] {
  return [...command.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2]!,
  );
}

describe("moonpool list / run / replay", () => {
  let out: string;
  let passing: CliResult;
  let failing: CliResult;

  beforeAll(async () => {
    out = await tempDir("run");
    [passing, failing] = await Promise.all([
      runCli([
        "run",
        "counter",
        "--base-seed",
        "3",
        "--workers",
        "2",
        "--reporter",
        "text,json",
        "--out",
        path.join(out, "pass"),
      ]),
      runCli([
        "run",
        "planted-bug",
        "--base-seed",
        "3",
        "--workers",
        "2",
        "--reporter",
        "text",
        "--reporter",
        "json,junit",
        "--out",
        path.join(out, "fail"),
      ]),
    ]);
  });

  it("lists the simulations found, with descriptions and files", async () => {
    const list = await runCli(["list"]);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(["counter", "gated", "planted-bug", "slow"]);
    expect(list.stdout).toContain("fails in about one seed in four");
    expect(list.stdout).toContain("(planted-bug.sim.ts)");
  });

  it("runs a passing simulation: exit 0, the report and a summary line", () => {
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toContain("=== Simulation Report ===");
    expect(passing.stdout).toContain("Iterations: 12 | Passed: 12 | Failed: 0");
    expect(passing.stdout).toMatch(/Simulations: 1 passed, 0 failed/);
    expect(passing.stderr).toContain("▶ counter: 12 seeds from base seed 3 on 2 workers");
  });

  it("runs a failing simulation: exit 1, failures grouped by property, printed once, with the user's line", () => {
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stdout).toMatch(/Simulations: 0 passed, 1 failed/);
    const section = failing.stdout.split(/--- Failures: \d+ seeds?, 1 distinct failure ---\n/)[1]!.split("\n--- ")[0]!;
    const lines = section.split("\n");
    expect(lines[0]).toMatch(/^✗ "writes are never corrupt" violated: (\d+) seeds? of 12$/);
    const earliest = /^ {2}earliest: seed (\d+) \(#(\d+)\) at ([\d.]+) ms sim/.exec(lines[1]!)!;
    expect(earliest).not.toBeNull();
    // The user's file, line and column, and a code frame marking the assertion.
    expect(section).toContain("    at planted-bug.sim.ts:24:9");
    expect(section).toContain(
      '      > 24 |         assertAlways(!corrupt, "writes are never corrupt");\n           |         ^',
    );
    expect(section).toContain(`  replay: npx moonpool replay planted-bug --seed ${earliest[1]}`);
    // The other failing seeds: one command with a list --seeds takes; the earliest failed first.
    const json = JSON.parse(
      JSON.stringify(
        failing.stdout
          .match(/Failing seeds: ([\d,]+)/)![1]!
          .split(",")
          .map(Number),
      ),
    );
    const others = /other seeds?: rerun: npx moonpool run planted-bug --seeds ([\d,]+)/.exec(section);
    expect(json).toContain(Number(earliest[1]));
    if (json.length > 1)
      expect(others![1]!.split(",").map(Number).sort()).toEqual(
        json.filter((s: number) => s !== Number(earliest[1])).sort(),
      );
    // Printed once: the text report has them, so stderr carries no failure block.
    expect(failing.stderr).not.toContain("writes are never corrupt");
  });

  it("replays a failure from its printed command: exit 1, the full trace, the run's trace hash", async () => {
    const command = /replay: (npx moonpool replay .*)/.exec(failing.stdout)![1]!;
    const [npx, moonpool, ...args] = shellWords(command);
    expect([npx, moonpool]).toEqual(["npx", "moonpool"]);
    const replay = await runCli(args);
    expect(replay.code, replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/^\[\s+\d+\.\d{3}ms\] info {2}writer@10\.0\.0\.1 wrote i=0$/m);
    expect(replay.stdout).toContain(`checked corrupt=true`);
    expect(replay.stdout).toMatch(/FAILED planted-bug seed \d+ .*hash=[0-9a-f]{8}/);
    const seed = Number(args[args.indexOf("--seed") + 1]);
    const json = await readJson(path.join(out, "fail", "report.json"));
    const hash = json.simulations[0].report.seeds.find((s: { seed: number }) => s.seed === seed).traceHash;
    expect(replay.stdout).toContain(`hash=${hash}`);

    // The trace shows info and above (the causal slice below shows its debug events too).
    expect(replay.stdout.split("causal slice")[0]).not.toContain(" waiting ");
    // After the trace, the failure's causal slice: its happens-before past, ending at the failure.
    const slice = replay.stdout.split("causal slice of the failure: ")[1]!.split("\nFAILED")[0]!.split("\n");
    expect(slice[0]).toMatch(/^\d+ of \d+ events, its happens-before past \(--no-slice hides it\)$/);
    expect(slice.slice(1).every((l) => /^ {2}\[/.test(l))).toBe(true);
    expect(slice.at(-1)).toContain("error runner seed_failure");
    expect(slice.some((l) => l.includes("checked corrupt=true"))).toBe(true);
    // Debug events are shown, and kept aside: the replay hashes as the run did.
    const debug = await runCli([...args, "--level", "debug"]);
    expect(debug.stdout).toMatch(/^\[\s+\d+\.\d{3}ms\] debug writer@10\.0\.0\.1 waiting delayMs=\d+$/m);
    expect(debug.stdout).toContain(`hash=${hash}`);
    expect(debug.stderr).not.toContain("hash will differ");

    const filtered = await runCli([...args, "--level", "warn", "--no-slice"]);
    expect(filtered.stdout).not.toContain("causal slice");
    // The failure is marked with ✗ and always shown.
    const events = (text: string) => text.split("\n").filter((l) => /^(✗ )?\[/.test(l));
    expect(events(filtered.stdout)).toEqual([
      expect.stringMatching(/^\[.*warn {2}writer@10\.0\.0\.1 checked corrupt=true/),
      expect.stringMatching(/^✗ \[.*error runner seed_failure/),
    ]);
    const byActor = await runCli([...args, "--actor", "runner"]);
    expect(events(byActor.stdout).length).toBeGreaterThan(0);
    expect(events(byActor.stdout).every((l) => / runner /.test(l))).toBe(true);
    const fromReport = await runCli(["replay", "--from", path.join(out, "fail", "report.json"), "--no-trace"]);
    expect(fromReport.code).toBe(1);
    expect(fromReport.stdout).toContain(
      `hash=${json.simulations[0].report.seeds.find((s: { ok: boolean }) => !s.ok).traceHash}`,
    );
  });

  it("writes JSON reports that validate against report.schema.json, with versions and stepping mode", async () => {
    const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8"));
    expect(schema.properties.schemaVersion.const).toBe(REPORT_SCHEMA_VERSION);
    for (const dir of ["pass", "fail"]) {
      const report = await readJson(path.join(out, dir, "report.json"));
      expect(validate(schema, report)).toEqual([]);
      expect(report.node).toBe(process.versions.node);
      expect(report.v8).toBe(process.versions.v8);
      expect(report.simulations[0].report.steppingMode).toBe("fast");
      expect(report.packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    }
    const failed = await readJson(path.join(out, "fail", "report.json"));
    expect(failed.simulations[0].status).toBe("failed");
    // Schema 4 has no separate timedOut field: a seed past --timeout is a failing seed like any other.
    expect(Object.keys(failed.simulations[0])).not.toContain("timedOut");
    for (const f of failed.simulations[0].failures)
      expect(f.replayCommand).toBe(`npx moonpool replay planted-bug --seed ${f.seed}`);
    // The validator does catch a drift.
    expect(validate(schema, { ...failed, extra: 1 })).toEqual([
      "$: unexpected property 'extra' (document it in report.schema.json)",
    ]);
  });

  it("writes JUnit XML that parses: one test case per simulation, failures with seed, recipe and replay command", async () => {
    const xml = await readFile(path.join(out, "fail", "junit.xml"), "utf8");
    const { elements } = checkXml(xml);
    const cases = elements.filter((e) => e.name === "testcase");
    // One test case per group of seeds failing the same way.
    expect(cases.map((c) => c.attributes.name)).toEqual([
      "planted-bug › &quot;writes are never corrupt&quot; violated",
    ]);
    expect(elements.filter((e) => e.name === "failure")).toHaveLength(1);
    const json = await readJson(path.join(out, "fail", "report.json"));
    const failures = json.simulations[0].failures as { seed: number; index: number; message: string }[];
    const first = failures.find((f) => xml.includes(`seed ${f.seed} (#${f.index}) at`))!;
    expect(first).toBeDefined();
    expect(xml).toContain(`replay: npx moonpool replay planted-bug --seed ${first.seed}`);
    for (const f of failures) expect(xml).toContain(String(f.seed));
    expect(xml).toContain("at planted-bug.sim.ts:24:9");
    expect(xml).toContain("recipe: (the root timeline)");
    expect(() => checkXml("<a><b></a></b>")).toThrow(/mismatched/);
  });

  it("--bail stops at the first failing seed in seed order; --timeout (the hang limit's older name) does not fail seeds that keep stepping", async () => {
    const [bail, timeout] = await Promise.all([
      runCli([
        "run",
        "planted-bug",
        "--base-seed",
        "3",
        "--iterations",
        "12",
        "--bail",
        "--reporter",
        "json",
        "--out",
        path.join(out, "bail"),
      ]),
      runCli([
        "run",
        "slow",
        "--iterations",
        "3",
        "--base-seed",
        "1",
        "--timeout",
        "1s",
        "--reporter",
        "json",
        "--out",
        path.join(out, "timeout"),
      ]),
    ]);
    expect(bail.code).toBe(1);
    const bailed = (await readJson(path.join(out, "bail", "report.json"))).simulations[0];
    expect(bailed.stoppedBy).toBe("bail");
    const seeds = bailed.report.seeds as { ok: boolean }[];
    expect(seeds.findIndex((s) => !s.ok)).toBe(seeds.length - 1);
    // --timeout is accepted as the hang limit: seeds that keep stepping pass.
    expect(timeout.code, timeout.stderr).toBe(0);
    const slowSeeds = (await readJson(path.join(out, "timeout", "report.json"))).simulations[0];
    expect(slowSeeds.stoppedBy).toBeNull();
    expect(slowSeeds.report.seeds).toHaveLength(3);
    expect(slowSeeds.failures).toEqual([]);
  });

  it("reports usage errors with what to do, exit 2", async () => {
    const [unknown, shard, untilStable, wallClock] = await Promise.all([
      runCli(["run", "no-such-sim"]),
      runCli(["run", "counter", "--shard", "4/3"]),
      runCli(["run", "counter", "--shard", "1/2", "--until-stable", "5,50"]),
      runCli(["run", "counter", "--shard", "1/2"]),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "no simulation matches 'no-such-sim'; known simulations: counter, gated, planted-bug, slow",
    );
    expect(shard.code).toBe(2);
    expect(shard.stderr).toContain("the form is --shard i/n with 1 <= i <= n");
    expect(untilStable.code).toBe(2);
    expect(untilStable.stderr).toContain("cannot be split across machines");
    expect(wallClock.code).toBe(2);
    expect(wallClock.stderr).toContain("pass --base-seed B");
  });
});
