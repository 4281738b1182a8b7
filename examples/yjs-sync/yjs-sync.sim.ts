/**
 * The Yjs simulations for the `moonpool` command:
 *
 *   npx moonpool run yjs-sync          # peers resync on every reconnection: documents converge
 *   npx moonpool run yjs-sync-no-resync  # the planted bug: no resync after a reconnection (fails on purpose)
 */
import { defineSimulation } from "@moonpool/sim";
import { yjsSyncSimulation } from "./simulation.ts";

export const yjsSync = defineSimulation({
  name: "yjs-sync",
  description:
    "three unmodified Yjs documents synchronising with y-protocols over the simulated network under network chaos",
  build: () => yjsSyncSimulation().setIterations(30),
});

export const yjsSyncNoResync = defineSimulation({
  name: "yjs-sync-no-resync",
  expectFailure: true,
  description:
    "the same with the planted bug: a reconnected peer does not resync (fails on purpose: documents diverge)",
  build: () => yjsSyncSimulation({ bug: "no-resync-on-reconnect" }).setIterations(30),
});
