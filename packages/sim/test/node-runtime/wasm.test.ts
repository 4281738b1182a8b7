/**
 * `WebAssembly.instantiate` and `WebAssembly.compile` inside a seed with the Node runtime: settled
 * within the step from the synchronous forms (Node's own settle from the real event loop), so a
 * WASM program (PGlite) can start inside a simulated process; without the runtime they escape.
 */
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";

/** A module exporting `answer(): i32` that returns 42. */
const ANSWER_WASM = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00,
  0x07, 0x0a, 0x01, 0x06, 0x61, 0x6e, 0x73, 0x77, 0x65, 0x72, 0x00, 0x00, 0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x2a,
  0x0b,
]);

interface Wasm {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(source: unknown, imports?: object): Promise<any>;
  Module: new (bytes: Uint8Array) => object;
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

function runWith(run: (ctx: SimContext) => Promise<void>, nodeRuntime: boolean) {
  return new SimulationBuilder()
    .networkFaults("none")
    .workload({ name: "w", run })
    .nodeRuntime(nodeRuntime)
    .setDebugSeeds([5])
    .setIterations(1)
    .run();
}

describe("WebAssembly in the virtual Node runtime", () => {
  it("instantiate(bytes), instantiate(module) and compile(bytes) settle within the step", async () => {
    const seen: unknown[] = [];
    const report = await runWith(async (ctx) => {
      const before = ctx.time.now();
      const pair = await wasm.instantiate(ANSWER_WASM);
      seen.push(pair.instance.exports.answer());
      const compiled = await wasm.compile(ANSWER_WASM);
      const instance = await wasm.instantiate(compiled);
      seen.push(instance.exports.answer(), pair.module instanceof wasm.Module, ctx.time.now() - before);
      await wasm.instantiate(Uint8Array.of(1, 2, 3)).catch((error: Error) => seen.push(error.constructor.name));
    }, true);
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toEqual([42, 42, true, 0, "CompileError"]);
  });

  it("without the Node runtime the asynchronous forms escape", async () => {
    const report = await runWith(async () => {
      await wasm.instantiate(ANSWER_WASM);
    }, false);
    expect(report.seeds[0]!.failures[0]!.kind).toBe("escape");
    expect(report.seeds[0]!.failures[0]!.message).toContain("WebAssembly.instantiate");
  });
});
