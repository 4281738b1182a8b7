/**
 * The lowdb-store simulations for the `moonpool` command:
 *
 *   npx moonpool run lowdb-store                # 200 seeds: the fsync-ing adapter loses nothing
 *   npx moonpool run lowdb-store-forgot-fsync   # lowdb's own JSONFile: loses acknowledged records (fails on purpose)
 */
import { defineSimulation } from "@moonpool/sim";
import { lowdbStoreSimulation } from "./simulation.ts";

export const lowdbStore = defineSimulation({
  name: "lowdb-store",
  description:
    "unmodified lowdb with an fsync-ing adapter on the simulated disk, crash-rebooted: no acknowledged record is lost",
  build: () => lowdbStoreSimulation("fsync").setIterations(200),
});

export const lowdbStoreForgotFsync = defineSimulation({
  name: "lowdb-store-forgot-fsync",
  expectFailure: true,
  description:
    "the same with lowdb's own JSONFile (steno writes a temp file and renames it, never fsyncs): a crash loses acknowledged records",
  build: () => lowdbStoreSimulation("steno").setIterations(20),
});
