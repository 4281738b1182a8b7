// Entry of a pool worker thread. Registers tsx in this thread (each worker has its own module
// loader state) so TypeScript simulation modules load without a build step, then starts the
// worker loop: its TypeScript source inside the repository, its compiled `.js` in the published
// package (which holds no `.ts`; there the engine is imported before tsx is registered).
import { existsSync, readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

// A low-priority worker lowers its own thread's priority first, so the loader thread tsx starts
// below inherits it. Linux keeps a priority per thread, named by the id in /proc/thread-self.
if (workerData?.lowPriority === true && process.platform === "linux") {
  try {
    setPriority(Number(readlinkSync("/proc/thread-self").split("/").pop()), 19);
  } catch {
    // No /proc or no permission: the worker keeps the normal priority.
  }
}

const source = new URL("./pool-worker.ts", import.meta.url);
const inRepository = existsSync(source);
const repositoryTsconfig = fileURLToPath(new URL("../../../../../tsconfig.json", import.meta.url));
// As bin/moonpool.mjs does: with MOONPOOL_FROM_DIST=1 the repository's workers run the compiled
// copy (its bootstrap is this file's copy in dist/), so simulation and engine share one copy.
const compiledBootstrap = new URL("../../../dist/runner/pool/worker-bootstrap.mjs", import.meta.url);
if (inRepository && process.env.MOONPOOL_FROM_DIST === "1" && existsSync(compiledBootstrap)) {
  process.env.TSX_TSCONFIG_PATH = fileURLToPath(new URL("../../../../../tsconfig.dist.json", import.meta.url));
  await import(compiledBootstrap.href);
} else {
  // Compiled, the engine loads before tsx's hooks exist: through them every module would cost a
  // round trip to tsx's loader thread (worker-modules.ts). The simulation's files load after them.
  if (!inRepository) await import(new URL("./worker-modules.js", import.meta.url).href);
  // As in bin/moonpool.mjs: inside the repository, its tsconfig `paths` resolve the packages to
  // their sources from any working folder.
  register(inRepository && existsSync(repositoryTsconfig) ? { tsconfig: repositoryTsconfig } : {});
  await import(inRepository ? source.href : new URL("./pool-worker.js", import.meta.url).href);
}
