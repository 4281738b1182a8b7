#!/usr/bin/env node
// The `moonpool` command. Simulations and the CLI itself are TypeScript, loaded without a build
// step: register tsx's ESM loader first (its programmatic API), then start the CLI.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
