/**
 * Shrinking Paxos planted bugs whose failing seeds are common: the first failing seed of base
 * seed 1 (scanned, not pinned, so the test follows changes to the protocol) shrinks to a run
 * that violates the same property, replays to the same trace hash on a fresh builder, and has at
 * most half the events and injected faults. `npm run bench -- shrink` covers every planted bug.
 */
import { describe, expect, it } from "vitest";
import { shrinkTimeline } from "@moonpool/sim";
import type { PaxosBug } from "./node.ts";
import { paxosCampaign } from "./simulation.ts";

describe.each(["no-promise-check", "promise-before-persist"] as PaxosBug[])("shrinking Paxos planted bug %s", (bug) => {
  it("keeps the property and the replay hash with at most half the events and faults", async () => {
    const report = await paxosCampaign({ bug }).setBaseSeed(1).setIterations(30).run();
    const failing = report.seeds.find((s) => !s.ok)!;
    expect(failing).toBeDefined();
    const result = await shrinkTimeline(paxosCampaign({ bug }), { seed: failing.seed, maxRuns: 300 });
    expect(result.property).toBe(failing.failures[0]!.property);
    expect(result.after.events * 2).toBeLessThanOrEqual(result.before.events);
    expect(result.after.faults * 2).toBeLessThanOrEqual(result.before.faults);
    const replay = await paxosCampaign({ bug }).replayTimeline(result.seed, result.recipe, result.overrides).run();
    expect(replay.seeds[0]!.traceHash).toBe(result.after.traceHash);
    expect(replay.seeds[0]!.failures[0]!.property).toBe(result.property);
  });
});
