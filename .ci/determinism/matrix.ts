/**
 * The determinism matrix: the examples' campaigns (fixed base seed) under every Node binary given
 * on the command line. The first binary runs every simulation in both stepping modes on 2 workers,
 * a fresh realm per seed; the others run the fast mode on 2 workers in shared realms.
 * MATRIX_ALL_LAYOUTS=1 adds 1 worker and 3 shards merged, in both modes and fresh realms, on every
 * binary. Prints one row per cell and fails (exit 1) when any per-seed trace hash differs from the
 * first cell's.
 *
 *   node --import tsx .ci/determinism/matrix.ts SEEDS NODE_BINARY...
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { IsolationMode } from "../../packages/sim/src/runner/isolation.ts";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const BIN = fileURLToPath(new URL("../../packages/sim/bin/moonpool.mjs", import.meta.url));
const BASE_SEED = 20_261_201;
const SHARDS = 3;

const [seedsArg, ...nodes] = process.argv.slice(2);
const seeds = Number(seedsArg);
if (!Number.isSafeInteger(seeds) || seeds < 1 || nodes.length === 0) {
  console.error("usage: matrix.ts SEEDS NODE_BINARY...");
  process.exit(2);
}

interface SeedHash {
  readonly seed: number;
  readonly traceHash: string;
}
interface Entry {
  readonly name: string;
  readonly report: { readonly seeds: readonly SeedHash[] };
}

/** Simulations whose seeds cost seconds (costly/costly.sim.ts): this many seeds per cell. */
const COSTLY_SEEDS = Number(process.env.MATRIX_COSTLY_SEEDS ?? "2");
/**
 * Simulations whose timelines differ by Node major, compared only between cells of one major:
 * fetch runs on the undici each major bundles (docs/decisions.md D35).
 */
const PER_MAJOR = new Set<string>(["storefront"]);
/** Runs the CLI; exit 1 is expected (the vote-twice bug fails on purpose), anything else is not. */
function moonpool(node: string, args: readonly string[], cwd = HERE): void {
  try {
    execFileSync(node, [BIN, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NO_COLOR: "1", CI: "true" } });
  } catch (error) {
    const e = error as { status?: number; stderr?: Buffer };
    if (e.status !== 1) throw new Error(`${node} moonpool ${args.join(" ")} exited ${e.status}:\n${e.stderr?.toString()}`);
  }
}

/**
 * Per-seed hashes keyed by simulation and seed, the stepping mode left out of the key: a seed's
 * fast and paranoid runs must agree too (a disagreement within the report counts as a difference).
 */
function hashesOf(file: string): { hashes: Map<string, string>; modeDifferences: string[] } {
  const hashes = new Map<string, string>();
  const modeDifferences: string[] = [];
  for (const entry of JSON.parse(readFileSync(file, "utf8")).simulations as Entry[]) {
    const sim = entry.name.replace(/\.(fast|paranoid)$/, "");
    for (const s of entry.report.seeds) {
      const key = `${sim} ${s.seed}`;
      const other = hashes.get(key);
      if (other !== undefined && other !== s.traceHash) modeDifferences.push(`${key}: fast and paranoid give ${other} and ${s.traceHash}`);
      hashes.set(key, s.traceHash);
    }
  }
  return { hashes, modeDifferences };
}

function runCell(node: string, layout: string, modes: "both" | "fast", isolation: IsolationMode, dir: string): ReturnType<typeof hashesOf> {
  const costly = costlyHashes(node, layout, modes, isolation, path.join(dir, "costly"));
  const cell = plainCell(node, layout, modes, isolation, dir);
  for (const [key, hash] of costly.hashes) cell.hashes.set(key, hash);
  return { hashes: cell.hashes, modeDifferences: [...cell.modeDifferences, ...costly.modeDifferences] };
}

/** The costly simulations, in the cell's layout but never sharded: their few seeds would not split. */
function costlyHashes(node: string, layout: string, modes: "both" | "fast", isolation: IsolationMode, dir: string): ReturnType<typeof hashesOf> {
  const args = ["run", "--iterations", String(COSTLY_SEEDS), "--base-seed", String(BASE_SEED), "--reporter", "json"];
  args.push("--isolation", isolation);
  if (modes === "fast") args.splice(1, 0, ".fast");
  moonpool(node, [...args, "--workers", layout === "1 worker" ? "1" : "2", "--out", dir], path.join(HERE, "costly"));
  return hashesOf(path.join(dir, "report.json"));
}

