// Builds the package in the current folder (its `npm run build`): compiles src/ to dist/ with
// tsconfig.build.json (JavaScript, declarations, their maps) and copies every other file of src/
// (plain `.mjs` modules, the HTML report's scripts and style sheet), which the compiler does not
// emit, next to the compiled ones.
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
rmSync("dist", { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
for (const file of readdirSync("src", { recursive: true, encoding: "utf8" })) {
  const source = path.join("src", file);
  if (file.endsWith(".ts") || !statSync(source).isFile()) continue;
  cpSync(source, path.join("dist", file));
}
