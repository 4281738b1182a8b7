#!/usr/bin/env node
// The `moonpool` command. Users' simulations (`*.sim.ts`) and config files load through tsx's ESM
// loader, registered first. The CLI itself is the compiled `dist/` of the published package, or
// its TypeScript sources inside the repository (which has no build step; tsx loads them).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const source = new URL("../src/cli/main.ts", import.meta.url);
// Inside the repository the packages resolve to their sources through the repository's tsconfig
// `paths`, whatever folder the command runs in; an installed package uses the project's own.
const repositoryTsconfig = fileURLToPath(new URL("../../../tsconfig.json", import.meta.url));
register(existsSync(source) && existsSync(repositoryTsconfig) ? { tsconfig: repositoryTsconfig } : {});
await import(existsSync(source) ? source.href : new URL("../dist/cli/main.js", import.meta.url).href);
