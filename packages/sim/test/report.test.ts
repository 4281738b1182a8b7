import { describe, expect, it } from "vitest";
import {
  REPORT_SCHEMA_VERSION,
  SimulationBuilder,
  SimulationFailed,
  assertAlways,
  assertReachable,
  assertSometimes,
  assertSometimesEach,
  assertSometimesGreaterThan,
  type SimContext,
  type Workload,
} from "../src/index.ts";

const workload = (run: (ctx: SimContext) => Promise<void>): Workload => ({ name: "w", run });

function healthy() {
  return new SimulationBuilder()
    .workloadFactory(() =>
      workload(async (ctx) => {
        const r = ctx.random.randomRange(0, 10);
        await ctx.time.sleep(r + 1);
        assertAlways(r < 10, "draw in range");
        assertSometimes(r > 5, "high draw");
        assertReachable("workload ran");
        assertSometimesGreaterThan(r, 8, "draw watermark");
        assertSometimesEach("draw bucket", { parity: r % 2 }, { size: r });
      }),
    )
    .setBaseSeed(5)
    .setIterations(20);
}

describe("report", () => {
  it("carries every field of a healthy campaign", async () => {
    const report = await healthy().run();
    expect(report.iterations).toBe(20);
    expect(report.successfulRuns).toBe(20);
    expect(report.failedRuns).toBe(0);
    expect(report.successRate()).toBe(100);
    expect(report.seedsUsed).toHaveLength(20);
    expect(new Set(report.seedsUsed).size).toBe(20);
    expect(report.seedsFailing).toEqual([]);
    expect(report.metrics.simulatedTimeMs).toBeGreaterThan(0);
    expect(report.metrics.eventsProcessed).toBeGreaterThan(0);
    for (const s of report.seeds) {
      expect(s.traceHash).toMatch(/^[0-9a-f]{8}$/);
      expect(s.wallTimeMs).toBeGreaterThanOrEqual(0);
      expect(s.failures).toEqual([]);
    }
    expect(report.assertionResults["draw in range"]).toEqual({ totalChecks: 20, successes: 20 });
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    expect(status).toMatchObject({
      "draw in range": "PASS",
      "high draw": "PASS",
      "workload ran": "PASS",
      "draw watermark": "PASS",
    });
    expect(report.assertionDetails.find((d) => d.message === "draw watermark")!.watermark).toBe(9);
    expect(report.bucketSummaries).toHaveLength(1);
    expect(report.bucketSummaries[0]!.bucketsDiscovered).toBe(2);
    expect(report.assertionViolations).toEqual([]);
    expect(report.coverageViolations).toEqual([]);
    expect(report.convergenceTimeout).toBe(false);
    expect(report.saturation).toBeNull(); // fixed iterations: no saturation signal
    expect(report.exploration).toBeNull();
    expect(report.tableOverflow.droppedSiteCalls).toBe(0);
    expect(() => report.assertPassed({ strictCoverage: true })).not.toThrow();
  });

  it("prints a readable summary and a versioned JSON document", async () => {
    const report = await healthy().run();
    const text = report.toString();
    expect(text).toContain("=== Simulation Report ===");
    expect(text).toContain("Iterations: 20 | Passed: 20 | Failed: 0 | Rate: 100.0%");
    expect(text).toContain('PASS  [always]  "draw in range"');
    expect(text).toContain("--- Buckets (2 across 1 sites) ---");
    expect(text).toContain("--- Seeds ---");
    expect(text).not.toContain("Failures");
    const chunks: string[] = [];
    report.print({ write: (c: string) => (chunks.push(c), true), isTTY: false } as unknown as NodeJS.WritableStream);
    expect(chunks.join("")).toBe(text);
    const json = JSON.parse(JSON.stringify(report));
    expect(json.schemaVersion).toBe(REPORT_SCHEMA_VERSION);
    expect(json.node).toBe(process.versions.node);
    expect(json.v8).toBe(process.versions.v8);
    expect(json.steppingMode).toBe("fast");
    expect(json.packageVersion).toBe("0.1.0");
    expect(json.seeds).toHaveLength(20);
  });

  it("reports failures, violations, coverage gaps and replay hints, and assertPassed throws", async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() =>
        workload(async (ctx) => {
          const r = ctx.random.randomRange(0, 4);
          await ctx.time.sleep(1);
          assertAlways(r !== 0, "draw is never zero");
          assertSometimes(false, "never true");
        }),
      )
      .setBaseSeed(1)
      .setIterations(20)
      .run();
    expect(report.failedRuns).toBeGreaterThan(0);
    expect(report.seedsFailing.length).toBe(report.failedRuns);
    expect(report.assertionViolations.some((v) => v.includes('assertAlways("draw is never zero") failed'))).toBe(true);
    expect(report.coverageViolations.some((v) => v.includes("never true"))).toBe(true);
    const text = report.toString();
    expect(text).toMatch(/--- Failures: \d+ seeds, 1 distinct failure ---/);
    expect(text).toMatch(/other seeds: rerun: builder\.setDebugSeeds\(\[/);
    expect(text).toMatch(/replay: builder\.setDebugSeeds\(\[\d+\]\)\.setIterations\(1\)\.run\(\)/);
    expect(text).toContain("--- Assertion Violations ---");
    expect(text).toContain("--- Coverage Gaps ---");
    expect(() => report.assertPassed()).toThrow(SimulationFailed);
    expect(() => report.assertPassed()).toThrow(/draw is never zero/);
    // The thrown error's stack starts at this file's assertAlways line, so Vitest's code frame
    // shows the user's line rather than the report's.
    let stack = "";
    try {
      report.assertPassed();
    } catch (error) {
      stack = (error as Error).stack!;
    }
    const firstFrame = stack.split("\n").find((l) => /^\s+at /.test(l))!;
    expect(firstFrame).toContain("report.test.ts:");
    expect(text).toMatch(
      / {4}at .*report\.test\.ts:\d+:\d+\n(.*\n)?.*> \d+ \| +assertAlways\(r !== 0, "draw is never zero"\)/,
    );
  });

  it("assertPassed ignores coverage gaps unless strict", async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() => workload(async () => assertSometimes(false, "rare")))
      .setBaseSeed(1)
      .setIterations(3)
      .run();
    expect(() => report.assertPassed()).not.toThrow();
    expect(() => report.assertPassed({ strictCoverage: true })).toThrow(/rare/);
  });
});

