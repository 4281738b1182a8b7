/**
 * Report files carry their schema version; a file of another version (schema 3 still had the
 * `timedOut` field) is refused with the versions on both sides and what to do, not misread.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRunReport, RUN_REPORT_KIND } from "../../src/cli/run-report.ts";
import { ReportMergeError } from "../../src/cli/errors.ts";
import { REPORT_SCHEMA_VERSION } from "../../src/runner/report.ts";

let dir: string | null = null;
afterEach(async () => {
  if (dir !== null) await rm(dir, { recursive: true, force: true });
  dir = null;
});

async function reportFile(content: object): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), "moonpool-report-version-"));
  const file = path.join(dir, "report.json");
  await writeFile(file, JSON.stringify(content));
  return file;
}

describe("report schema version", () => {
  it("is 4: the version that dropped timedOut", () => {
    expect(REPORT_SCHEMA_VERSION).toBe(4);
  });

  it("refuses a schema 3 report, naming both versions", async () => {
    const file = await reportFile({
      schemaVersion: 3,
      kind: RUN_REPORT_KIND,
      simulations: [{ name: "x", timedOut: null }],
    });
    const read = readRunReport(file);
    await expect(read).rejects.toBeInstanceOf(ReportMergeError);
    await expect(read).rejects.toThrow(/report schema version 3, this moonpool \(.*\) reads version 4: re-run/);
  });

  it("reads the version it writes past the version check (a damaged file then fails the schema, not the version)", async () => {
    const file = await reportFile({
      schemaVersion: REPORT_SCHEMA_VERSION,
      kind: RUN_REPORT_KIND,
      simulations: [{ name: "x", timedOut: null }],
    });
    await expect(readRunReport(file)).rejects.toThrow(/not a valid moonpool run report/);
  });
});
