/**
 * The leader-election simulations for the `moonpool` command:
 *
 *   npx moonpool run leader-election                 # a campaign budget of 100 timelines
 *   npx moonpool run leader-election-vote-twice      # the planted bug: passes when it finds a split brain
 *
 * `campaignBudget(100)` keeps the first command quick: under `moonpool run` every fresh root seed
 * gets a realm of its own (a few hundred ms of CPU). Without it a simulation spends the default
 * budget, `DEFAULT_CAMPAIGN_TIMELINES` (1,000), which finds a bug that fails 0.5 % of seeds with
 * probability above 99 %.
 */
import { defineSimulation } from "@moonpool/sim";
import { leaderElectionSimulation } from "./simulation.ts";

export const leaderElection = defineSimulation({
  name: "leader-election",
  description: "Raft-like election of 3 nodes; invariant: one leader per term",
  build: () => leaderElectionSimulation().campaignBudget(100),
});

export const leaderElectionVoteTwice = defineSimulation({
  name: "leader-election-vote-twice",
  description: "the same with the planted vote-twice bug (fails on purpose: a split brain)",
  expectFailure: true,
  build: () => leaderElectionSimulation({ bug: "vote-twice" }).campaignBudget(100),
});
