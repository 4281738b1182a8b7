/**
 * The pool worker: for every task it loads the simulation from its source (the module is
 * imported once, the builder is built afresh each time, so no state carries from one task to
 * the next whichever worker ran the previous one) and runs it with `Campaign.runSingleSeed`.
 * One task at a time: a realm runs one simulation at a time.
 */
import { parentPort } from "node:worker_threads";
import { parseRecipe } from "../../engine/recipe.ts";
import type { TraceEvent } from "../../world/trace-log.ts";
import { Campaign } from "../campaign.ts";
import { configFingerprint } from "../config-fingerprint.ts";
import { beginSeedCoverage, endSeedCoverage, scriptSources, startCoverage } from "../coverage/collector.ts";
import { parseOverrides, withOverrides } from "../shrink/overrides.ts";
import { buildWithOverrides, loadSimulationBuilder } from "../simulation-source.ts";
import type { PoolTaskMessage, PoolTaskResults, PoolTaskKind, WorkerReply } from "./messages.ts";

if (parentPort === null) throw new Error("pool-worker.ts runs inside a worker thread (see worker-pool.ts)");
const port = parentPort;

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
    case "coverageSources":
      return scriptSources(task.urls);
    case "timeline": {
      const config = withOverrides(buildWithOverrides(builder, task.overrides), parseOverrides(task.timelineOverrides));
      let events: readonly TraceEvent[] = [];
      const { result } = await new Campaign(config).runSingleSeed(task.seed, {
        breakpoints: parseRecipe(task.recipe),
        explore: false,
        keepLevel: "debug",
        onTrace: (all) => (events = all),
      });
      return { result: { ...result, discoveries: [] }, events };
    }
    case "rootSeed": {
      const config = buildWithOverrides(builder, task.overrides);
      const campaign = new Campaign(
        task.exploration === undefined ? config : { ...config, exploration: task.exploration },
      );
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
