/** The storage contract (packages/core/test/storage-contract.ts) against the simulated provider, faults off. */
import { storageContractSuite, type StorageHarness } from "../../core/test/storage-contract.ts";
import { boot, hashedWorld, runActor } from "./storage-helpers.ts";

let nextSeed = 1;

storageContractSuite("simulated (SimStorage, baseline config)", async (): Promise<StorageHarness> => {
  const world = hashedWorld(nextSeed++);
  const { scope } = boot(world);
  return {
    run: (body) => runActor(world, () => body(scope.storage)),
    dispose: async () => {},
  };
});
