/**
 * Tier 2 of postgres-durability.test.ts: 40 power cuts, every returned commit kept in each, and
 * the in-flight commit kept in some and lost in others.
 */
import { expect, it } from "vitest";
import { crashingDatabase, expectDurable, type Outcome } from "./fixtures/power-cut.ts";

it("40 power cuts keep every returned commit", async () => {
  const out: Outcome[] = [];
  const report = await crashingDatabase(out, 0.5).setBaseSeed(3).setIterations(40).run();
  expect(report.failedRuns, report.toString()).toBe(0);
  for (const o of out) expectDurable(o);
  const kept = out.filter((o) => o.found.includes(o.inFlight!)).length;
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(out.length);
});
