/**
 * Jepsen's Knossos example histories with known verdicts (the folder names): a copy of the
 * `data/` folder of jepsen-io/knossos (EPL-1.0 data, so not vendored here), read from the
 * folder MOONPOOL_KNOSSOS_DIR names (`.ci/run` sets it). Without it the test is skipped, saying so
 * (and fails under CI).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  casRegisterModel,
  checkLinearizability,
  multiRegisterModel,
  mutexModel,
  parseKnossosHistory,
  type Model,
} from "../../src/linearizability/index.ts";

const corpus = process.env.MOONPOOL_KNOSSOS_DIR ?? "";
const available = corpus !== "" && existsSync(corpus);
if (!available) {
  const message = `Knossos corpus not found at '${corpus}': set MOONPOOL_KNOSSOS_DIR to its folder`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
}

const MODELS: Record<string, () => Model<never, never, never>> = {
  "cas-register": () => casRegisterModel(0) as never,
  "multi-register": () => multiRegisterModel({ x: 0, y: 0 }) as never,
  mutex: () => mutexModel() as never,
};

const TAIL_FIXTURE = join(import.meta.dirname, "fixtures/etcd-mutex-tail.edn");

describe.skipIf(!available)("the Knossos corpus", () => {
  it("every verdict matches its folder", () => {
    let files = 0;
    let totalMs = 0;
    let slowest = { file: "", ms: 0, operations: 0 };
    const mismatches: string[] = [];
    const truncated: string[] = [];
    for (const model of Object.keys(MODELS)) {
      for (const verdict of ["good", "bad"]) {
        const dir = join(corpus, model, verdict);
        if (!existsSync(dir)) continue;
        for (const file of readdirSync(dir)
          .filter((f) => f.endsWith(".edn"))
          .sort()) {
          let text = readFileSync(join(dir, file), "utf8");
          let cut = false;
          parseKnossosHistory(text, { onTruncated: () => (cut = true) });
          if (cut) {
            // A copy cut off mid-record: restore the missing records where we ship them.
            truncated.push(`${model}/${verdict}/${file}`);
            if (file !== "etcd.edn") throw new Error(`${file} is cut off and no fixture restores it`);
            text = text.slice(0, text.lastIndexOf("\n") + 1) + readFileSync(TAIL_FIXTURE, "utf8");
          }
          const ops = parseKnossosHistory(text);
          const started = performance.now();
          const result = checkLinearizability(MODELS[model]!(), ops as never, { timeoutMs: 60_000 });
          const ms = performance.now() - started;
          files++;
          totalMs += ms;
          if (ms > slowest.ms) slowest = { file: `${model}/${verdict}/${file}`, ms, operations: ops.length };
          const expected = verdict === "good" ? "linearizable" : "illegal";
          if (result.verdict !== expected)
            mismatches.push(`${model}/${verdict}/${file}: ${result.verdict}, expected ${expected}`);
        }
      }
    }
    console.log(
      `Knossos corpus: ${files} files checked in ${totalMs.toFixed(0)} ms; slowest ${slowest.file} ` +
        `(${slowest.operations} operations) ${slowest.ms.toFixed(1)} ms` +
        (truncated.length > 0 ? `; restored cut-off copies: ${truncated.join(", ")}` : ""),
    );
    expect(mismatches).toEqual([]);
    expect(files).toBeGreaterThanOrEqual(120);
  });

  it("a cut-off copy of the etcd history, as it stands, is linearizable: its violation comes after the cut", () => {
    const file = join(corpus, "mutex/bad/etcd.edn");
    const text = readFileSync(file, "utf8");
    let cutAtLine = 0;
    const ops = parseKnossosHistory(text, { onTruncated: (line) => (cutAtLine = line) });
    if (cutAtLine === 0) return; // a complete copy: the corpus test above covers it
    expect(checkLinearizability(mutexModel(), ops).verdict).toBe("linearizable");
  });
});
