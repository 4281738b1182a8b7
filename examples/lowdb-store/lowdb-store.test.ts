/**
 * Unmodified lowdb on the simulated disk. Its own `JSONFile` (steno: temp file, rename, no fsync)
 * loses acknowledged records when a crash meets an unsynced rename or write; the fsync-ing adapter
 * does not. From base seed 1 the JSONFile store fails at seed indexes 1, 4 and 8 of the first 10
 * (under the baseline clocks), so 10 seeds show the loss; the fsync-ing store passes 20 here and 2,000 in lowdb-store.heavy.test.ts.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { SeedResult } from "@moonpool/sim";
import { DEFAULT_STORAGE_CONFIG } from "@moonpool/sim/tuning";
import { readJson, runCli, tempDir } from "../../packages/sim/test/cli/helpers.ts";
import { lowdbStoreSimulation } from "./simulation.ts";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const LOST = "no acknowledged record is lost";
const crashed = (s: SeedResult) => (s.chaos.reboots?.crash ?? 0) > 0;

describe("lowdb-store example (unmodified lowdb through node:fs on the simulated disk)", () => {
  it("lowdb's own JSONFile loses acknowledged records: found at seed index 1 from base seed 1, and replays to the same hash", async () => {
    const report = await lowdbStoreSimulation("steno").setBaseSeed(1).setIterations(10).run();
    const index = report.seeds.findIndex((s) => !s.ok);
    expect(index).toBe(1);
    expect(report.seeds[index]!.failures[0]!.message).toContain(LOST);
    const failing = report.seeds[index]!;
    const replay = await lowdbStoreSimulation("steno").setDebugSeeds([failing.seed]).setIterations(1).run();
    expect(replay.seeds[0]!.traceHash).toBe(failing.traceHash);
  });

  it("the fsync-ing adapter passes the same and more seeds, crashes among them", async () => {
    const report = await lowdbStoreSimulation("fsync").setBaseSeed(1).setIterations(20).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.seeds.some(crashed)).toBe(true);
    const status = Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
    expect(status[LOST]).toBe("PASS");
    expect(status["a boot found acknowledged records"]).toBe("PASS");
  });

  it("off: on the baseline disk (crashes keep unsynced data) lowdb's own JSONFile loses nothing in those seeds", async () => {
    const report = await lowdbStoreSimulation("steno")
      .storageFaults(DEFAULT_STORAGE_CONFIG)
      .setBaseSeed(1)
      .setIterations(10)
      .run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.seeds.some(crashed)).toBe(true);
  });

  it("same seed, same hash; two seeds differ", async () => {
    const first = await lowdbStoreSimulation("fsync").setBaseSeed(5).setIterations(3).run();
    const second = await lowdbStoreSimulation("fsync").setBaseSeed(5).setIterations(3).run();
    expect(second.seeds.map((s) => s.traceHash)).toEqual(first.seeds.map((s) => s.traceHash));
    expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(3);
  });

  // The default campaign's first 2 seeds from base seed 1 (index 1 fails); the whole repository's run
  // (cli/repository-run.heavy.test.ts) runs it at its configured 20.
  it("`moonpool run lowdb-store-forgot-fsync` (its default campaign, from base seed 1) finds the loss and exits 0", async () => {
    const out = await tempDir("lowdb-store");
    const run = await runCli(
      ["run", "lowdb-store-forgot-fsync", "--base-seed", "1", "--iterations", "2", "--reporter", "json", "--out", out],
      { cwd: HERE },
    );
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    const json = await readJson(path.join(out, "report.json"));
    const entry = json.simulations.find((s: { name: string }) => s.name === "lowdb-store-forgot-fsync");
    expect(entry.report.failedRuns).toBe(1);
  });
});
