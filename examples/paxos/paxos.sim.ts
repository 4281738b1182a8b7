/**
 * The Paxos simulations for the `moonpool` command:
 *
 *   npx moonpool run paxos                                   # the campaign, 300 seeds on all cores
 *   npx moonpool run paxos --explore                         # plus exploration of every root seed
 *   npx moonpool replay paxos --seed <SEED>                  # one seed, with its trace
 *   npx moonpool run paxos-adopt-first-reported-value        # a planted bug: fails on purpose
 *
 * `paxos` reaches every sometimes signal except "acceptor recovered persisted state", which needs
 * process reboots (attrition). The planted-bug simulations cover the bugs that show without
 * reboots; `promise-before-persist` and `ballot-reuse-after-restart` join them with attrition.
 */
import { defineSimulation } from "@moonpool/sim";
import type { PaxosBug } from "./node.ts";
import { paxosCampaign } from "./simulation.ts";

export const paxos = defineSimulation({
  name: "paxos",
  description: "Multi-decree Paxos on 3 nodes: network and storage swarm, node isolation, recovery tail",
  // A fixed count for now: "acceptor recovered persisted state" stays MISS until attrition exists,
  // so an until-stable rule would never saturate and always run to its cap. With attrition in the
  // campaign, switch to: paxosCampaign().untilCoverageStable(20, 1_000)
  build: () => paxosCampaign().setIterations(300),
});

function plantedBug(bug: PaxosBug, what: string) {
  return defineSimulation({
    name: `paxos-${bug}`,
    description: `the same with the planted bug '${bug}' (fails on purpose: ${what})`,
    build: () => paxosCampaign({ bug }).setIterations(100),
  });
}

export const paxosNoPromiseCheck = plantedBug("no-promise-check", "an acceptor accepts below its promise");
export const paxosIgnoreAcceptedValues = plantedBug("ignore-accepted-values", "two values chosen in one slot");
export const paxosAdoptFirstReportedValue = plantedBug("adopt-first-reported-value", "two values chosen in one slot, after a sequence");
