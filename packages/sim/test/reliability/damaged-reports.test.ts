import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, tempDir } from "../cli/helpers.ts";

let dir = "";
let valid: any;

beforeAll(async () => {
  dir = await tempDir("damaged");
  const run = await runCli([
    "run",
    "planted-bug",
    "--iterations",
    "4",
    "--base-seed",
    "3",
    "--workers",
    "1",
    "--reporter",
    "json",
    "--out",
    dir,
  ]);
  expect(run.code, run.stderr).toBe(1);
  valid = JSON.parse(await readFile(path.join(dir, "report.json"), "utf8"));
});

/** Writes a copy of the valid report with `damage` applied. */
async function damaged(name: string, damage: (report: any) => void): Promise<string> {
  const copy = structuredClone(valid);
  damage(copy);
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(copy));
  return file;
}

describe("reports that are valid JSON but damaged get a typed error, exit 2", () => {
  const damages: [string, (r: any) => void, string][] = [
    ["seeds-not-array", (r) => (r.simulations[0].report.seeds = 7), "/simulations/0/report/seeds must be array"],
    [
      "missing-failures",
      (r) => delete r.simulations[0].failures,
      "/simulations/0 must have required property 'failures'",
    ],
    [
      "bad-hash",
      (r) => (r.simulations[0].report.seeds[0].traceHash = "xyz"),
      "/simulations/0/report/seeds/0/traceHash must match pattern",
    ],
    ["null-entry", (r) => (r.simulations[0] = null), "/simulations/0 must be object"],
  ];
  for (const [name, damage, problem] of damages) {
    it(`merge and replay --from refuse a report with ${name}, naming the problem`, async () => {
      const file = await damaged(name, damage);
      const [merge, replay] = await Promise.all([runCli(["merge", file]), runCli(["replay", "--from", file])]);
      for (const result of [merge, replay]) {
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toContain(`${file}: not a valid moonpool run report (`);
        expect(result.stderr).toContain(problem);
        expect(result.stderr).not.toMatch(/TypeError/);
      }
    });
  }

  it("the undamaged report still merges", async () => {
    const result = await runCli(["merge", path.join(dir, "report.json")]);
    expect(result.code, result.stderr).toBe(1); // the planted bug's failures survive the merge
  });
});

describe("replay --from warns when the report was written by another Node or V8", () => {
  it("names both versions and what to do; says nothing when they match", async () => {
    const other = await damaged("other-node", (r) => {
      r.node = "18.0.0";
      r.v8 = "10.1.124.8";
    });
    const [mismatch, same] = await Promise.all([
      runCli(["replay", "--from", other, "--no-trace"]),
      runCli(["replay", "--from", path.join(dir, "report.json"), "--no-trace"]),
    ]);
    expect(mismatch.code).toBe(1); // the recorded failure still fails here
    expect(mismatch.stderr).toContain(
      `warning: the report was written by Node 18.0.0 (V8 10.1.124.8), this is Node ${process.versions.node}`,
    );
    expect(mismatch.stderr).toContain("replay with Node 18.0.0");
    expect(same.code).toBe(1);
    expect(same.stderr).not.toContain("warning:");
  });
});
