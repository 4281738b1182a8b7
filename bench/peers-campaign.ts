/**
 * Campaign-level workloads of the peer benchmarks:
 *
 * - `moonpool run -j N`: the leader-election campaign through the command, as a user runs it, in a
 *   child process; measured by wall time, since a pool's point is to finish sooner (its CPU time
 *   can only grow with the worker count). `isolation` picks shared realms or a fresh realm per seed.
 * - linearizability: `kvModel` on Porcupine's c50-ok history (the file MOONPOOL_PORCUPINE_KV
 *   names: test_data/kv/c50-ok.txt of anishathalye/porcupine, MIT, not vendored here), its
 *   appended strings read back as the arrays kvModel keeps, against a model of the same steps whose
 *   state is a plain string (Porcupine's own kv model). Without the file, a generated history of
 *   the same shape (50 clients, 10 keys, appends and gets) stands in, and the result says so.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  checkLinearizability,
  kvModel,
  parseKnossosHistory,
  type DeterministicModel,
  type OpInput,
  type Operation,
} from "../packages/sim/src/linearizability/index.ts";
import { cpuMs } from "./peers-measure.ts";

const BIN = fileURLToPath(new URL("../packages/sim/bin/moonpool.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Wall milliseconds of `moonpool run leader-election` with `workers` worker threads. */
export function moonpoolRunWallMs(workers: number, seeds: number, isolation: "shared" | "seed"): Promise<number> {
  const args = [
    BIN,
    "run",
    "leader-election",
    "--iterations",
    String(seeds),
    "--base-seed",
    "11",
    "-j",
    String(workers),
    "--isolation",
    isolation,
    "--reporter",
    "json",
    "--out",
    `${ROOT}/moonpool-reports/bench-peers-j${workers}`,
  ];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } },
      (error, _stdout, stderr) => {
        if (error !== null) reject(new Error(`moonpool run -j ${workers} failed: ${stderr}`));
        else resolve(performance.now() - started);
      },
    );
  });
}

/** Porcupine's c50-ok history (appends are "x P I y" strings, gets return their concatenation), or null without the file. */
function porcupineHistory(): { history: Operation<OpInput, unknown>[]; source: string } | null {
  const file = process.env.MOONPOOL_PORCUPINE_KV ?? "";
  if (file === "" || !existsSync(file)) return null;
  return { history: parseKnossosHistory(readFileSync(file, "utf8")), source: file };
}

/** "x 1 0 yx 2 0 y" → ["x 1 0 y", "x 2 0 y"]; "" → null (kvModel's absent key). */
function pieces(text: unknown): unknown {
  if (typeof text !== "string" || text === "") return null;
  return text.match(/x[^y]*y/g) ?? [];
}

/** Porcupine's kv model: the state is one string per key; appends concatenate, gets compare strings. */
function stringKvModel(): DeterministicModel<string, OpInput, unknown> {
  return {
    name: "string-kv",
    init: () => "",
    step(state, input, output) {
      if (input.f === "get") return { ok: output === undefined || output === state, state };
      if (input.f === "put") return { ok: true, state: String(input.value) };
      return { ok: true, state: state + String(input.value) };
    },
    partition: (h) => {
      const parts = new Map<string, Operation<OpInput, unknown>[]>();
      for (const op of h) {
        const k = op.input.key ?? "";
        if (!parts.has(k)) parts.set(k, []);
        parts.get(k)!.push(op);
      }
      return [...parts.values()];
    },
    hash: (s) => s,
  };
}

export interface CheckerPair {
  readonly source: string;
  readonly operations: number;
  readonly kvSteps: number;
  readonly stringSteps: number;
  readonly kv: () => Promise<number>;
  readonly string: () => Promise<number>;
}

/** CPU of checking the history with kvModel (arrays) and with the string model (same steps). */
export function checkerPair(): CheckerPair | null {
  const found = porcupineHistory();
  if (found === null) return null;
  const { history, source } = found;
  // kvModel keeps an appended-to value as an array: a put starts one, a get reads one.
  const asArrays = history.map((op) =>
    op.input.f === "get" && op.output !== undefined
      ? { ...op, output: pieces(op.output) }
      : op.input.f === "put"
        ? { ...op, input: { ...op.input, value: [op.input.value] } }
        : op,
  );
  const asStrings = history.map((op) => (op.input.f === "get" && op.output === null ? { ...op, output: "" } : op));
  const kvCheck = checkLinearizability(kvModel(), asArrays);
  const stringCheck = checkLinearizability(stringKvModel(), asStrings);
  if (kvCheck.verdict !== "linearizable" || stringCheck.verdict !== "linearizable")
    throw new Error(`checker bench: kv ${kvCheck.verdict}, string ${stringCheck.verdict} on ${source}`);
  return {
    source,
    operations: history.length,
    kvSteps: kvCheck.steps,
    stringSteps: stringCheck.steps,
    kv: () => cpuMs(() => checkLinearizability(kvModel(), asArrays)),
    string: () => cpuMs(() => checkLinearizability(stringKvModel(), asStrings)),
  };
}
