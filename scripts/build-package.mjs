// Builds the package in the current folder (its `npm run build`): compiles src/ to dist/ with
// tsconfig.build.json (JavaScript, declarations, their maps), copies every other file of src/
// (plain `.mjs` modules, the HTML report's style sheet), which the compiler does not emit, next to
// the compiled ones, and bundles the HTML report's browser code (TypeScript) into one script per page.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
rmSync("dist", { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
const BROWSER = path.join("cli", "reporters", "html", "browser");
for (const file of readdirSync("src", { recursive: true, encoding: "utf8" })) {
  const source = path.join("src", file);
  if (file.endsWith(".ts") || file.startsWith(BROWSER) || !statSync(source).isFile()) continue;
  cpSync(source, path.join("dist", file));
}
if (existsSync(path.join("src", BROWSER))) {
  // The options of page.ts's BUNDLE_OPTIONS (which bundles on demand when run from sources).
  const esbuild = createRequire(path.resolve("package.json"))("esbuild");
  for (const page of ["campaign", "timeline"]) {
    const [out] = esbuild.buildSync({
      bundle: true,
      format: "iife",
      target: "es2020",
      charset: "utf8",
      legalComments: "none",
      write: false,
      entryPoints: [path.join("src", BROWSER, `${page}.ts`)],
    }).outputFiles;
    writeFileSync(path.join("dist", "cli", "reporters", "html", "assets", `${page}.js`), out.text);
  }
}
