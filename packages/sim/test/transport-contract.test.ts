/** The transport contract (packages/core/test/transport-contract.ts) over the simulated network, without faults. */
import { transportContractSuite } from "../../core/test/transport-contract.ts";
import { World } from "../src/world/world.ts";
import { boot, runActor } from "./fixtures/drive-world.ts";

let nextSeed = 1;

transportContractSuite("simulated (SimNetwork)", {
  run: (body) => {
    const world = new World({ seed: nextSeed++ });
    const server = boot(world, "10.0.1.1", "server").scope;
    const client = boot(world, "10.0.0.1", "client").scope;
    return runActor(world, () => body(server, client, "10.0.1.1:7000"));
  },
});
