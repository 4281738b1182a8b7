/**
 * A failed fsync: Postgres PANICs (as it does on Linux rather than trust a page cache that may have
 * dropped the writes), the process closes every connection and starts Postgres again on the same
 * disk, and no commit that returned is lost.
 */
import { SimulationBuilder } from "@moonpool/sim";
import { DEFAULT_STORAGE_CONFIG } from "@moonpool/sim/tuning";
import { describe, expect, it } from "vitest";
import { PostgresProcess } from "../../src/postgres.ts";
import { expectDurable, type Outcome, template, Writer } from "./fixtures/power-cut.ts";

function failingFsyncs(out: Outcome[], processes: PostgresProcess[], syncFailureProbability: number, maxRows?: number) {
  return new SimulationBuilder()
    .nodeRuntime()
    .networkFaults("none")
    .storageFaults({ ...DEFAULT_STORAGE_CONFIG, syncFailureProbability })
    .processes(1, () => {
      const process = new PostgresProcess(template);
      processes.push(process);
      return process;
    })
    .workload(new Writer(out, maxRows))
    .setBaseSeed(7)
    .setIterations(1);
}

describe("Postgres on a disk whose fsyncs fail", () => {
  it("PANICs, is started again on the same disk, and keeps every returned commit", async () => {
    const out: Outcome[] = [];
    const processes: PostgresProcess[] = [];
    const report = await failingFsyncs(out, processes, 0.05).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    // The builder calls the factory once outside the seed to learn the group's name.
    const ran = processes.filter((p) => p.lives > 0);
    const lives = ran.reduce((sum, p) => sum + p.lives, 0);
    expect(lives).toBeGreaterThan(ran.length); // a life ended under a query and another began
    expectDurable(out[0]!);
  });

  it("with fsyncs that never fail, one life serves the whole seed", async () => {
    const out: Outcome[] = [];
    const processes: PostgresProcess[] = [];
    const report = await failingFsyncs(out, processes, 0, 200).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const ran = processes.filter((p) => p.lives > 0);
    expect(ran.reduce((sum, p) => sum + p.lives, 0)).toBe(ran.length);
    expect(out[0]!.found).toHaveLength(200);
  });
});
