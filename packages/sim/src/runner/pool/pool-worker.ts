/**
 * The pool worker: for every task it loads the simulation from its source (the module is
 * imported once, the builder is built afresh each time, so no state carries from one task to
 * the next whichever worker ran the previous one) and runs it with `Campaign.runSingleSeed`.
 * One task at a time: a realm runs one simulation at a time.
 */
import { parentPort } from "node:worker_threads";
import { AssertionTable } from "../../chaos/assertions/index.ts";
import { Campaign } from "../campaign.ts";
import { configFingerprint } from "../config-fingerprint.ts";
import { beginSeedCoverage, endSeedCoverage, scriptSources, startCoverage } from "../coverage/collector.ts";
import { buildWithOverrides, loadSimulationBuilder } from "../simulation-source.ts";
import type { PoolTaskMessage, PoolTaskResults, PoolTaskKind, WorkerReply } from "./messages.ts";

if (parentPort === null) throw new Error("pool-worker.ts runs inside a worker thread (see worker-pool.ts)");
const port = parentPort;
/** The base table of the last chunk of timelines, by its id. */
let lastBase: { readonly id: number; readonly table: AssertionTable } | undefined;

async function perform(task: PoolTaskMessage): Promise<PoolTaskResults[PoolTaskKind]> {
  // Coverage starts before the simulation module is first imported, so its top level is seen; the
  // seed's window opens after the import (once per worker) and before the builder runs (every seed).
  const coverageRoot = task.kind === "rootSeed" || task.kind === "coverageSources" ? task.coverageRoot : undefined;
  if (coverageRoot !== undefined) {
    await startCoverage();
    await import(task.source.module).catch(() => {}); // loadSimulationBuilder reports a failure
    await beginSeedCoverage(coverageRoot);
  }
  const builder = await loadSimulationBuilder(task.source);
  switch (task.kind) {
    case "fingerprint":
      return configFingerprint(builder.build());
    case "timelines": {
      // Chunks of one batch share their base table: build it once (timelines record into forks of it).
      if (lastBase?.id !== task.baseId)
        lastBase = { id: task.baseId, table: AssertionTable.fromSnapshot(task.baseTable) };
      const base = lastBase.table;
      return new Campaign(builder.build()).runTimelines(
        task.seed,
        task.recipes.map((recipe) => ({ recipe, base })),
      );
    }
    case "warmUp": {
      const campaign = new Campaign(builder.build());
      const base = new AssertionTable();
      const endMs = performance.now() + task.durationMs;
      let runs = 0;
      while (performance.now() < endMs) {
        const recipe = [{ count: 0, seed: runs + 1, streams: "sim+schedule" as const }];
        await campaign.runTimelines(task.seed, [{ recipe, base }]);
        runs++;
      }
      return runs;
    }
    case "coverageSources":
      return scriptSources(task.urls);
    case "rootSeed": {
      const campaign = new Campaign(buildWithOverrides(builder, task.overrides));
      const outcome = await campaign.runSingleSeed(task.seed, {
        baseTable: task.baseTable,
        onChaos: (chaos) => port.postMessage({ id: task.id, kind: "chaos", chaos } satisfies WorkerReply),
      });
      const coverage = coverageRoot === undefined ? {} : { coverage: await endSeedCoverage(coverageRoot) };
      return { ...outcome, result: { ...outcome.result, discoveries: [] }, ...coverage };
    }
  }
}

async function runTask(task: PoolTaskMessage): Promise<WorkerReply> {
  try {
    return { id: task.id, kind: "done", value: await perform(task) };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { id: task.id, kind: "error", name: e.name, message: e.message, stack: e.stack };
  }
}

let queue: Promise<void> = Promise.resolve();
port.on("message", (task: PoolTaskMessage) => {
  queue = queue.then(async () => port.postMessage(await runTask(task)));
});
port.postMessage({ kind: "ready" } satisfies WorkerReply);
