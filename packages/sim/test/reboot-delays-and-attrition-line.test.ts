/**
 * Two small lifecycle conveniences: `rebootWithDelays` needs no grace period for a crash (a
 * graceful reboot without one gets the default), and the attrition line of a seed whose swarm
 * mask zeroed every weight says that its reboots are crashes.
 */
import { describe, expect, it } from "vitest";
import {
  AttritionVictims,
  DEFAULT_GRACE_PERIOD_MS,
  describeAttritionChaos,
  PROCESS_FAULT_KINDS,
  SIM_FAULT_EVENT_NAME,
  SimulationBuilder,
  type AttritionChaosRecord,
  type SimContext,
} from "../src/index.ts";

async function rebootOnce(
  kind: "crash" | "graceful",
): Promise<{ ok: boolean; faults: { kind: string; graceMs: unknown }[]; returned: boolean }> {
  const faults: { kind: string; graceMs: unknown }[] = [];
  let returned = false;
  const report = await new SimulationBuilder()
    .processes(1, () => ({ name: "node", run: (ctx: SimContext) => ctx.time.sleep(60_000).catch(() => undefined) }))
    .workloadFactory(() => ({ name: "w", run: (ctx: SimContext) => ctx.time.sleep(20_000) }))
    .networkFaults("none")
    .chaosDuration(15_000)
    .faultFactory(() => ({
      name: "once",
      async inject(ctx) {
        await ctx.time.sleep(100);
        returned = ctx.rebootWithDelays(ctx.processIps()[0]!, kind, 200);
      },
    }))
    .invariantFn("faults", (q) => {
      faults.length = 0;
      for (const e of q.snapshot(SIM_FAULT_EVENT_NAME))
        faults.push({ kind: String(e.fields.kind), graceMs: e.fields.gracePeriodMs });
    })
    .setDebugSeeds([1])
    .setIterations(1)
    .run();
  return { ok: report.seeds[0]!.ok, faults, returned };
}

describe("rebootWithDelays without a grace period", () => {
  it("a crash needs none", async () => {
    const { ok, faults, returned } = await rebootOnce("crash");
    expect(ok).toBe(true);
    expect(returned).toBe(true);
    expect(faults.map((f) => f.kind)).toContain(PROCESS_FAULT_KINDS.crash);
    expect(faults.map((f) => f.kind)).toContain(PROCESS_FAULT_KINDS.restart);
  });

  it("a graceful reboot gets the default grace period", async () => {
    const { ok, faults } = await rebootOnce("graceful");
    expect(ok).toBe(true);
    const shutdown = faults.find((f) => f.kind === PROCESS_FAULT_KINDS.gracefulShutdown)!;
    expect(shutdown.graceMs).toBeGreaterThanOrEqual(DEFAULT_GRACE_PERIOD_MS[0]);
    expect(shutdown.graceMs).toBeLessThanOrEqual(DEFAULT_GRACE_PERIOD_MS[1]);
  });
});

describe("the attrition line", () => {
  const record = (weights: [number, number, number], maxDead: number): AttritionChaosRecord => ({
    victims: AttritionVictims.any(),
    scope: "process",
    mode: "swarm",
    swarmMask: { maxDead: maxDead > 0, graceful: weights[0] > 0, crash: weights[1] > 0, wipe: weights[2] > 0 },
    maxDead,
    probGraceful: weights[0],
    probCrash: weights[1],
    probWipe: weights[2],
    recoveryDelayMs: [1_000, 10_000],
    gracePeriodMs: [2_000, 5_000],
  });

  it("says that every reboot is a crash when the mask zeroed every weight", () => {
    expect(describeAttritionChaos(record([0, 0, 0], 1))).toMatch(
      /weights=0\/0\/0 \(all zero: crashes only\) off=\[graceful,crash,wipe\]/,
    );
  });

  it("says nothing extra with a weight left, or with no reboot at all", () => {
    expect(describeAttritionChaos(record([1, 0, 0], 1))).not.toMatch(/crashes only/);
    expect(describeAttritionChaos(record([0, 0, 0], 0))).not.toMatch(/crashes only/);
  });
});
