// Builds the package in the current folder (its `npm run build`): compiles src/ to dist/ with
// tsconfig.build.json (JavaScript, declarations, their maps), copies every other file of src/
// (plain `.mjs` modules, the HTML report's style sheet), which the compiler does not emit, next to
// the compiled ones, and bundles the HTML report's browser code (TypeScript) into one script per page.
//
// The test suite runs the CLI and its workers from dist/ (docs/decisions.md D51), so a build must
// never leave a half-written dist/ for a process that is loading it: the output is written to a
// fresh folder and swapped in whole. A build whose inputs (sources, build settings, compiler
// version) are unchanged since the last one is skipped; `--force` builds anyway.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const tsc = path.join(path.dirname(require.resolve("typescript/package.json")), "bin", "tsc");
const repoRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// Kept beside dist/, not in it: `files` in package.json ships dist/ whole.
const STAMP = ".dist-inputs";
const BROWSER = path.join("cli", "reporters", "html", "browser");

/** A digest of everything the output depends on: a change to any of it means a rebuild. */
function inputsDigest() {
  const hash = createHash("sha256");
  const add = (file) => hash.update(file).update("\0").update(readFileSync(file)).update("\0");
  for (const file of readdirSync("src", { recursive: true, encoding: "utf8" }).sort()) {
    const source = path.join("src", file);
    if (statSync(source).isFile()) add(source);
  }
  add("tsconfig.build.json");
  add("package.json");
  add(path.join(repoRoot, "tsconfig.json"));
  add(fileURLToPath(import.meta.url));
  hash.update(require("typescript/package.json").version);
  return hash.digest("hex");
}

const force = process.argv.includes("--force");
const digest = inputsDigest();
if (!force && existsSync("dist") && existsSync(STAMP) && readFileSync(STAMP, "utf8") === digest) {
  console.log(`${path.basename(process.cwd())}: dist/ is up to date with src/`);
  process.exit(0);
}

const next = `dist.next-${process.pid}`;
rmSync(next, { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", next], { stdio: "inherit" });
if (compiled.status !== 0) {
  rmSync(next, { recursive: true, force: true });
  process.exit(compiled.status ?? 1);
}
for (const file of readdirSync("src", { recursive: true, encoding: "utf8" })) {
  const source = path.join("src", file);
  if (file.endsWith(".ts") || file.startsWith(BROWSER) || !statSync(source).isFile()) continue;
  cpSync(source, path.join(next, file));
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
    writeFileSync(path.join(next, "cli", "reporters", "html", "assets", `${page}.js`), out.text);
  }
}
// Two renames: a process that resolves a module between them sees no dist/ for an instant, never
// a mixture of two builds.
const old = `dist.old-${process.pid}`;
if (existsSync("dist")) renameSync("dist", old);
renameSync(next, "dist");
rmSync(old, { recursive: true, force: true });
writeFileSync(STAMP, digest);
