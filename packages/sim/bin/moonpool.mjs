#!/usr/bin/env node
// The `moonpool` command. Users' simulations (`*.sim.ts`) and config files load through tsx's ESM
// loader, registered first. The CLI itself is the compiled `dist/` of the published package, or
// its TypeScript sources inside the repository (which has no build step; tsx loads them).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { register } from "tsx/esm/api";
import { INTERRUPT_BUDGET_FLAG } from "./v8-flags.mjs";

// Process-wide, so the worker threads made later inherit it; child processes rerun this file. A
// budget given to node wins.
if (!process.execArgv.some((arg) => arg.startsWith("--interrupt-budget"))) {
  setFlagsFromString(INTERRUPT_BUDGET_FLAG);
}

const source = new URL("../src/cli/main.ts", import.meta.url);
const compiled = new URL("../dist/cli/main.js", import.meta.url);
// Inside the repository the packages resolve to their sources through the repository's tsconfig
// `paths`, whatever folder the command runs in; an installed package uses the project's own.
const repositoryTsconfig = fileURLToPath(new URL("../../../tsconfig.json", import.meta.url));
const inRepository = existsSync(source) && existsSync(repositoryTsconfig);
// MOONPOOL_FROM_DIST=1 (the test suite sets it after building dist/) runs the repository's CLI as
// the published package runs: compiled, with the simulations' `@moonpool/*` imports resolved to
// dist/ by tsconfig.dist.json. TSX_TSCONFIG_PATH carries that choice into workers and children.
const fromDist = inRepository && process.env.MOONPOOL_FROM_DIST === "1";
if (fromDist && !existsSync(compiled)) {
  console.error(
    "moonpool: MOONPOOL_FROM_DIST=1 but dist/ is not built: run `npm run build` or unset MOONPOOL_FROM_DIST",
  );
  process.exit(2);
}
if (fromDist) process.env.TSX_TSCONFIG_PATH = fileURLToPath(new URL("../../../tsconfig.dist.json", import.meta.url));
// Compiled, the program loads before tsx's hooks exist (through them each of its some 200 modules
// costs a round trip to tsx's loader thread); main.js then finds it loaded. Users' files load after.
if (!inRepository || fromDist) await import(new URL("../dist/cli/program.js", import.meta.url).href);
register(inRepository && !fromDist ? { tsconfig: repositoryTsconfig } : {});
await import(inRepository && !fromDist ? source.href : compiled.href);
