import * as promClient from "prom-client";
import { describe, expect, it } from "vitest";
import { InvalidConfiguration, NO_METRICS, prometheusMetrics } from "../src/index.ts";

describe("prometheusMetrics (production, over prom-client)", () => {
  it("exports counters, gauges and histograms with labels in Prometheus text format", async () => {
    const metrics = prometheusMetrics(promClient);
    const requests = metrics.counter("requests_total", { help: "Requests served", labelNames: ["status"] });
    requests.inc(1, { status: "200" });
    requests.inc(2, { status: "500" });
    metrics.counter("requests_total", { help: "Requests served", labelNames: ["status"] }).inc(1, { status: "200" });
    const inFlight = metrics.gauge("in_flight", { help: "Requests in flight" });
    inFlight.inc(3);
    inFlight.dec();
    const latency = metrics.histogram("latency_ms", { help: "Latency in ms", buckets: [10, 100] });
    latency.observe(5);
    latency.observe(50);
    const text = await metrics.registry.metrics();
    expect(text).toContain("# HELP requests_total Requests served");
    expect(text).toContain("# TYPE requests_total counter");
    expect(text).toContain('requests_total{status="200"} 2');
    expect(text).toContain('requests_total{status="500"} 2');
    expect(text).toContain("in_flight 2");
    expect(text).toContain('latency_ms_bucket{le="10"} 1');
    expect(text).toContain('latency_ms_bucket{le="100"} 2');
    expect(text).toContain("latency_ms_count 2");
    expect(metrics.registry.contentType).toContain("text/plain");
  });

  it("rejects undeclared labels, bad names, a negative counter step and a name reused for another kind", () => {
    const metrics = prometheusMetrics(promClient);
    const c = metrics.counter("ops_total", { labelNames: ["kind"] });
    expect(() => c.inc(1, { other: "x" })).toThrow(/label "other" is not declared; add it to labelNames/);
    expect(() => c.inc(-1)).toThrow(InvalidConfiguration);
    expect(() => metrics.gauge("ops_total")).toThrow(/already a counter/);
    expect(() => metrics.counter("ops_total", { labelNames: ["other"] })).toThrow(
      /declared with labels \[kind\], now \[other\]/,
    );
    expect(() => metrics.counter("9lives")).toThrow(/use letters, digits/);
    expect(() => metrics.histogram("h", { buckets: [2, 1] })).toThrow(/strictly ascending/);
  });
});

describe("NO_METRICS", () => {
  it("accepts updates and records nothing, but still checks names", () => {
    NO_METRICS.counter("a_total").inc();
    NO_METRICS.gauge("g").set(1);
    NO_METRICS.histogram("h").observe(1);
    expect(() => NO_METRICS.counter("bad name")).toThrow(InvalidConfiguration);
  });
});
