/**
 * Three Yjs peers and one editor under network chaos, on the virtual Node runtime (Yjs and lib0
 * take their clientIDs from crypto and their clocks from Date.now, captured when they load).
 */
// The simulator first: its wrappers must be in place before Yjs and lib0 capture the globals.
import { Chaos, SimulationBuilder } from "@moonpool/sim";
import { CONVERGE_WITHIN_MS, Editor } from "./editor.ts";
import { YjsPeer, type YjsBug } from "./peer.ts";

export const CHAOS_MS = 6_000;

export function yjsSyncSimulation(options: { readonly bug?: YjsBug } = {}): SimulationBuilder {
  return new SimulationBuilder()
    .nodeRuntime()
    .processes(3, () => new YjsPeer(options.bug))
    .workloadFactory(() => new Editor(CHAOS_MS - 500))
    .enableChaos([Chaos.network("swarm")])
    .chaosDuration(CHAOS_MS)
    .runTimeBudget(CHAOS_MS + CONVERGE_WITHIN_MS + 5_000);
}
