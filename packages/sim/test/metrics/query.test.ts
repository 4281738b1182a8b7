/**
 * Exact clocks (`.clockFaults("none")`) in these simulations: they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";
import { MetricQuery } from "../../src/world/metrics/query.ts";
import { SimMetricStore } from "../../src/world/metrics/store.ts";

/** A store driven by a hand-set clock, with two "incarnations" of one process for a reboot. */
function storeAt() {
  let now = 0;
  const store = new SimMetricStore(() => now);
  return { store, query: new MetricQuery(store), at: (ms: number) => (now = ms) };
}

describe("simulated metrics and MetricQuery", () => {
  it("range: the last sample at or before each grid point, per series with process and labels", () => {
    const { store, query, at } = storeAt();
    const a = store.providerFor({}, "server-0@10.0.1.1").gauge("queue_depth", { labelNames: ["shard"] });
    at(0);
    a.set(3, { shard: "1" });
    at(250);
    a.set(7, { shard: "1" });
    at(400);
    a.dec(2, { shard: "1" });
    const [s] = query.range("queue_depth", { fromMs: 0, toMs: 500, stepMs: 100 });
    expect(s!.labels).toEqual({ shard: "1", process: "server-0@10.0.1.1" });
    expect(s!.points).toEqual([
      [0, 3],
      [100, 3],
      [200, 3],
      [300, 7],
      [400, 5],
      [500, 5],
    ]);
  });

  it("rate and increase of counters are exact, also across a reboot that restarts the counter", () => {
    const { store, query, at } = storeAt();
    const boot1 = store.providerFor({}, "server-0@10.0.1.1").counter("requests_total");
    for (let t = 100; t <= 1000; t += 100) {
      at(t);
      boot1.inc(); // 10 requests in (0, 1000]
    }
    const boot2 = store.providerFor({}, "server-0@10.0.1.1").counter("requests_total"); // a new incarnation
    for (let t = 1100; t <= 2000; t += 100) {
      at(t);
      boot2.inc(2); // 20 more in (1000, 2000], counted from zero again
    }
    expect(query.increase("requests_total", 0, 1000)).toBe(10);
    expect(query.increase("requests_total", 500, 1500)).toBe(5 + 10);
    expect(query.increase("requests_total", 0, 2000)).toBe(30);
    const [rate] = query.rate("requests_total", { fromMs: 1000, toMs: 2000, stepMs: 1000, windowMs: 1000 });
    expect(rate!.points).toEqual([
      [1000, 10],
      [2000, 20],
    ]); // per second
  });

  it("aggregates by label (sum, avg, max, min) on a shared grid", () => {
    const { store, query, at } = storeAt();
    const g0 = store.providerFor({}, "server-0@ip").gauge("conns", { labelNames: ["zone"] });
    const g1 = store.providerFor({}, "server-1@ip").gauge("conns", { labelNames: ["zone"] });
    const g2 = store.providerFor({}, "server-2@ip").gauge("conns", { labelNames: ["zone"] });
    at(0);
    g0.set(1, { zone: "a" });
    g1.set(3, { zone: "a" });
    g2.set(10, { zone: "b" });
    const series = query.range("conns", { fromMs: 0, toMs: 10, stepMs: 10 });
    const byZone = (op: "sum" | "avg" | "max" | "min") =>
      Object.fromEntries(query.aggregate(series, op, ["zone"]).map((s) => [s.labels.zone, s.points[0]![1]]));
    expect(byZone("sum")).toEqual({ a: 4, b: 10 });
    expect(byZone("avg")).toEqual({ a: 2, b: 10 });
    expect(byZone("max")).toEqual({ a: 3, b: 10 });
    expect(byZone("min")).toEqual({ a: 1, b: 10 });
    expect(query.aggregate(series, "sum")[0]!.points).toEqual([
      [0, 14],
      [10, 14],
    ]);
    expect(query.select("conns", { process: "server-1" })).toHaveLength(1);
    expect(query.select("conns", { labels: { zone: "b" } })).toHaveLength(1);
  });

  it("quantiles of histograms over their observations in a window (nearest rank)", () => {
    const { store, query, at } = storeAt();
    const h = store.providerFor({}, "client@ip").histogram("latency_ms");
    for (let i = 1; i <= 100; i++) {
      at(i * 10);
      h.observe(i);
    }
    expect(query.quantile("latency_ms", 0.5, 0, 1000)).toBe(50);
    expect(query.quantile("latency_ms", 0.99, 0, 1000)).toBe(99);
    expect(query.quantile("latency_ms", 1, 0, 1000)).toBe(100);
    expect(query.quantile("latency_ms", 0.5, 500, 1000)).toBe(75); // observations 51..100
    expect(query.quantile("latency_ms", 0.5, 2000, 3000)).toBeUndefined();
    expect(query.increase("latency_ms", 0, 500)).toBe(50);
    expect(() => query.range("latency_ms", { fromMs: 0, toMs: 10 })).toThrow(
      /latency_ms is a histogram; range reads counter or gauge/,
    );
  });

  it("a name keeps one kind and one label set", () => {
    const { store } = storeAt();
    const p = store.providerFor({}, "x");
    p.counter("n_total", { labelNames: ["a"] });
    expect(() => p.gauge("n_total")).toThrow(/already a counter/);
    expect(() => p.counter("n_total", { labelNames: ["b"] })).toThrow(/declared with labels \[a\], now \[b\]/);
    expect(() => p.counter("n_total", { labelNames: ["a"] }).inc(1, { z: "1" })).toThrow(/label "z" is not declared/);
  });
});

