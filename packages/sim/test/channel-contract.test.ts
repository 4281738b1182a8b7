/** The channel contract (packages/core/test/channel-contract.ts) against the simulated task provider. */
import { channelContractSuite } from "../../core/test/channel-contract.ts";
import { World } from "../src/world/world.ts";
import { boot, runActor } from "./fixtures/drive-world.ts";

let nextSeed = 1;

channelContractSuite("simulated (SimTask)", {
  run: (body) => {
    const world = new World({ seed: nextSeed++ });
    const { scope } = boot(world, "10.0.1.1");
    return runActor(world, () => body(scope.task, scope.time));
  },
});
