/**
 * A growing worker pool (`moonpool run`'s): it starts one worker and adds the others only while
 * tasks wait and the machine has CPU to spare. Growth changes where seeds run, never their results.
 */
import { describe, expect, it } from "vitest";
import { runPoolCampaign } from "../src/runner/pool/pool-campaign.ts";
import { WorkerPool, type PoolGrowth } from "../src/runner/pool/worker-pool.ts";

const SOURCE = {
  module: new URL("../../../examples/leader-election/leader-election.sim.ts", import.meta.url).href,
  export: "leaderElection",
};

async function campaign(grow: PoolGrowth): Promise<{ hashes: string[]; spawned: number }> {
  const pool = new WorkerPool(2, { grow });
  try {
    const { report } = await runPoolCampaign(pool, {
      name: "leader-election",
      source: SOURCE,
      overrides: { explore: false },
      plan: { kind: "fixed", baseSeed: 5, debugSeeds: [], count: 6 },
      range: { start: 0, end: 6 },
      explore: false,
      steppingMode: "fast",
      bail: false,
      hangTimeoutMs: null,
      isolation: "shared",
      signal: new AbortController().signal,
    });
    expect(report.iterations).toBe(6);
    return { hashes: report.seeds.map((s) => `${s.seed} ${s.traceHash}`), spawned: pool.spawned };
  } finally {
    await pool.close();
  }
}

describe("a growing worker pool", () => {
  it("stays at one worker when the machine never has a spare core, and grows when it has", async () => {
    const never = await campaign({ minSpareCores: Number.POSITIVE_INFINITY, sampleMs: 0 });
    const always = await campaign({ minSpareCores: 0, sampleMs: 0 });
    expect(never.spawned).toBe(1);
    expect(always.spawned).toBe(2);
    // Same seeds, same hashes, whatever the number of workers that ran them.
    expect(always.hashes).toEqual(never.hashes);
    expect(new Set(never.hashes).size).toBe(6);
  });
});
