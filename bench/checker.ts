/**
 * Linearizability checker throughput, operations checked per wall-clock second:
 *
 * - knossos*: Jepsen's Knossos example histories (cas-register, multi-register, mutex), a copy of
 *   the `histories/` folder of jepsen-io/knossos (EPL-1.0 data, so not vendored here), read from
 *   the folder MOONPOOL_KNOSSOS_DIR names; skipped without it.
 * - generated: histories of a real linearizable key-value store, 1,000 to 10,000 operations by 5
 *   to 50 clients over 8 keys (10 % of operations crash), each checked once.
 * - Baseline: replaying the same operations through the model in history order with no search,
 *   the floor any checker pays; `ratioToReplay` is check time over replay time.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  casRegisterModel,
  checkLinearizability,
  kvModel,
  multiRegisterModel,
  mutexModel,
  parseKnossosHistory,
  type Model,
  type OpInput,
  type Operation,
} from "../packages/sim/src/linearizability/index.ts";

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

/** A concurrent history of a real store: each operation takes effect at one point inside its span. */
function generate(seed: number, n: number, clients: number, keys: number): Operation[] {
  const rand = prng(seed);
  const state = new Map<string, unknown>();
  type Pending = { client: string; input: OpInput; call: number; applied: boolean; output?: unknown };
  const open = new Map<string, Pending>();
  const done: Operation[] = [];
  let pos = 0;
  let started = 0;
  let written = 0;
  while (started < n || open.size > 0) {
    if (started < n && open.size < clients && rand() < 0.5) {
      let client = `c${Math.floor(rand() * clients)}`;
      while (open.has(client)) client = `c${Math.floor(rand() * clients)}`;
      const key = `k${Math.floor(rand() * keys)}`;
      const input: OpInput = rand() < 0.5 ? { f: "get", key } : { f: "put", key, value: ++written };
      open.set(client, { client, input, call: pos++, applied: false });
      started++;
      continue;
    }
    const list = [...open.values()];
    if (list.length === 0) continue;
    const p = list[Math.floor(rand() * list.length)]!;
    if (!p.applied) {
      p.applied = true;
      pos++;
      if (p.input.f === "put") state.set(p.input.key!, p.input.value);
      else p.output = state.get(p.input.key!) ?? null;
      continue;
    }
    open.delete(p.client);
    const crashed = rand() < 0.1;
    done.push({
      id: 0,
      client: p.client,
      input: p.input,
      output: crashed ? undefined : p.output,
      callIndex: p.call,
      returnIndex: crashed ? Infinity : pos++,
      crashed,
    });
  }
  return done.sort((a, b) => a.callIndex - b.callIndex).map((op, id) => ({ ...op, id }));
}

function replayMs(model: Model<unknown, OpInput, unknown>, ops: readonly Operation[]): number {
  const started = performance.now();
  const m = model as { init(): unknown; step(s: unknown, i: OpInput, o: unknown): { state: unknown } };
  for (let rep = 0; rep < 5; rep++) {
    let s = m.init();
    for (const op of [...ops].sort((a, b) =>
      a.returnIndex === b.returnIndex ? a.callIndex - b.callIndex : a.returnIndex - b.returnIndex,
    )) {
      s = m.step(s, op.input, undefined).state;
    }
  }
  return (performance.now() - started) / 5;
}

export async function benchChecker(): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  const corpus = process.env.MOONPOOL_KNOSSOS_DIR ?? "";
  if (corpus !== "" && existsSync(corpus)) {
    const models: Record<string, () => Model<unknown, OpInput, unknown>> = {
      "cas-register": () => casRegisterModel(0) as never,
      "multi-register": () => multiRegisterModel({ x: 0, y: 0 }) as never,
      mutex: () => mutexModel() as never,
    };
    let ops = 0;
    let ms = 0;
    let files = 0;
    let slowest = { file: "", ms: 0 };
    for (const [name, model] of Object.entries(models)) {
      for (const verdict of ["good", "bad"]) {
        const dir = join(corpus, name, verdict);
        if (!existsSync(dir)) continue;
        for (const file of readdirSync(dir).filter((f) => f.endsWith(".edn"))) {
          const history = parseKnossosHistory(readFileSync(join(dir, file), "utf8"));
          checkLinearizability(model(), history); // warm-up
          const started = performance.now();
          checkLinearizability(model(), history);
          const took = performance.now() - started;
          ops += history.length;
          ms += took;
          files++;
          if (took > slowest.ms) slowest = { file: `${name}/${verdict}/${file}`, ms: took };
        }
      }
    }
    Object.assign(result, {
      knossosFiles: files,
      knossosOps: ops,
      knossosTotalMs: Math.round(ms),
      knossosOpsPerSec: Math.round(ops / (ms / 1000)),
      knossosSlowestFile: slowest.file,
      knossosSlowestMs: Number(slowest.ms.toFixed(1)),
    });
  } else {
    result.knossos = `corpus not found at ${corpus}; set MOONPOOL_KNOSSOS_DIR`;
  }
  const generated: Record<string, unknown>[] = [];
  for (const [n, clients] of [
    [1_000, 5],
    [1_000, 50],
    [10_000, 5],
    [10_000, 50],
  ] as const) {
    const history = generate(n * 31 + clients, n, clients, 8);
    checkLinearizability(kvModel(), history); // warm-up
    const started = performance.now();
    const r = checkLinearizability(kvModel(), history);
    const checkMs = performance.now() - started;
    const floorMs = replayMs(kvModel() as never, history);
    generated.push({
      operations: n,
      clients,
      verdict: r.verdict,
      steps: r.steps,
      checkMs: Number(checkMs.toFixed(1)),
      opsPerSec: Math.round(n / (checkMs / 1000)),
      ratioToReplay: Number((checkMs / floorMs).toFixed(1)),
    });
  }
  result.generated = generated;
  return result;
}
