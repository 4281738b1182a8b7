// Builds the package in the current folder (its `npm run build`): compiles src/ to dist/ with
// tsconfig.build.json (JavaScript, declarations, their maps) and copies src/'s plain `.mjs`
// modules, which the compiler does not emit, next to the compiled ones.
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
rmSync("dist", { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
for (const file of readdirSync("src", { recursive: true, encoding: "utf8" })) {
  if (file.endsWith(".mjs")) cpSync(path.join("src", file), path.join("dist", file));
}
