/** SIGINT stops a campaign cleanly: exit 130, and the report of the seeds that ran is written. */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJson, startSlowCampaign, tempDir } from "./helpers.ts";

describe("SIGINT", () => {
  it("writes a partial report of the seeds that ran and exits 130", async () => {
    const out = await tempDir("sigint");
    const { child, done, firstProgress } = startSlowCampaign("json,junit", out);
    expect(await firstProgress()).toBeGreaterThanOrEqual(0);
    child.kill("SIGINT");
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain("interrupted by SIGINT: stopping");
    // An interrupted campaign did not run its plan: it is not counted as passed.
    expect(result.stdout).toMatch(/Simulations: 0 passed, 0 failed, 1 interrupted \(run stopped by SIGINT\)/);
    expect(result.stderr).toMatch(/○ slow {2}interrupted after [\d,]+ seeds?, 0 failing/);
    expect(result.stderr).not.toMatch(/✓ slow/);
    const report = await readJson(path.join(out, "report.json"));
    expect(report.interrupted).toBe(true);
    const entry = report.simulations[0];
    expect(entry.stoppedBy).toBe("interrupted");
    expect(entry.report.iterations).toBeGreaterThan(0);
    expect(entry.report.iterations).toBeLessThan(100_000);
    // The seeds that ran are a prefix of the campaign: indexes 0..k-1.
    expect(entry.report.seeds.map((s: { index: number }) => s.index)).toEqual(
      Array.from({ length: entry.report.iterations }, (_, i) => i),
    );
    expect(existsSync(path.join(out, "junit.xml"))).toBe(true);
  });
});
