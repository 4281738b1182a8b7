/**
 * The production metrics provider over a Prometheus client for Node (`prom-client`). The client
 * is passed in rather than imported, so `@moonpool/core` keeps no dependencies:
 *
 *   import * as client from "prom-client";
 *   const metrics = prometheusMetrics(client);
 *   // GET /metrics: res.setHeader("content-type", metrics.registry.contentType); res.end(await metrics.registry.metrics())
 */
import { InvalidConfiguration } from "../errors.ts";
import {
  checkMetricLabels,
  MetricDefinitions,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type HistogramOptions,
  type MetricKind,
  type MetricLabels,
  type MetricOptions,
  type MetricsProvider,
} from "../metrics.ts";

type Labels = Record<string, string>;
interface PromMetricConfig<R> {
  name: string;
  help: string;
  labelNames: string[];
  registers: R[];
  buckets?: number[];
}

/** The part of `prom-client` this adapter uses. */
export interface PromClientLike<R extends PromRegistryLike = PromRegistryLike> {
  readonly Registry: new () => R;
  readonly Counter: new (config: PromMetricConfig<R>) => { inc(labels: Labels, value: number): void };
  readonly Gauge: new (
    config: PromMetricConfig<R>,
  ) => {
    set(labels: Labels, value: number): void;
    inc(labels: Labels, value: number): void;
    dec(labels: Labels, value: number): void;
  };
  readonly Histogram: new (config: PromMetricConfig<R>) => { observe(labels: Labels, value: number): void };
}

export interface PromRegistryLike {
  metrics(): Promise<string>;
  readonly contentType: string;
}

export interface PrometheusMetrics<R extends PromRegistryLike = PromRegistryLike> extends MetricsProvider {
  /** The registry the metrics live in: serve `await registry.metrics()` at `/metrics`. */
  readonly registry: R;
}

export function prometheusMetrics<R extends PromRegistryLike>(
  client: PromClientLike<R>,
  options: { registry?: R } = {},
): PrometheusMetrics<R> {
  const registry = options.registry ?? new client.Registry();
  const definitions = new MetricDefinitions();
  const made = new Map<string, unknown>();
  // A second declaration must match the first (kind and labels), as in the simulator; it then
  // gets the metric made the first time.
  const define = <T>(
    kind: MetricKind,
    name: string,
    opts: HistogramOptions,
    make: (labelNames: readonly string[]) => T,
  ): T => {
    const { definition, created } = definitions.define(kind, name, opts);
    if (!created) return made.get(name) as T;
    const metric = make(definition.labelNames);
    made.set(name, metric);
    return metric;
  };
  const config = (name: string, opts: HistogramOptions, labelNames: readonly string[]): PromMetricConfig<R> => ({
    name,
    help: opts.help ?? name,
    labelNames: [...labelNames],
    registers: [registry],
    ...(opts.buckets !== undefined ? { buckets: [...opts.buckets] } : {}),
  });
  return {
    registry,
    counter(name: string, opts: MetricOptions = {}): CounterMetric {
      return define("counter", name, opts, (labelNames) => {
        const c = new client.Counter(config(name, opts, labelNames));
        return {
          inc(value = 1, labels?: MetricLabels) {
            if (!(value >= 0))
              throw new InvalidConfiguration(`counter ${name}: inc(${value}) must add a non-negative number`);
            c.inc(checkMetricLabels(name, labelNames, labels) as Labels, value);
          },
        };
      });
    },
    gauge(name: string, opts: MetricOptions = {}): GaugeMetric {
      return define("gauge", name, opts, (labelNames) => {
        const g = new client.Gauge(config(name, opts, labelNames));
        return {
          set: (value, labels) => g.set(checkMetricLabels(name, labelNames, labels) as Labels, value),
          inc: (value = 1, labels) => g.inc(checkMetricLabels(name, labelNames, labels) as Labels, value),
          dec: (value = 1, labels) => g.dec(checkMetricLabels(name, labelNames, labels) as Labels, value),
        };
      });
    },
    histogram(name: string, opts: HistogramOptions = {}): HistogramMetric {
      return define("histogram", name, opts, (labelNames) => {
        const h = new client.Histogram(config(name, opts, labelNames));
        return { observe: (value, labels) => h.observe(checkMetricLabels(name, labelNames, labels) as Labels, value) };
      });
    },
  };
}
