/**
 * A crash of the database machine under storage chaos (every write not yet fsynced is lost or
 * torn): a commit that returned to its client is there after Postgres recovers from its WAL, and
 * the one in flight when the machine died may or may not be.
 */
import { describe, expect, it } from "vitest";
import { crashingDatabase, expectDurable, type Outcome } from "./fixtures/power-cut.ts";

describe("Postgres on the simulated disk, crashed", () => {
  it("keeps every commit that returned; the one in flight may or may not be there", async () => {
    const out: Outcome[] = [];
    // Two seeds of base seed 3's first eight, indexes 0 and 6 (postgres-durability.heavy.test.ts runs
    // 40): the cut lands after the in-flight commit's fsync in the first and before it in the second
    // (index 6 is the only one of the eight where it is lost, under the baseline clocks).
    const report = await crashingDatabase(out, 0.5)
      .setDebugSeeds([3938023681132695, 3537506494969462])
      .setIterations(2)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(out).toHaveLength(2);
    for (const o of out) expectDurable(o);
    expect(out.map((o) => o.found.includes(o.inFlight!))).toEqual([true, false]);
  });

  it("with fsync off (PGlite's default), the same power cuts lose returned commits or the database", async () => {
    const out: Outcome[] = [];
    // Lost writes only: whatever was written since the template is gone, WAL and pg_control alike.
    const report = await crashingDatabase(out, 1, { fsync: "off" }).setBaseSeed(3).setIterations(2).run();
    report.seeds.forEach((seed, i) => {
      const unstartable = seed.failures.some((f) => f.message.includes("PGlite failed to initialize"));
      const lostAck = out[i]!.acked.some((id) => !out[i]!.found.includes(id));
      expect(unstartable || lostAck, report.toString()).toBe(true);
    });
  });

  it("the same seed twice gives the same trace hash, two seeds differ", async () => {
    const a = await crashingDatabase([], 0.5).setBaseSeed(11).setIterations(2).run();
    const b = await crashingDatabase([], 0.5).setBaseSeed(11).setIterations(2).run();
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(2);
  });
});
