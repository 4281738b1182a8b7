/** The leader-election example's simulations, the correct one and the planted vote-twice bug. */
export {
  leaderElection,
  leaderElectionVoteTwice,
} from "../../../../../examples/leader-election/leader-election.sim.ts";
