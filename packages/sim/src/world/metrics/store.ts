/**
 * Simulated metrics: every update of a counter, gauge or histogram is a sample stamped with
 * simulated time, kept per series (metric name, process, labels). A process's counters start
 * from zero at each boot, as a real process's would, so a reboot shows as a counter reset.
 */
import {
  checkMetricLabels,
  InvalidConfiguration,
  MetricDefinitions,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type HistogramOptions,
  type MetricDefinition,
  type MetricKind,
  type MetricLabels,
  type MetricOptions,
  type MetricsProvider,
} from "@moonpool/core";

export type { MetricDefinition, MetricKind };

/**
 * One series' samples. Counters: the running total after each update; gauges: the value after
 * each update; histograms: each observed value.
 */
export interface SeriesSamples {
  readonly name: string;
  readonly kind: MetricKind;
  /** The actor that recorded it, e.g. `server-0@10.0.1.1`. */
  readonly process: string;
  readonly labels: MetricLabels;
  readonly timesMs: number[];
  readonly values: number[];
  /** Indexes of samples written by a new boot of the process (its counters restarted from zero). */
  readonly restarts: number[];
}

interface SeriesState extends SeriesSamples {
  writer: object | null;
}

/** A series as the JSON report holds it: downsampled points of `[simulated ms, value]`. */
export interface MetricSeriesReport {
  readonly name: string;
  readonly kind: MetricKind;
  readonly process: string;
  readonly labels: MetricLabels;
  /** Samples recorded (before downsampling). */
  readonly samples: number;
  readonly points: readonly (readonly [number, number])[];
}

/** A sample store for one seed's world. */
export class SimMetricStore {
  private readonly definitions = new MetricDefinitions();
  private readonly byKey = new Map<string, SeriesState>();
  private readonly providers = new WeakMap<object, MetricsProvider>();

  constructor(private readonly nowMs: () => number) {}

  /** The provider of one process incarnation (shared by its spawned tasks). */
  providerFor(incarnation: object, process: string): MetricsProvider {
    let provider = this.providers.get(incarnation);
    if (provider === undefined) {
      provider = new IncarnationMetrics(this, process);
      this.providers.set(incarnation, provider);
    }
    return provider;
  }

  /** Every series recorded so far, in the order they first appeared. */
  get series(): readonly SeriesSamples[] {
    return [...this.byKey.values()];
  }

  /**
   * Every series for the JSON report, at most `maxPoints` points each on an even grid over
   * `(0, endMs]`: counters and gauges give their last value at each point, histograms the
   * number of observations since the previous point.
   */
  report(endMs: number, maxPoints = 100): MetricSeriesReport[] {
    const stepMs = Math.max(endMs, 1) / maxPoints;
    return this.series.map((s) => {
      const points: [number, number][] = [];
      let i = 0;
      let last: number | undefined;
      for (let k = 1; k <= maxPoints; k++) {
        const t = k * stepMs;
        let count = 0;
        while (i < s.timesMs.length && s.timesMs[i]! <= t + 1e-9) {
          last = s.values[i]!;
          count++;
          i++;
        }
        if (s.kind === "histogram") points.push([t, count]);
        else if (last !== undefined) points.push([t, last]);
      }
      return { name: s.name, kind: s.kind, process: s.process, labels: s.labels, samples: s.values.length, points };
    });
  }

  definition(name: string): MetricDefinition | undefined {
    return this.definitions.get(name);
  }

  get metricNames(): string[] {
    return this.definitions.names;
  }

  /** @internal Registers (or finds) a metric; the same name must keep one kind and label set. */
  define(kind: MetricKind, name: string, options: HistogramOptions): MetricDefinition {
    return this.definitions.define(kind, name, options).definition;
  }

  /** @internal `writer` is the recording incarnation's provider: a new one marks a restart. */
  record(definition: MetricDefinition, process: string, labels: MetricLabels, value: number, writer: object): void {
    const key = `${definition.name}\u0000${process}\u0000${JSON.stringify(labels)}`;
    let series = this.byKey.get(key);
    if (series === undefined) {
      series = {
        name: definition.name,
        kind: definition.kind,
        process,
        labels,
        timesMs: [],
        values: [],
        restarts: [],
        writer,
      };
      this.byKey.set(key, series);
    } else if (series.writer !== writer) {
      series.writer = writer;
      series.restarts.push(series.values.length);
    }
    series.timesMs.push(this.nowMs());
    series.values.push(value);
  }
}

function finite(name: string, what: string, value: number): void {
  if (!Number.isFinite(value))
    throw new InvalidConfiguration(`metric ${name}: ${what}(${value}) needs a finite number`);
}

/** One incarnation's metrics: its own running totals, so a reboot starts counters from zero. */
class IncarnationMetrics implements MetricsProvider {
  private readonly current = new Map<string, number>();

  constructor(
    private readonly store: SimMetricStore,
    private readonly process: string,
  ) {}

  private update(
    definition: MetricDefinition,
    labels: MetricLabels | undefined,
    next: (previous: number) => number,
  ): void {
    const checked = checkMetricLabels(definition.name, definition.labelNames, labels);
    const key = `${definition.name}\u0000${JSON.stringify(checked)}`;
    const value = next(this.current.get(key) ?? 0);
    this.current.set(key, value);
    this.store.record(definition, this.process, checked, value, this);
  }

  counter(name: string, options: MetricOptions = {}): CounterMetric {
    const d = this.store.define("counter", name, options);
    return {
      inc: (value = 1, labels) => {
        finite(name, "inc", value);
        if (value < 0)
          throw new InvalidConfiguration(
            `counter ${name}: inc(${value}) must add a non-negative number; use a gauge for values that go down`,
          );
        this.update(d, labels, (p) => p + value);
      },
    };
  }

  gauge(name: string, options: MetricOptions = {}): GaugeMetric {
    const d = this.store.define("gauge", name, options);
    return {
      set: (value, labels) => {
        finite(name, "set", value);
        this.update(d, labels, () => value);
      },
      inc: (value = 1, labels) => {
        finite(name, "inc", value);
        this.update(d, labels, (p) => p + value);
      },
      dec: (value = 1, labels) => {
        finite(name, "dec", value);
        this.update(d, labels, (p) => p - value);
      },
    };
  }

  histogram(name: string, options: HistogramOptions = {}): HistogramMetric {
    const d = this.store.define("histogram", name, options);
    return {
      observe: (value, labels) => {
        finite(name, "observe", value);
        const checked = checkMetricLabels(name, d.labelNames, labels);
        this.store.record(d, this.process, checked, value, this);
      },
    };
  }
}
