/**
 * The Paxos simulations for the `moonpool` command:
 *
 *   npx moonpool run paxos                                   # the campaign, 300 seeds on all cores
 *   npx moonpool run paxos --explore                         # plus exploration of every root seed
 *   npx moonpool replay paxos --seed <SEED>                  # one seed, with its trace
 *   npx moonpool run paxos-adopt-first-reported-value        # a planted bug: fails on purpose (expectFailure)
 *   npx moonpool run paxos-ballot-reuse-after-restart        # the deep one: a root seed known to fail
 *
 * `paxos` runs seeds until assertion coverage is stable: 20 seeds in a row that reach no new
 * sometimes signal, once every one of them has been reached (at most 1,000 seeds). Each planted
 * bug has its own simulation, the same campaign with the bug on, which must fail: they declare
 * `expectFailure: true`, so a run passes when they fail and fails if one of them stops failing.
 */
import { defineSimulation } from "@moonpool/sim";
import type { PaxosBug } from "./node.ts";
import { paxosCampaign } from "./simulation.ts";

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
// Rare: about one campaign seed in 1,500 fails, and a simulation that fails on purpose should fail
// every time. So this one runs root seed 1612, one that fails (see the README).
export const paxosBallotReuseAfterRestart = defineSimulation({
  name: "paxos-ballot-reuse-after-restart",
  expectFailure: true,
  description:
    "the same with the planted bug 'ballot-reuse-after-restart' (fails on purpose: a reused ballot carries a second value in a slot; root seed 1612)",
  build: () => paxosCampaign({ bug: "ballot-reuse-after-restart" }).setDebugSeeds([1612]).setIterations(1),
});

export const paxosNoPromiseCheck = plantedBug("no-promise-check", "an acceptor accepts below its promise");
export const paxosIgnoreAcceptedValues = plantedBug("ignore-accepted-values", "two values chosen in one slot");
export const paxosAdoptFirstReportedValue = plantedBug(
  "adopt-first-reported-value",
  "two values chosen in one slot, after a sequence",
);