function plainCell(node: string, layout: string, modes: "both" | "fast", isolation: IsolationMode, dir: string): ReturnType<typeof hashesOf> {
  const common = ["--iterations", String(seeds), "--base-seed", String(BASE_SEED), "--reporter", "json", "--isolation", isolation];
  // A filter matches parts of names: ".fast" selects every example in the fast mode only.
  if (modes === "fast") common.unshift(".fast");
  if (layout !== "sharded") {
    moonpool(node, ["run", ...common, "--workers", layout === "1 worker" ? "1" : "2", "--out", dir]);
    return hashesOf(path.join(dir, "report.json"));
  }
  const shardFiles: string[] = [];
  for (let i = 1; i <= SHARDS; i++) {
    moonpool(node, ["run", ...common, "--workers", "2", "--shard", `${i}/${SHARDS}`, "--out", dir]);
    shardFiles.push(path.join(dir, `report.shard-${i}-of-${SHARDS}.json`));
  }
  const merged = path.join(dir, "merged.json");
  moonpool(node, ["merge", ...shardFiles, "-o", merged]);
  return hashesOf(merged);
}

const root = mkdtempSync(path.join(tmpdir(), "moonpool-matrix-"));
let reference: { cell: string; hashes: Map<string, string>; major: string } | null = null;
let failures = 0;
try {
  const rows: string[] = [];
  // Layouts differ in how seeds reach workers, which no Node version changes, and the CLI tests
  // check them on every run (cli/workers, cli/shard); stepping modes agree in the first cell. Node
  // versions differ in V8's floating-point library functions, which every layout and mode meets
  // alike. So every binary runs one layout, the first in both modes (docs/decisions.md D24).
  const all = process.env.MATRIX_ALL_LAYOUTS === "1";
  for (const [index, node] of nodes.entries()) {
    const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
    const layouts = all ? ["1 worker", "2 workers", "sharded"] : ["2 workers"];
    const modes = all || index === 0 ? "both" : "fast";
    // The first binary gives every seed a fresh realm (the command's default), the others share
    // realms across seeds: a realm costs more CPU than most seeds, and equal hashes then also show
    // that sharing changes no seed of the examples (docs/decisions.md D57).
    const isolation: IsolationMode = all || index === 0 ? "seed" : "shared";
    for (const layout of layouts) {
      const started = performance.now();
      const dir = mkdtempSync(path.join(root, "cell-"));
      const { hashes, modeDifferences } = runCell(node, layout, modes, isolation, dir);
      const cell = `node ${version}, ${layout === "sharded" ? `${SHARDS} shards merged` : layout}, ${isolation === "seed" ? "fresh realms" : "shared realms"}`;
      let differing = modeDifferences.length;
      for (const text of modeDifferences.slice(0, 5)) console.error(`  ${cell}: ${text}`);
      const major = version.split(".")[0]!;
      if (reference === null) reference = { cell, hashes, major };
      else {
        for (const key of new Set([...reference.hashes.keys(), ...hashes.keys()])) {
          if (reference.hashes.get(key) === hashes.get(key)) continue;
          if (PER_MAJOR.has(key.split(" ")[0]!) && reference.major !== major) continue;
          differing++;
          if (differing <= 5) console.error(`  ${cell}: ${key}: ${hashes.get(key) ?? "missing"} vs ${reference.hashes.get(key) ?? "missing"} (${reference.cell})`);
        }
      }
      failures += differing;
      const bySim = new Map<string, number>();
      for (const key of hashes.keys()) bySim.set(key.split(" ")[0]!, (bySim.get(key.split(" ")[0]!) ?? 0) + 1);
      const counts = [...bySim].map(([sim, n]) => `${sim} ${n}`).join(", ");
      const verdict = differing === 0 ? "same" : `${differing} DIFFER`;
      rows.push(`${cell.padEnd(50)} ${verdict.padEnd(10)} ${modes === "both" ? "fast = paranoid" : "fast mode"}; seeds: ${counts}; ${Math.round(performance.now() - started)} ms`);
      console.log(rows[rows.length - 1]);
    }
  }
  console.log(failures === 0 ? `determinism matrix: every per-seed hash equal in ${rows.length} cells` : `determinism matrix: ${failures} per-seed hashes differ`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
process.exit(failures === 0 ? 0 : 1);
