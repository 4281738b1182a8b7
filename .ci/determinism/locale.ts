/**
 * The machine's time zone and locale do not reach a seed: every bundled example's campaign (fixed
 * base seed) runs in a child process under `TZ=UTC LANG=C` (a fresh realm per seed) and under
 * `TZ=Asia/Tokyo LANG=tr_TR.UTF-8` (shared realms), and every per-seed trace hash must be equal.
 * Prints one row per environment and exits 1 on any difference.
 *
 *   node --import tsx .ci/determinism/locale.ts [SEEDS]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = path.join(ROOT, "packages/sim/bin/moonpool.mjs");
const BASE_SEED = 20_261_202;
// The second environment also shares realms across seeds (the first gives each seed a fresh one,
// the command's default): half the CPU, and equal hashes show both (docs/decisions.md D57).
const ENVIRONMENTS = [
  { TZ: "UTC", LANG: "C", isolation: "seed" },
  { TZ: "Asia/Tokyo", LANG: "tr_TR.UTF-8", isolation: "shared" },
] as const;

const seeds = Number(process.argv[2] ?? "5");
if (!Number.isSafeInteger(seeds) || seeds < 1) {
  console.error("usage: locale.ts [SEEDS]");
  process.exit(2);
}

interface Entry {
  readonly name: string;
  readonly report: { readonly seeds: readonly { readonly seed: number; readonly traceHash: string }[] };
}

/** Runs every simulation of the repository's config (the bundled examples); exit 1 is a planted bug. */
function campaign(environment: (typeof ENVIRONMENTS)[number], dir: string): Map<string, string> {
  const { isolation, ...env } = environment;
  const args = [BIN, "run", "--iterations", String(seeds), "--base-seed", String(BASE_SEED), "--workers", "2"];
  args.push("--isolation", isolation);
  args.push("--reporter", "json", "--out", dir);
  try {
    execFileSync(process.execPath, args, {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env, LC_ALL: "", NO_COLOR: "1", CI: "true" },
    });
  } catch (error) {
    const e = error as { status?: number; stderr?: Buffer };
    if (e.status !== 1) throw new Error(`moonpool run under ${JSON.stringify(env)} exited ${e.status}:\n${e.stderr}`);
  }
  const hashes = new Map<string, string>();
  for (const entry of JSON.parse(readFileSync(path.join(dir, "report.json"), "utf8")).simulations as Entry[])
    for (const s of entry.report.seeds) hashes.set(`${entry.name} ${s.seed}`, s.traceHash);
  return hashes;
}

const root = mkdtempSync(path.join(tmpdir(), "moonpool-locale-"));
let differing = 0;
try {
  let reference: { label: string; hashes: Map<string, string> } | null = null;
  for (const env of ENVIRONMENTS) {
    const started = performance.now();
    const label = `TZ=${env.TZ} LANG=${env.LANG}, ${env.isolation === "seed" ? "fresh" : "shared"} realms`;
    const hashes = campaign(env, mkdtempSync(path.join(root, "env-")));
    let here = 0;
    if (reference === null) reference = { label, hashes };
    else {
      for (const key of new Set([...reference.hashes.keys(), ...hashes.keys()])) {
        if (reference.hashes.get(key) === hashes.get(key)) continue;
        here++;
        if (here <= 5) console.error(`  ${label}: ${key}: ${hashes.get(key) ?? "missing"} vs ${reference.hashes.get(key) ?? "missing"} (${reference.label})`);
      }
    }
    differing += here;
    const simulations = new Set([...hashes.keys()].map((key) => key.split(" ")[0]!));
    const verdict = here === 0 ? "same" : `${here} DIFFER`;
    console.log(`${label.padEnd(48)} ${verdict.padEnd(10)} ${hashes.size} seeds of ${simulations.size} simulations (${[...simulations].join(", ")}); ${Math.round(performance.now() - started)} ms`);
  }
  console.log(differing === 0 ? "locale check: every per-seed hash equal under both environments" : `locale check: ${differing} per-seed hashes differ`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
process.exit(differing === 0 ? 0 : 1);
