/**
 * `Chaos.storage(mode)` through the runner: the seed's storage configuration is drawn and recorded,
 * faults strike the processes' files, stop at the chaos cutoff (recovery mode), and seeds replay
 * to the identical trace hash.
 */
import { describe, expect, it } from "vitest";
import { IoError, isAbortError, OpenOptions } from "@moonpool/core";
import {
  Chaos,
  type Process,
  type SimContext,
  type Workload,
  SIM_FAULT_EVENT_NAME,
  SimulationBuilder,
  STORAGE_FAULT_KINDS,
  SWARM_STORAGE_FAMILIES,
  TraceCursor,
  type SimulationReport,
  type TraceEvent,
} from "../src/index.ts";

const STORAGE_KINDS = new Set<string>(Object.values(STORAGE_FAULT_KINDS));

/** Appends records to a log, syncing each (retrying failed syncs) and reading the last one back. */
class LogNode implements Process {
  readonly name = "log";
  async run(ctx: SimContext): Promise<void> {
    const file = await ctx.storage.open("log/records", OpenOptions.readWriteCreate);
    const record = new Uint8Array(1500).fill(ctx.clientId + 1);
    let end = await file.size();
    try {
      for (;;) {
        await file.write(end, record);
        end += record.length;
        for (;;) {
          try {
            await file.sync();
            break;
          } catch (error) {
            if (!(error instanceof IoError && error.code === "EIO")) throw error;
          }
        }
        await file.read(end - record.length, record.length);
        await ctx.time.sleep(2);
      }
    } catch (error) {
      if (!isAbortError(error)) throw error;
    }
  }
}

class Waiter implements Workload {
  readonly name = "waiter";
  async run(ctx: SimContext): Promise<void> {
    await ctx.time.sleep(2_000);
  }
}

function recorder() {
  const seeds: { storageFaults: TraceEvent[]; cutoffMs: number | null }[] = [];
  const cursor = new TraceCursor();
  return {
    seeds,
    before: () => {
      cursor.reset();
      seeds.push({ storageFaults: [], cutoffMs: null });
    },
    observe: (q: { since(name: string, c: TraceCursor): readonly TraceEvent[] }) => {
      const s = seeds[seeds.length - 1]!;
      for (const e of q.since(SIM_FAULT_EVENT_NAME, cursor))
        if (STORAGE_KINDS.has(e.str("kind") ?? "")) s.storageFaults.push(e);
      for (const e of q.since("chaos_ended", cursor)) s.cutoffMs = e.timeMs;
    },
  };
}

async function campaign(
  mode: "random" | "swarm" | null,
  iterations: number,
  rec = recorder(),
): Promise<{ report: SimulationReport; rec: ReturnType<typeof recorder> }> {
  const builder = new SimulationBuilder()
    .processes(2, () => new LogNode())
    .workloadFactory(() => new Waiter())
    .networkFaults("none")
    .chaosDuration(1_000)
    .invariantFn("recorder", (q) => rec.observe(q))
    .beforeIteration(rec.before)
    .setBaseSeed(77)
    .setIterations(iterations);
  if (mode !== null) builder.enableChaos([Chaos.storage(mode), Chaos.buggifyKnobs()]);
  const report = await builder.run();
  return { report, rec };
}

describe("Chaos.storage through the runner", () => {
  it("swarm: each seed records its mask and configuration, faults strike, and none starts after the cutoff", async () => {
    const { report, rec } = await campaign("swarm", 60);
    expect(report.failedRuns, report.toString()).toBe(0);
    let seedsWithFaults = 0;
    for (const [i, seed] of report.seeds.entries()) {
      expect(seed.chaos.storage.mode).toBe("swarm");
      expect(Object.keys(seed.chaos.storage.swarmMask!)).toEqual([...SWARM_STORAGE_FAMILIES]);
      const { storageFaults, cutoffMs } = rec.seeds[i]!;
      expect(cutoffMs).not.toBeNull();
      if (storageFaults.length > 0) seedsWithFaults++;
      expect(storageFaults.filter((e) => e.timeMs > cutoffMs!)).toEqual([]);
    }
    expect(seedsWithFaults).toBeGreaterThan(10);
    const json = JSON.parse(JSON.stringify(report.toJSON())) as {
      seeds: { chaos: { storage: { config: Record<string, unknown> } } }[];
    };
    expect(Object.keys(json.seeds[0]!.chaos.storage.config)).toContain("syncFailureProbability");
  });

  it("without Chaos.storage, no storage fault and the baseline record", async () => {
    const { report, rec } = await campaign(null, 10);
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.seeds.every((s) => s.chaos.storage.mode === "baseline" && s.chaos.storage.swarmMask === null)).toBe(
      true,
    );
    expect(rec.seeds.flatMap((s) => s.storageFaults)).toEqual([]);
  });

  it("the same seeds with storage swarm chaos replay to identical trace hashes (100 seeds, twice)", async () => {
    const first = (await campaign("swarm", 100)).report;
    const second = (await campaign("swarm", 100)).report;
    expect(first.seeds.map((s) => s.traceHash)).toEqual(second.seeds.map((s) => s.traceHash));
    expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(100);
    const random = (await campaign("random", 5)).report;
    expect(random.seeds.every((s) => s.chaos.storage.mode === "random" && s.chaos.storage.swarmMask === null)).toBe(
      true,
    );
  });

  it("Chaos.buggifyKnobs() is valid with storage as its only surface; a bad mode is refused", () => {
    expect(() => new SimulationBuilder().enableChaos([Chaos.storage("swarm"), Chaos.buggifyKnobs()])).not.toThrow();
    expect(() => Chaos.storage("sometimes" as "swarm")).toThrow(/Chaos.storage\(mode\)/);
  });
});
