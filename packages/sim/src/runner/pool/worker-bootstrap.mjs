// Entry of a pool worker thread. Registers tsx in this thread (each worker has its own module
// loader state) so TypeScript simulation modules load without a build step, imports the modules
// the pool asked for (e.g. the explore layer), then starts the worker loop.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
for (const url of workerData?.preloadModules ?? []) await import(url);
await import("./pool-worker.ts");
