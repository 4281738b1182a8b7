/**
 * Tier 2 of explain.test.ts: the command's default budget (12 cut points and 6 refining them, 10
 * runs each) on the first three failing seeds of the leader election's vote-twice bug and on the
 * Paxos adopt-first-reported-value root: the same properties as tier 1 with narrower intervals.
 */
import { describe, expect, it } from "vitest";
import { leaderElectionSimulation } from "../../../examples/leader-election/simulation.ts";
import { paxosCampaign } from "../../../examples/paxos/simulation.ts";
import { explainFailure } from "../src/index.ts";
import { ADOPT_FIRST_SEED, adoptedAccept, expectWellFormed } from "./support/explain-checks.ts";

describe("explainFailure at the default budget", () => {
  it("leader-election vote-twice, three failing seeds: a vote of the split term in every doomed window", async () => {
    const report = await leaderElectionSimulation({ bug: "vote-twice" }).setBaseSeed(1).setIterations(10).run();
    const seeds = report.seeds.filter((s) => !s.ok).map((s) => s.seed);
    expect(seeds.length).toBeGreaterThanOrEqual(3);
    for (const seed of seeds.slice(0, 3)) {
      const result = await explainFailure(leaderElectionSimulation({ bug: "vote-twice" }), { seed });
      // Cut points that fall on the same draw share their runs.
      expect(result.runs).toBeLessThanOrEqual(180);
      expect(result.runs).toBeGreaterThanOrEqual(120);
      // Under the baseline clocks the third failing seed's curve is not monotone beyond its
      // confidence (7/10 at one cut point, 0/10 at the next): changing the randomness later can
      // also lead away from the failure. Recorded in issue 38's note; the other two are monotone.
      expectWellFormed(result, 12, { monotone: seed !== 1509270961521625 });
      const leaders = result.window.filter((e) => e.name === "leader_elected");
      const second = leaders[leaders.length - 1]!;
      const vote = result.window.find(
        (e) =>
          e.name === "vote_granted" &&
          e.fields.term === second.fields.term &&
          e.fields.candidate === second.fields.leader,
      );
      expect(vote, `seed ${seed}: ${JSON.stringify(result.window)}`).toBeDefined();
    }
  });

  it("paxos adopt-first-reported-value: the accept of the value chosen second in the doomed window", async () => {
    const result = await explainFailure(paxosCampaign({ bug: "adopt-first-reported-value" }), {
      seed: ADOPT_FIRST_SEED,
    });
    expectWellFormed(result, 12);
    adoptedAccept(result);
  });
});
