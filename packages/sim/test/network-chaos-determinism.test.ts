/**
 * Determinism under network chaos: for each mode, 100 seeds run twice give identical trace
 * hashes (and identical configurations and fault timelines), and different seeds differ.
 */
import { describe, expect, it } from "vitest";
import {
  Chaos,
  SimulationBuilder,
  type Chaos as ChaosEntry,
  type SimulationReport,
  type SteppingMode,
} from "../src/index.ts";
import { EchoClient, EchoServer } from "./fixtures/chaos-echo.ts";

const SEEDS = Array.from({ length: 100 }, (_, i) => i * 104_729 + 7);

const MODES: Record<string, readonly ChaosEntry[]> = {
  baseline: [],
  random: [Chaos.network("random")],
  swarm: [Chaos.network("swarm")],
  "swarm+knobs": [Chaos.network("swarm"), Chaos.buggifyKnobs()],
};

function campaign(
  entries: readonly ChaosEntry[],
  seeds: readonly number[],
  stepping: SteppingMode = "fast",
): Promise<SimulationReport> {
  return new SimulationBuilder()
    .enableChaos(entries)
    .chaosDuration(1_500)
    .processes(1, () => new EchoServer())
    .workloadFactory(() => new EchoClient({ rounds: 12, pauseMs: 100, timeoutMs: 3_000 }))
    .setDebugSeeds(seeds)
    .setIterations(seeds.length)
    .steppingMode(stepping)
    .run();
}

describe("determinism under network chaos", () => {
  for (const [mode, entries] of Object.entries(MODES)) {
    it(`${mode}: 100 seeds twice give identical trace hashes; different seeds differ`, async () => {
      const first = await campaign(entries, SEEDS);
      const second = await campaign(entries, SEEDS);
      expect(first.failedRuns, first.toString()).toBe(0);
      expect(second.seeds.map((s) => s.traceHash)).toEqual(first.seeds.map((s) => s.traceHash));
      expect(second.seeds.map((s) => s.simDraws)).toEqual(first.seeds.map((s) => s.simDraws));
      expect(second.seeds.map((s) => JSON.stringify(s.chaos))).toEqual(first.seeds.map((s) => JSON.stringify(s.chaos)));
      expect(new Set(first.seeds.map((s) => s.traceHash)).size).toBe(SEEDS.length);
      expect(
        first.seeds.every(
          (s) => s.chaos.network.mode === (mode === "baseline" ? "baseline" : mode.replace("+knobs", "")),
        ),
      ).toBe(true);
    });
  }

  it("paranoid stepping gives the same traces as fast stepping under swarm chaos", async () => {
    const seeds = SEEDS.slice(0, 25);
    const fast = await campaign(MODES["swarm+knobs"]!, seeds, "fast");
    const paranoid = await campaign(MODES["swarm+knobs"]!, seeds, "paranoid");
    expect(paranoid.seeds.map((s) => s.traceHash)).toEqual(fast.seeds.map((s) => s.traceHash));
  });
});
