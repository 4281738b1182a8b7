/**
 * The order service on the virtual Node runtime: `fetch` to the pricing service by host name,
 * orders in a log on the simulated disk through `node:fs`, crash-rebooted. Acknowledging before
 * the fsync loses acknowledged orders: from base seed 1 the lazy-fsync service fails at seed
 * indexes 0, 1, 2 and 3 (and 5, 6, 8, 9 of the first 10). The fsync-ing service passes 12 seeds
 * here and 300 in storefront.heavy.test.ts.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { SeedResult } from "@moonpool/sim";
import { readJson, runCli, tempDir } from "../../packages/sim/test/cli/helpers.ts";
import { orderServiceSimulation } from "./simulation.ts";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const crashed = (s: SeedResult) => (s.chaos.reboots?.crash ?? 0) > 0;
const LOSSES = ["an acknowledged order reads back unchanged", "an acknowledged order's id is never given again"];

describe("storefront example (fetch by host name, node:fs on the simulated disk)", () => {
  it("the lazy-fsync service loses acknowledged orders at seed indexes 0-3 from base seed 1, and replays to the same hash", async () => {
    const report = await orderServiceSimulation("lazy-fsync").setBaseSeed(1).setIterations(4).run();
    expect(report.seeds.map((s, i) => (s.ok ? -1 : i)).filter((i) => i >= 0)).toEqual([0, 1, 2, 3]);
    for (const seed of report.seeds) expect(LOSSES.some((m) => seed.failures[0]!.message.includes(m))).toBe(true);
    const failing = report.seeds[0]!;
    const replay = await orderServiceSimulation("lazy-fsync").setDebugSeeds([failing.seed]).setIterations(1).run();
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
  });

  it("the fsync-ing service passes the same and more seeds, crashes and pricing failures among them", async () => {
    const report = await orderServiceSimulation("fsync").setBaseSeed(1).setIterations(12).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.seeds.some(crashed)).toBe(true);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    expect(status[LOSSES[0]!]).toBe("PASS");
    expect(status["an order's total is the catalogue price times its quantity"]).toBe("PASS");
    expect(status["pricing was unavailable for an order"]).toBe("PASS");
  });

  it("same seed, same hash; two seeds differ", async () => {
    const first = await orderServiceSimulation("fsync").setBaseSeed(5).setIterations(2).run();
    const second = await orderServiceSimulation("fsync").setBaseSeed(5).setIterations(2).run();
    expect(second.seeds.map((s) => s.traceHash)).toEqual(first.seeds.map((s) => s.traceHash));
    expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(2);
  });

  // The default campaign's first 2 seeds from base seed 1 (both fail); the whole repository's run
  // (cli/repository-run.heavy.test.ts) runs it at its configured 10.
  it("`moonpool run storefront-lazy-fsync` (its default campaign, from base seed 1) finds the loss and exits 0", async () => {
    const out = await tempDir("storefront");
    const run = await runCli(
      ["run", "storefront-lazy-fsync", "--base-seed", "1", "--iterations", "2", "--reporter", "json", "--out", out],
      { cwd: HERE },
    );
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    const json = await readJson(path.join(out, "report.json"));
    const entry = json.simulations.find((s: { name: string }) => s.name === "storefront-lazy-fsync");
    expect(entry.report.failedRuns).toBe(2);
  });
});
