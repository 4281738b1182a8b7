/**
 * Observability from code: a workload's `check()` queries the seed's trace timeline with the API
 * invariants use, and `printTrace(level)` prints each seed's trace from the chosen level up.
 */
import { describe, expect, it } from "vitest";
import { SimulationBuilder, TraceCursor, type Process, type SimContext } from "../src/index.ts";

class Writer implements Process {
  readonly name = "writer";
  async run(ctx: SimContext): Promise<void> {
    for (let i = 0; i < 3 && !ctx.shutdown.aborted; i++) {
      await ctx.time.sleep(ctx.random.randomRange(1, 50));
      ctx.trace.info("wrote", { i, value: ctx.random.randomRange(0, 1000) });
    }
  }
}

describe("the trace timeline in check()", () => {
  it("check() reads every actor's events, with a cursor and in full", async () => {
    const seen: string[][] = [];
    const report = await new SimulationBuilder()
      .processes(2, () => new Writer())
      .workloadFactory(() => ({
        name: "checker",
        run: (ctx: SimContext) => ctx.time.sleep(500),
        check: async (ctx: SimContext) => {
          const cursor = new TraceCursor();
          const events = ctx.traceQuery.since("wrote", cursor);
          seen.push(events.map((e) => `${e.source}:${e.num("i")}`));
          // The cursor has read them all; the snapshot and count still see every one.
          expect(ctx.traceQuery.since("wrote", cursor)).toEqual([]);
          expect(ctx.traceQuery.snapshot("wrote")).toHaveLength(events.length);
          if (ctx.traceQuery.count("wrote") !== 6)
            throw new Error(`expected 6 writes, the trace has ${ctx.traceQuery.count("wrote")}`);
        },
      }))
      .setIterations(2)
      .setDebugSeeds([11, 12])
      .run();
    expect(report.failedRuns).toBe(0);
    expect(seen).toHaveLength(2);
    for (const list of seen) {
      expect(list).toHaveLength(6);
      expect(new Set(list.map((s) => s.split(":")[0]!.split("@")[0]))).toEqual(new Set(["writer-0", "writer-1"]));
    }
  });

  it("a check() that finds the trace wrong fails the seed", async () => {
    const report = await new SimulationBuilder()
      .processes(1, () => new Writer())
      .workloadFactory(() => ({
        name: "checker",
        run: (ctx: SimContext) => ctx.time.sleep(500),
        check: async (ctx: SimContext) => {
          if (ctx.traceQuery.count("wrote") > 0) throw new Error("the trace has writes");
        },
      }))
      .setIterations(1)
      .setDebugSeeds([3])
      .run();
    expect(report.failedRuns).toBe(1);
    expect(report.seeds[0]!.failures[0]!.message).toContain("the trace has writes");
  });

  it("the trace query is read-only", async () => {
    let keys: string[] = [];
    await new SimulationBuilder()
      .workloadFactory(() => ({
        name: "w",
        run: async (ctx: SimContext) => {
          keys = Object.keys(ctx.traceQuery).sort();
        },
      }))
      .setIterations(1)
      .run();
    expect(keys).toEqual(["count", "since", "snapshot"]);
  });
});

describe("printTrace(level)", () => {
  const traced = (print?: "warn" | "debug", lines: string[] = []) => {
    let builder = new SimulationBuilder()
      .workloadFactory(() => ({
        name: "w",
        run: async (ctx: SimContext) => {
          ctx.trace.debug("detail", { n: ctx.random.randomRange(0, 1_000_000) });
          ctx.trace.info("fact");
          ctx.trace.warn("warning", { n: ctx.random.randomRange(0, 1_000_000) });
          await ctx.time.sleep(1);
        },
      }))
      .setIterations(2)
      .setDebugSeeds([21, 22]);
    if (print !== undefined) builder = builder.printTrace(print, (line) => lines.push(line));
    return { builder, lines };
  };

  it("prints each seed's events at the requested level and above, after a header naming the seed", async () => {
    const warn = traced("warn");
    const report = await warn.builder.run();
    const headers = warn.lines.filter((l) => l.startsWith("---"));
    expect(headers).toHaveLength(2);
    expect(headers[0]).toMatch(/^--- trace of seed 21 \(warn and above, 1 of \d+ events\) ---$/);
    expect(headers[1]).toMatch(/^--- trace of seed 22 \(warn and above, 1 of \d+ events\) ---$/);
    const events = warn.lines.filter((l) => !l.startsWith("---"));
    expect(events).toHaveLength(2);
    for (const line of events) expect(line).toMatch(/^\[\s+\d+\.\d{3}ms\] warn {2}w@\S+ warning n=\d+$/);
    // The capture floor stays at info: printing at warn does not change what the seed records.
    expect(report.seeds.map((s) => s.traceHash)).toEqual((await traced().builder.run()).seeds.map((s) => s.traceHash));
  });

  it("a level below the capture floor prints those events without capturing them: hashes and queries unchanged", async () => {
    const seen: number[] = [];
    // A second workload whose check() counts the debug events it can query.
    const withReader = (builder: SimulationBuilder) =>
      builder.workloadFactory(() => ({
        name: "reader",
        run: async (ctx: SimContext) => {
          await ctx.time.sleep(2);
        },
        check: async (ctx: SimContext) => {
          seen.push(ctx.traceQuery.count("detail"));
        },
      }));
    const debug = traced("debug");
    const report = await withReader(debug.builder).run();
    expect(debug.lines.filter((l) => l.includes(" debug ")).length).toBe(2);
    // Every printed event is at debug or above: all are printed.
    expect(debug.lines.filter((l) => l.startsWith("---"))[0]).toMatch(
      /^--- trace of seed 21 \(debug and above, (\d+) of \1 events\) ---$/,
    );
    const plain = await withReader(traced().builder).run();
    expect(report.seeds.map((s) => s.traceHash)).toEqual(plain.seeds.map((s) => s.traceHash));
    // Capturing debug (traceLevel) is another timeline: check() sees the events and the hash differs.
    const captured = await withReader(traced().builder.traceLevel("debug")).run();
    expect(seen).toEqual([0, 0, 0, 0, 1, 1]);
    expect(captured.seeds.map((s) => s.traceHash)).not.toEqual(plain.seeds.map((s) => s.traceHash));
  });

  it("the same seeds print the same trace; other seeds print another", async () => {
    const a = traced("warn");
    const b = traced("warn");
    await a.builder.run();
    await b.builder.run();
    expect(b.lines).toEqual(a.lines);
    const c = traced("warn");
    await c.builder.setDebugSeeds([23, 24]).run();
    expect(c.lines.filter((l) => !l.startsWith("---"))).not.toEqual(a.lines.filter((l) => !l.startsWith("---")));
  });

  it("prints nothing without printTrace, and rejects an unknown level", async () => {
    const plain = traced();
    await plain.builder.run();
    expect(plain.lines).toEqual([]);
    expect(plain.builder.build().printTrace).toBeNull();
    expect(() => new SimulationBuilder().printTrace("loud" as "warn")).toThrow(/level must be one of/);
  });
});
