/**
 * The pool worker: for every task it loads the simulation from its source (the module is
 * imported once per worker, the builder is built afresh each time) and runs it with
 * `Campaign.runSingleSeed`. Module-level state of the simulation and its libraries carries from
 * task to task in one worker, so an isolated task gets a worker of its own (worker-pool.ts);
 * a warm worker imports its simulation module (`workerData.preload`) before saying it is ready.
 * One task at a time: a realm runs one simulation at a time.
 */
import { parentPort, workerData } from "node:worker_threads";
import { publishProgressInto } from "../../engine/progress.ts";
import { parseRecipe } from "../../engine/recipe.ts";
import { DrawTrailRecorder } from "../draw-trail.ts";
import { Campaign } from "../campaign.ts";
import { configFingerprint } from "../config-fingerprint.ts";
import { beginSeedCoverage, endSeedCoverage, scriptSources, startCoverage } from "../coverage/collector.ts";
import { parseOverrides, withOverrides } from "../shrink/overrides.ts";
import { buildWithOverrides, importSimulationModule, loadSimulationBuilder } from "../simulation-source.ts";
import { replayWithTrace } from "../timeline-replay.ts";
import type { PoolTaskMessage, PoolTaskResults, PoolTaskKind, WorkerReply } from "./messages.ts";

if (parentPort === null) throw new Error("pool-worker.ts runs inside a worker thread (see worker-pool.ts)");
const port = parentPort;
// The engines of this thread publish their steps where the pool's hang watchdog reads them.
publishProgressInto((workerData as { progress: SharedArrayBuffer }).progress);

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
      const { result, events } = await replayWithTrace(config, task.seed, task.recipe);
      return { result: { ...result, discoveries: [] }, events };
    }
    case "rootSeed": {
      const config = buildWithOverrides(builder, task.overrides);
      const campaign = new Campaign(
        task.exploration === undefined ? config : { ...config, exploration: task.exploration },
      );
      // The trail is of the root timeline run plainly: an explored root's draws are not observed.
      const explores = (task.exploration === undefined ? config.exploration : task.exploration) !== null;
      const recorder = task.recordDraws === true && !explores ? new DrawTrailRecorder() : null;
      const outcome = await campaign.runSingleSeed(task.seed, {
        baseTable: task.baseTable,
        ...(task.recipe === undefined ? {} : { breakpoints: parseRecipe(task.recipe) }),
        onChaos: (chaos) => port.postMessage({ id: task.id, kind: "chaos", chaos } satisfies WorkerReply),
        ...(recorder === null ? {} : { drawObserver: recorder.observer }),
      });
      const coverage = coverageRoot === undefined ? {} : { coverage: await endSeedCoverage(coverageRoot) };
      const draws = recorder !== null && !outcome.result.ok ? { draws: recorder.trail() } : {};
      const discoveries = task.keepDiscoveries === true ? outcome.result.discoveries : [];
      return { ...outcome, result: { ...outcome.result, discoveries }, ...coverage, ...draws };
    }
    case "replayCheck": {
      // As `moonpool replay` builds and runs it: the recipe's timeline, no exploration.
      const config = buildWithOverrides(builder, task.overrides);
      const recorder = new DrawTrailRecorder(task.stackAtDraw);
      const { result } = await new Campaign(config).runSingleSeed(task.seed, {
        breakpoints: parseRecipe(task.recipe),
        explore: false,
        drawObserver: recorder.observer,
      });
      return {
        traceHash: result.traceHash,
        ok: result.ok,
        draws: recorder.trail(),
        ...(recorder.stack === undefined ? {} : { stack: recorder.stack }),
      };
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
// A warm worker imports its simulation first: the task that takes it starts at once. A module that
// fails to load is reported by the task (loadSimulationBuilder imports it again and throws).
const preload = (workerData as { preload?: string | null } | null)?.preload ?? null;
if (preload !== null) await importSimulationModule(preload).catch(() => {});
port.postMessage({ kind: "ready" } satisfies WorkerReply);
