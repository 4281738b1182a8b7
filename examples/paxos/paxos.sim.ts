/**
 * The Paxos simulations for the `moonpool` command:
 *
 *   npx moonpool run paxos                                   # the campaign, 300 seeds on all cores
 *   npx moonpool run paxos --explore                         # plus exploration of every root seed
 *   npx moonpool replay paxos --seed <SEED>                  # one seed, with its trace
 *   npx moonpool run paxos-adopt-first-reported-value        # a planted bug: fails on purpose (expectFailure)
 *   npx moonpool run paxos-ballot-reuse-after-restart        # the deep one: the default budget finds it
 *
 * `paxos` runs seeds until assertion coverage is stable: 20 seeds in a row that reach no new
 * sometimes signal, once every one of them has been reached (at most 1,000 seeds). Each planted
 * bug has its own simulation, the same campaign with the bug on, which must fail: they declare
 * `expectFailure: true`, so a run passes when they fail and fails if one of them stops failing.
 */
import { defineSimulation } from "@moonpool/sim";
import type { PaxosBug } from "./node.ts";
import { BALLOT_REUSE_WORKLOAD, paxosCampaign } from "./simulation.ts";

export const paxos = defineSimulation({
  name: "paxos",
  description:
    "Multi-decree Paxos on 3 nodes: network, storage and attrition swarm, isolation and crash-restarts, recovery tail",
  build: () => paxosCampaign().untilCoverageStable(20, 1_000),
});

function plantedBug(bug: PaxosBug, what: string) {
  return defineSimulation({
    name: `paxos-${bug}`,
    description: `the same with the planted bug '${bug}' (fails on purpose: ${what})`,
    expectFailure: true,
    build: () => paxosCampaign({ bug }).setIterations(100),
  });
}

export const paxosPromiseBeforePersist = plantedBug("promise-before-persist", "a crash forgets a promise");
// Rare under the campaign's clients, which fail over at once (about one seed in 2,000). Here the
// clients retry their leader before failing over (`BALLOT_REUSE_WORKLOAD`), so a restarted leader
// hears them before another node takes over: about one seed in 300 fails, and the default budget
// (the adaptive campaign, no pinned seed) finds it (docs/decisions.md D52).
export const paxosBallotReuseAfterRestart = defineSimulation({
  name: "paxos-ballot-reuse-after-restart",
  expectFailure: true,
  description:
    "the same with the planted bug 'ballot-reuse-after-restart' and clients that retry their leader first (fails on purpose: a reused ballot carries a second value in a slot)",
  build: () => paxosCampaign({ bug: "ballot-reuse-after-restart", workload: BALLOT_REUSE_WORKLOAD }),
});

export const paxosNoPromiseCheck = plantedBug("no-promise-check", "an acceptor accepts below its promise");
export const paxosIgnoreAcceptedValues = plantedBug("ignore-accepted-values", "two values chosen in one slot");
export const paxosAdoptFirstReportedValue = plantedBug(
  "adopt-first-reported-value",
  "two values chosen in one slot, after a sequence",
);
