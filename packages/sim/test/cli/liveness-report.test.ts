/**
 * A liveness failure in the reports of `moonpool run`: the text report's group says "did not
 * converge" with the wait, JUnit types it LivenessFailure (not SimulationFailed), the JSON report
 * carries kind "liveness" and waitedMs and stays valid against report.schema.json; the correct
 * rejoin protocol passes with no such failure.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readJson, runCli, tempDir } from "./helpers.ts";
import { validate } from "./json-schema.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures-liveness/", import.meta.url));
const SCHEMA_FILE = new URL("../../report.schema.json", import.meta.url);

describe("liveness failures in the reports", () => {
  it("text, JUnit and JSON name the liveness failure and its wait; the correct variant passes", async () => {
    const out = await tempDir("liveness");
    const run = await runCli(
      ["run", "never-rejoin-fails", "--base-seed", "1", "-r", "text,json,junit", "-o", out, "-j", "1"],
      { cwd: FIXTURE },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('✗ liveness "every node sees every peer up" did not converge: 2 seeds of 2');
    expect(run.stdout).toContain(
      "liveness 'every node sees every peer up' did not converge: waited 2000 ms after the chaos window ended at 2000 ms",
    );
    const junit = await readFile(path.join(out, "junit.xml"), "utf8");
    expect(junit).toContain('type="LivenessFailure"');
    expect(junit).not.toContain('type="SimulationFailed"');
    const report = await readJson(path.join(out, "report.json"));
    const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8"));
    expect(validate(schema, report)).toEqual([]);
    const failures = report.simulations[0].report.seeds.flatMap((s: { failures: unknown[] }) => s.failures);
    expect(failures).toHaveLength(2);
    for (const f of failures)
      expect(f).toMatchObject({ kind: "liveness", waitedMs: 2000, property: "every node sees every peer up" });

    const correct = await runCli(["run", "rejoin", "--base-seed", "1", "-n", "2", "-r", "json", "-o", out, "-j", "1"], {
      cwd: FIXTURE,
    });
    expect(correct.code, correct.stdout).toBe(0);
    const passed = await readJson(path.join(out, "report.json"));
    expect(passed.simulations[0].report.seeds.every((s: { ok: boolean }) => s.ok)).toBe(true);
  });
});
