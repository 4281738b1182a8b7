import { describe, expect, it } from "vitest";
import { ordersSimulation } from "./simulation.ts";

// Tier 2: the campaign sizes of the issue. Each seed starts Postgres at least once (0.3 to 1 s of
// CPU on its own), so 1,000 seeds take about an hour of CPU on this machine.
describe("orders-service campaigns", () => {
  it("the correct service passes 1,000 seeds on workers", { timeout: 6 * 3_600_000 }, async () => {
    const report = await ordersSimulation().setBaseSeed(1).setIterations(1_000).run({ workers: 2 });
    expect(report.failedRuns, report.toString()).toBe(0);
  });

  it("each planted bug fails seeds of a 20-seed campaign", { timeout: 3_600_000 }, async () => {
    for (const variant of ["unlockedStock", "keyOutsideTransaction"] as const) {
      const report = await ordersSimulation(variant).setBaseSeed(1).setIterations(20).run({ workers: 2 });
      expect(report.failedRuns, variant).toBeGreaterThan(0);
    }
  });
});
