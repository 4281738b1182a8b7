// Entry of the thread that runs shrink candidates (see isolated-runs.ts). Registers tsx in this
// thread, as the pool's worker-bootstrap.mjs does, then starts the candidate loop: its TypeScript
// source inside the repository, its compiled `.js` in the published package.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const source = new URL("./candidate-worker.ts", import.meta.url);
const repositoryTsconfig = fileURLToPath(new URL("../../../../../tsconfig.json", import.meta.url));
register(existsSync(source) && existsSync(repositoryTsconfig) ? { tsconfig: repositoryTsconfig } : {});
await import(existsSync(source) ? source.href : new URL("./candidate-worker.js", import.meta.url).href);
