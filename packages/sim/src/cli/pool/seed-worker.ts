/**
 * The seed worker: imports a simulation file on first use, and for every task builds a fresh
 * configuration (no state carries from one seed to the next, whichever worker ran the previous
 * one) and runs one root seed with `Campaign.runSingleSeed`. One task at a time: a realm runs one
 * simulation at a time.
 */
import { parentPort } from "node:worker_threads";
// Through the package index, like the simulation files: this loads the explorer (it registers
// itself as the runner's exploration strategy) into the same module instances they use.
import "../../index.ts";
import { Campaign } from "../../runner/campaign.ts";
import { buildSimulationConfig } from "../build-simulation.ts";
import type { SimulationDefinition } from "../define.ts";
import { loadSimulationFile } from "../discovery.ts";
import type { SeedTaskMessage, WorkerReply } from "./messages.ts";

if (parentPort === null) throw new Error("seed-worker.ts runs inside a worker thread (see seed-pool.ts)");
const port = parentPort;
const files = new Map<string, Promise<SimulationDefinition[]>>();

async function definition(file: string, name: string): Promise<SimulationDefinition> {
  let loading = files.get(file);
  if (loading === undefined) {
    loading = loadSimulationFile(file);
    files.set(file, loading);
  }
  const found = (await loading).find((d) => d.name === name);
  if (found === undefined) throw new Error(`${file} no longer exports a simulation named '${name}'`);
  return found;
}

async function runTask(task: SeedTaskMessage): Promise<WorkerReply> {
  try {
    const config = buildSimulationConfig(await definition(task.file, task.name), task.overrides);
    const outcome = await new Campaign(config).runSingleSeed(task.seed, { baseTable: task.baseTable });
    // Discoveries stay here: they steer exploration inside this worker; the report does not use them.
    return { id: task.id, kind: "done", outcome: { ...outcome, result: { ...outcome.result, discoveries: [] } } };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { id: task.id, kind: "error", message: `${e.name}: ${e.message}`, stack: e.stack };
  }
}

let queue: Promise<void> = Promise.resolve();
port.on("message", (task: SeedTaskMessage) => {
  queue = queue.then(async () => port.postMessage(await runTask(task)));
});
port.postMessage({ kind: "ready" } satisfies WorkerReply);
