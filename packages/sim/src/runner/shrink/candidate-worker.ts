/**
 * The thread that runs shrink candidates for `IsolatedRuns`: it loads the simulation from its
 * source (`workerData`) and says it is ready, then builds it afresh for every candidate and
 * measures the run. The main thread can terminate it when a candidate hangs (no step for the limit),
 * even inside synchronous code.
 */
import { parentPort, workerData } from "node:worker_threads";
import { publishProgressInto } from "../../engine/progress.ts";
import { buildWithOverrides, loadSimulationBuilder } from "../simulation-source.ts";
import { measureRun } from "./measure.ts";
import { parseOverrides } from "./overrides.ts";
import type { CandidateReply, CandidateTask, CandidateWorkerData } from "./isolated-runs.ts";

if (parentPort === null) throw new Error("candidate-worker.ts runs inside a worker thread (see isolated-runs.ts)");
const port = parentPort;
const { source, progress } = workerData as CandidateWorkerData;
// The engines of this thread publish their steps where the hang watchdog reads them.
publishProgressInto(progress);

async function perform(task: CandidateTask): Promise<CandidateReply> {
  try {
    const builder = await loadSimulationBuilder(source);
    const config = buildWithOverrides(builder, { explore: false });
    const run = await measureRun(config, task.seed, task.recipe, parseOverrides(task.overrides));
    // Discoveries steer exploration only; they need not cross threads.
    return { id: task.id, kind: "done", run: { ...run, result: { ...run.result, discoveries: [] } } };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { id: task.id, kind: "error", message: e.message };
  }
}

// Loading the module is not part of any run's time limit.
let queue: Promise<void> = loadSimulationBuilder(source).then(
  () => port.postMessage({ kind: "ready" } satisfies CandidateReply),
  (error: unknown) =>
    port.postMessage({ kind: "loadError", message: (error as Error).message } satisfies CandidateReply),
);
port.on("message", (task: CandidateTask) => {
  queue = queue.then(async () => port.postMessage(await perform(task)));
});
