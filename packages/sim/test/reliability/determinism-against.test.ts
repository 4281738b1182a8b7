import { afterEach, describe, expect, it } from "vitest";
import { DeterminismViolation } from "@moonpool/core";
import { SimulationBuilder, SimulationReport, type SimContext } from "../../src/index.ts";

const builder = () =>
  new SimulationBuilder()
    .workloadFactory(() => ({
      name: "walker",
      async run(ctx: SimContext) {
        for (let i = 0; i < 5; i++) await ctx.time.sleep(ctx.random.randomRange(1, 10));
      },
    }))
    .setBaseSeed(41)
    .setIterations(3);

const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
afterEach(() => {
  process.off("warning", onWarning);
  warnings.length = 0;
});

/** The earlier run, as if another Node had made it. */
function madeBy(report: SimulationReport, node: string, v8: string) {
  return { runtime: { node, v8 }, seeds: report.seeds };
}

describe("checkDeterminism against an earlier run", () => {
  it("says nothing when the earlier run was made with this Node and V8, and its hashes match", async () => {
    const earlier = await builder().run();
    process.on("warning", onWarning);
    // As a JSON report holds it.
    const result = await builder().checkDeterminism({ against: SimulationReport.fromJSON(earlier.toJSON()) });
    expect(result.warnings).toEqual([]);
    expect(warnings.filter((w) => w.name === "MoonpoolWarning")).toEqual([]);
    expect(result.deterministic).toBe(true);
    expect(result.seedsChecked).toBe(3);
    expect(result.recordedMismatches).toEqual([]);
  });

  it("warns first when the Node or V8 version differs, naming both: a result field and a process warning", async () => {
    const earlier = await builder().run();
    process.on("warning", onWarning);
    const result = await builder().checkDeterminism({ against: madeBy(earlier, "18.0.0", "10.1.124.8") });
    const here = process.versions;
    const expected = `the earlier run was written by Node 18.0.0 (V8 10.1.124.8), this is Node ${here.node} (V8 ${here.v8})`;
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain(expected);
    const emitted = warnings.filter((w) => w.name === "MoonpoolWarning");
    expect(emitted.map((w) => (w as Error & { code?: string }).code)).toEqual(["MOONPOOL_RUNTIME_MISMATCH"]);
    // The hashes still match: the warning alone does not make the check fail.
    expect(result.deterministic).toBe(true);
  });

  it("a seed hashing other than it was recorded fails the check, the version difference in its message", async () => {
    const earlier = await builder().run();
    const seeds = earlier.seeds.map((s, i) => (i === 1 ? { seed: s.seed, traceHash: "deadbeef" } : s));
    const sameVersions = await builder().checkDeterminism({ against: { runtime: earlier.runtime, seeds } });
    expect(sameVersions.deterministic).toBe(false);
    expect(sameVersions.recordedMismatches).toEqual([
      { seed: earlier.seeds[1]!.seed, recordedHash: "deadbeef", traceHash: earlier.seeds[1]!.traceHash },
    ]);
    expect(sameVersions.violation).toBeInstanceOf(DeterminismViolation);
    expect(sameVersions.violation!.message).toContain("recorded trace hash deadbeef");
    expect(sameVersions.violation!.message).not.toContain("The versions differ");
    process.on("warning", onWarning);
    const otherNode = await builder().checkDeterminism({ against: { runtime: { node: "18.0.0", v8: "10.1" }, seeds } });
    expect(otherNode.violation!.message).toContain("The versions differ: the earlier run was written by Node 18.0.0");
  });
});
