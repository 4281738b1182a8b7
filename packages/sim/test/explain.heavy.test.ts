/**
 * Tier 2 of explain.test.ts: the command's default budget (12 cut points and 6 refining them, 10
 * runs each) on the first three failing seeds of the leader election's vote-twice bug and on the
 * Paxos adopt-first-reported-value root: the same properties as tier 1 with narrower intervals.
 */
import { describe, expect, it } from "vitest";
import { leaderElectionSimulation } from "../../../examples/leader-election/simulation.ts";
import { paxosCampaign } from "../../../examples/paxos/simulation.ts";
import { explainFailure } from "../src/index.ts";
import { formatExplainText } from "../src/cli/doom-text.ts";
import { colorsFor } from "../src/cli/colors.ts";
import { ADOPT_FIRST_SEED, adoptedAccept, expectWellFormed } from "./support/explain-checks.ts";

describe("explainFailure at the default budget", () => {
  it("leader-election vote-twice, three failing seeds: a vote of the split term in every doomed window", async () => {
    const report = await leaderElectionSimulation({ bug: "vote-twice" }).setBaseSeed(1).setIterations(10).run();
    const seeds = report.seeds.filter((s) => !s.ok).map((s) => s.seed);
    expect(seeds.length).toBeGreaterThanOrEqual(3);
    const notMonotone: number[] = [];
    for (const seed of seeds.slice(0, 3)) {
      const result = await explainFailure(leaderElectionSimulation({ bug: "vote-twice" }), { seed });
      // Cut points that fall on the same draw share their runs.
      expect(result.runs).toBeLessThanOrEqual(180);
      expect(result.runs).toBeGreaterThanOrEqual(120);
      expectWellFormed(result, 12);
      if (result.conflicts.length > 0) {
        notMonotone.push(seed);
        // The third seed's runs cut just before term 1's election (219 ms) split that term's vote
        // 7 times in 10; the original run elected one leader there and split term 2 at 1,205 ms,
        // so from 329 ms on the runs fail far less: the failures the original escaped are the gap.
        for (const c of result.conflicts) expect(c.explainedByEscape, JSON.stringify(c)).toBe(true);
        const text = formatExplainText(
          "leader-election-vote-twice",
          result,
          "replay",
          colorsFor({ isTTY: false }),
        ).join("\n");
        expect(text).toContain(`not monotone within its confidence at ${result.conflicts.length} pair`);
        for (const c of result.conflicts) expect(text).toContain(`${(c.earlierUs / 1000).toFixed(3)} ms (`);
        expect(text).toContain("which the original run reached without failing (it escaped them)");
      }
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
    // The check above has bitten: one of the three curves falls beyond its confidence.
    expect(notMonotone).toEqual([1509270961521625]);
  });

  it("paxos adopt-first-reported-value: the accept of the value chosen second in the doomed window", async () => {
    const result = await explainFailure(paxosCampaign({ bug: "adopt-first-reported-value" }), {
      seed: ADOPT_FIRST_SEED,
    });
    expectWellFormed(result, 12);
    adoptedAccept(result);
  });
});