describe("planted always-violation", () => {
  it("fails exactly the seeds that hit it", async () => {
    const draws: number[] = [];
    const report = await new SimulationBuilder()
      .workloadFactory(() =>
        workload(async (ctx) => {
          const r = ctx.random.randomRange(0, 4);
          draws.push(r);
          await ctx.time.sleep(1);
          assertAlways(r !== 0, "planted: draw is never zero");
        }),
      )
      .setBaseSeed(123)
      .setIterations(60)
      .run();
    const expectedFailing = report.seedsUsed.filter((_, i) => draws[i] === 0);
    expect(expectedFailing.length).toBeGreaterThan(0);
    expect(report.seedsFailing).toEqual(expectedFailing);
    for (const seed of report.seedsFailing) {
      const failures = report.seeds.find((s) => s.seed === seed)!.failures;
      expect(failures).toHaveLength(1);
      expect(failures[0]!.kind).toBe("assertion");
      expect(failures[0]!.actor).toBe("w@10.0.0.1");
    }
  });
});

describe("untilCoverageStable", () => {
  it("stops once every sometimes assertion passed and the signal stayed quiet for N seeds", async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() => workload(async () => assertSometimes(true, "always true")))
      .untilCoverageStable(10, 1000)
      .setBaseSeed(1)
      .run();
    expect(report.iterations).toBe(11);
    expect(report.convergenceTimeout).toBe(false);
    expect(report.saturation).toMatchObject({
      signal: "assertionCoverage",
      saturated: true,
      sometimesHit: 1,
      sometimesTotal: 1,
      plateauSeeds: 10,
    });
  });

  it("counts a numeric sometimes like a boolean one: an unreached one keeps the campaign going to the cap", async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() =>
        workload(async () => {
          assertSometimes(true, "easy");
          assertSometimesGreaterThan(0, 1, "never greater");
        }),
      )
      .untilCoverageStable(3, 50)
      .setBaseSeed(1)
      .run();
    expect(report.saturation!.saturated).toBe(false);
    expect(report.iterations).toBe(50);
    expect(report.coverageViolations.some((v) => v.includes("never greater"))).toBe(true);
    expect(report.toString()).toContain("1/2 sometimes/reachable hit");
    expect(report.saturation!.stopReason).toContain("still misses 1 of 2 sometimes assertions");
  });

  it("keeps going until a rare gate fired before it can stop", async () => {
    let gateSeeds = 0;
    const report = await new SimulationBuilder()
      .workloadFactory(() =>
        workload(async (ctx) => {
          const rare = ctx.random.randomRange(0, 25) === 0;
          if (rare) gateSeeds++;
          assertSometimes(true, "common");
          assertSometimes(rare, "rare gate");
        }),
      )
      .untilCoverageStable(3, 500)
      .setBaseSeed(2)
      .run();
    expect(gateSeeds).toBeGreaterThan(0);
    expect(report.convergenceTimeout).toBe(false);
    expect(report.assertionDetails.find((d) => d.message === "rare gate")!.status).toBe("PASS");
  });

  it("reports convergenceTimeout when the cap is hit unsaturated, and when no sometimes assertion exists", async () => {
    const never = await new SimulationBuilder()
      .workloadFactory(() => workload(async () => assertSometimes(false, "never")))
      .untilCoverageStable(2, 15)
      .setBaseSeed(3)
      .run();
    expect(never.iterations).toBe(15);
    expect(never.convergenceTimeout).toBe(true);
    expect(never.saturation!.saturated).toBe(false);
    expect(never.toString()).toContain("UntilCoverageStable hit the iteration cap without saturating.");

    const none = await new SimulationBuilder()
      .workloadFactory(() => workload(async (ctx) => ctx.time.sleep(1)))
      .untilCoverageStable(2, 8)
      .setBaseSeed(3)
      .run();
    expect(none.iterations).toBe(8);
    expect(none.convergenceTimeout).toBe(true);
    expect(none.saturation!.stopReason).toMatch(/no coverage signal/);
  });

  it("debug seeds come first and do not change the iteration count", async () => {
    const report = await new SimulationBuilder()
      .workloadFactory(() => workload(async () => {}))
      .setDebugSeeds([77, 78])
      .setIterations(4)
      .setBaseSeed(9)
      .run();
    expect(report.seedsUsed.slice(0, 2)).toEqual([77, 78]);
    expect(report.seedsUsed).toHaveLength(4);
  });
});
