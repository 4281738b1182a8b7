#!/usr/bin/env node
// The `moonpool` command. Users' simulations (`*.sim.ts`) and config files load through tsx's ESM
// loader, registered first. The CLI itself is the compiled `dist/` of the published package, or
// its TypeScript sources inside the repository (which has no build step; tsx loads them).
import { existsSync } from "node:fs";
import { register } from "tsx/esm/api";

register();
const source = new URL("../src/cli/main.ts", import.meta.url);
await import(existsSync(source) ? source.href : new URL("../dist/cli/main.js", import.meta.url).href);
