/**
 * The leader-election simulations for the `moonpool` command:
 *
 *   npx moonpool run leader-election                 # seeds until coverage is stable (at most 200)
 *   npx moonpool run leader-election-vote-twice      # the planted bug: passes when it finds a split brain
 */
import { defineSimulation } from "@moonpool/sim";
import { leaderElectionSimulation } from "./simulation.ts";

export const leaderElection = defineSimulation({
  name: "leader-election",
  description: "Raft-like election of 3 nodes; invariant: one leader per term",
  build: () => leaderElectionSimulation().untilCoverageStable(10, 200),
});

export const leaderElectionVoteTwice = defineSimulation({
  name: "leader-election-vote-twice",
  description: "the same with the planted vote-twice bug (fails on purpose: a split brain)",
  expectFailure: true,
  build: () => leaderElectionSimulation({ bug: "vote-twice" }).untilCoverageStable(10, 200),
});
