// Entry of the thread that runs shrink candidates (see isolated-runs.ts). Registers tsx in this
// thread, as the pool's worker-bootstrap.mjs does, then starts the candidate loop: its TypeScript
// source inside the repository, its compiled `.js` in the published package.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const source = new URL("./candidate-worker.ts", import.meta.url);
const inRepository = existsSync(source);
const repositoryTsconfig = fileURLToPath(new URL("../../../../../tsconfig.json", import.meta.url));
// With MOONPOOL_FROM_DIST=1 the repository's candidates run the compiled copy, as the pool's
// workers do (worker-bootstrap.mjs).
const compiledBootstrap = new URL("../../../dist/runner/shrink/candidate-bootstrap.mjs", import.meta.url);
if (inRepository && process.env.MOONPOOL_FROM_DIST === "1" && existsSync(compiledBootstrap)) {
  process.env.TSX_TSCONFIG_PATH = fileURLToPath(new URL("../../../../../tsconfig.dist.json", import.meta.url));
  await import(compiledBootstrap.href);
} else {
  // Compiled, the engine loads before tsx's hooks exist, as in a pool worker (worker-modules.ts).
  if (!inRepository) await import(new URL("../pool/worker-modules.js", import.meta.url).href);
  register(inRepository && existsSync(repositoryTsconfig) ? { tsconfig: repositoryTsconfig } : {});
  await import(inRepository ? source.href : new URL("./candidate-worker.js", import.meta.url).href);
}
