// Entry of a pool worker thread. Registers tsx in this thread (each worker has its own module
// loader state) so TypeScript simulation modules load without a build step, then starts the
// worker loop: its TypeScript source inside the repository, its compiled `.js` in the published
// package (which holds no `.ts`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const source = new URL("./pool-worker.ts", import.meta.url);
// As in bin/moonpool.mjs: inside the repository, its tsconfig `paths` resolve the packages to
// their sources from any working folder.
const repositoryTsconfig = fileURLToPath(new URL("../../../../../tsconfig.json", import.meta.url));
register(existsSync(source) && existsSync(repositoryTsconfig) ? { tsconfig: repositoryTsconfig } : {});
await import(existsSync(source) ? source.href : new URL("./pool-worker.js", import.meta.url).href);