describe("metrics inside a simulation", () => {
  function simulation() {
    return new SimulationBuilder()
      .clockFaults("none")
      .processes(2, () => ({
        name: "server",
        async run(ctx: SimContext) {
          const served = ctx.metrics.counter("served_total", { labelNames: ["kind"] });
          while (!ctx.shutdown.aborted) {
            await ctx.time.sleep(ctx.random.randomRange(10, 50));
            served.inc(1, { kind: ctx.random.randomBool(0.5) ? "read" : "write" });
          }
        },
      }))
      .workloadFactory(() => ({
        name: "reader",
        async run(ctx: SimContext) {
          await ctx.time.sleep(2_000);
          const q = ctx.metricQuery;
          const total = q.increase("served_total", 0, 2_000);
          const perProcess = q.aggregate(q.range("served_total", { fromMs: 0, toMs: 2_000, stepMs: 1_000 }), "sum", [
            "process",
          ]);
          ctx.trace.info("metrics_read", {
            total,
            processes: perProcess.length,
            last: perProcess[0]!.points.at(-1)![1],
          });
          if (!(total > 40 && perProcess.length === 2)) throw new Error(`unexpected metrics: total=${total}`);
        },
      }));
  }

  it("processes record through ctx.metrics, workloads read through ctx.metricQuery, and seeds replay", async () => {
    const a = await simulation().setBaseSeed(5).setIterations(6).run();
    const b = await simulation().setBaseSeed(5).setIterations(6).run();
    expect(a.failedRuns, a.toString()).toBe(0);
    expect(b.seeds.map((s) => s.traceHash)).toEqual(a.seeds.map((s) => s.traceHash));
    expect(new Set(a.seeds.map((s) => s.traceHash)).size).toBe(6);
  });
});

describe("metric series in the JSON report", () => {
  it("each seed carries its series, downsampled, valid against the report schema", async () => {
    const { readFile } = await import("node:fs/promises");
    const { validate } = await import("../cli/json-schema.ts");
    const schema = JSON.parse(await readFile(new URL("../../report.schema.json", import.meta.url), "utf8"));
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .processes(1, () => ({
        name: "ticker",
        async run(ctx: SimContext) {
          const ticks = ctx.metrics.counter("ticks_total");
          while (!ctx.shutdown.aborted) {
            await ctx.time.sleep(100);
            ticks.inc();
          }
        },
      }))
      .workloadFactory(() => ({ name: "wait", run: (ctx: SimContext) => ctx.time.sleep(1_000) }))
      .setBaseSeed(1)
      .setIterations(1)
      .run();
    const json = report.toJSON() as {
      seeds: { metrics?: { name: string; process: string; samples: number; points: [number, number][] }[] }[];
    };
    const series = json.seeds[0]!.metrics!;
    expect(series.map((s) => [s.name, s.process.split("@")[0]])).toEqual([["ticks_total", "ticker"]]);
    expect(series[0]!.samples).toBeGreaterThanOrEqual(10);
    expect(series[0]!.points.length).toBeLessThanOrEqual(100);
    // The value at 1000 ms is the tenth tick.
    const at1s = series[0]!.points.filter(([t]) => t <= 1_000).at(-1)!;
    expect(at1s[1]).toBe(10);
    const wrapped = { $defs: schema.$defs, $ref: "#/$defs/simulationReport" };
    expect(validate(wrapped, json)).toEqual([]);
  });

  it("seeds that record no metrics carry none", async () => {
    const report = await new SimulationBuilder()
      .clockFaults("none")
      .workloadFactory(() => ({ name: "wait", run: (ctx: SimContext) => ctx.time.sleep(10) }))
      .setBaseSeed(1)
      .setIterations(1)
      .run();
    expect("metrics" in (report.toJSON() as { seeds: object[] }).seeds[0]!).toBe(false);
  });
});
