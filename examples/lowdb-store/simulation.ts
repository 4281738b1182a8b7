/**
 * The simulation: two store processes, each on its own machine's simulated disk through `node:fs`
 * (`nodeRuntime().nodeFs()`), crash-rebooted by attrition during a 3 s chaos window. The disk loses
 * what was not synced at a power cut half of the time (`crashFaultProbability` 0.5: unsynced writes
 * and unsynced directory changes alike), and 1 % of syncs fail with `EIO`.
 */
import { AttritionVictims, Chaos, SimulationBuilder, type SimContext } from "@moonpool/sim";
import { DEFAULT_STORAGE_CONFIG } from "@moonpool/sim/tuning";
import { StoreProcess, type StoreVariant } from "./store.ts";

export const CHAOS_MS = 3_000;

export const STORE_DISK = Object.freeze({
  ...DEFAULT_STORAGE_CONFIG,
  crashFaultProbability: 0.5,
  syncFailureProbability: 0.01,
});

export function lowdbStoreSimulation(variant: StoreVariant): SimulationBuilder {
  return new SimulationBuilder()
    .processes(2, () => new StoreProcess(variant))
    .workloadFactory(() => ({ name: "waiter", run: (ctx: SimContext) => ctx.time.sleep(CHAOS_MS + 1_000) }))
    .networkFaults("none")
    .storageFaults(STORE_DISK)
    .chaosDuration(CHAOS_MS)
    .enableChaos([
      Chaos.attrition(
        {
          maxDead: 1,
          probGraceful: 1,
          probCrash: 3,
          probWipe: 0,
          recoveryDelayMs: [100, 1_000],
          victims: AttritionVictims.group("store"),
        },
        "random",
      ),
    ])
    .nodeRuntime()
    .nodeFs();
}
