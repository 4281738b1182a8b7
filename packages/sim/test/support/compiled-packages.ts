/**
 * Global setup of both test tiers (vitest.tiers.ts): builds @moonpool/core and @moonpool/sim to
 * their dist/ (skipped when the sources have not changed since the last build) and sets
 * MOONPOOL_FROM_DIST=1, so every `moonpool` process and pool worker a test starts runs the
 * compiled engine, as an installed package does. Through tsx's hooks the engine's ~200 modules
 * cost about a second of CPU per process or fresh realm; compiled they load in a fraction of it
 * (docs/decisions.md D51). MOONPOOL_FROM_DIST=0 in the environment keeps the sources.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export default function setup(): void {
  if (process.env.MOONPOOL_FROM_DIST === "0") return;
  for (const pkg of ["core", "sim"]) {
    const built = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts", "build-package.mjs")], {
      cwd: path.join(REPO_ROOT, "packages", pkg),
      encoding: "utf8",
    });
    if (built.status !== 0) {
      throw new Error(
        `building packages/${pkg} for the tests failed (exit ${built.status}):\n${built.stdout}${built.stderr}`,
      );
    }
  }
  process.env.MOONPOOL_FROM_DIST = "1";
}
