/**
 * Metrics a server records: counters, gauges and histograms with labels, Prometheus-style.
 * In production they go to a Prometheus client (`prometheusMetrics`), so the same code serves
 * `/metrics`; in the simulator every update is a sample on simulated time that workloads and
 * invariants can query back.
 */
import { InvalidConfiguration } from "./errors.ts";

/** Label values by label name; every name must be declared in the metric's `labelNames`. */
export type MetricLabels = Readonly<Record<string, string>>;

export interface MetricOptions {
  /** One line that says what the metric counts, with its unit (Prometheus `HELP`). */
  readonly help?: string;
  /** The label names this metric may be recorded with (Prometheus needs them up front). */
  readonly labelNames?: readonly string[];
}

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds of the buckets, ascending (Prometheus `le`); default `DEFAULT_HISTOGRAM_BUCKETS`. */
  readonly buckets?: readonly number[];
}

export interface CounterMetric {
  /** Adds `value` (default 1; must be >= 0). */
  inc(value?: number, labels?: MetricLabels): void;
}

export interface GaugeMetric {
  set(value: number, labels?: MetricLabels): void;
  inc(value?: number, labels?: MetricLabels): void;
  dec(value?: number, labels?: MetricLabels): void;
}

export interface HistogramMetric {
  observe(value: number, labels?: MetricLabels): void;
}

/**
 * Where metrics are recorded. Asking twice for the same name returns the same metric; asking
 * for a name already used by another kind of metric is an `InvalidConfiguration`.
 */
export interface MetricsProvider {
  counter(name: string, options?: MetricOptions): CounterMetric;
  gauge(name: string, options?: MetricOptions): GaugeMetric;
  histogram(name: string, options?: HistogramOptions): HistogramMetric;
}

/** Prometheus' default buckets, for values in seconds; pass your own for milliseconds. */
export const DEFAULT_HISTOGRAM_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Checks a metric's name and options; shared by every provider so they fail alike. */
export function checkMetricDefinition(
  kind: "counter" | "gauge" | "histogram",
  name: string,
  options: HistogramOptions = {},
): void {
  if (typeof name !== "string" || !METRIC_NAME.test(name)) {
    throw new InvalidConfiguration(
      `${kind} name ${JSON.stringify(name)}: use letters, digits, '_' and ':' (not first a digit), e.g. "requests_total"`,
    );
  }
  for (const label of options.labelNames ?? []) {
    if (!LABEL_NAME.test(label) || label.startsWith("__")) {
      throw new InvalidConfiguration(
        `${kind} ${name}: label name ${JSON.stringify(label)} must be letters, digits and '_', not starting with "__"`,
      );
    }
  }
  if (kind === "histogram" && options.buckets !== undefined) {
    const b = options.buckets;
    if (b.length === 0 || b.some((v, i) => !Number.isFinite(v) || (i > 0 && v <= b[i - 1]!))) {
      throw new InvalidConfiguration(
        `histogram ${name}: buckets must be finite and strictly ascending, got [${b.join(", ")}]`,
      );
    }
  }
}

export type MetricKind = "counter" | "gauge" | "histogram";

/** A metric as declared: the same name keeps one kind and one label set wherever it is asked for. */
export interface MetricDefinition {
  readonly name: string;
  readonly kind: MetricKind;
  readonly help: string;
  /** Sorted. */
  readonly labelNames: readonly string[];
  readonly buckets?: readonly number[];
}

/** The declared metrics of one provider: every provider checks a second declaration the same way. */
export class MetricDefinitions {
  private readonly byName = new Map<string, MetricDefinition>();

  /** The definition of `name`, registered now or found; `created` tells which. */
  define(
    kind: MetricKind,
    name: string,
    options: HistogramOptions = {},
  ): { definition: MetricDefinition; created: boolean } {
    checkMetricDefinition(kind, name, options);
    const existing = this.byName.get(name);
    const labelNames = [...(options.labelNames ?? [])].sort();
    if (existing !== undefined) {
      if (existing.kind !== kind)
        throw new InvalidConfiguration(`metric ${name} is already a ${existing.kind}; a ${kind} needs another name`);
      if (existing.labelNames.join(",") !== labelNames.join(",")) {
        throw new InvalidConfiguration(
          `metric ${name} was declared with labels [${existing.labelNames.join(", ")}], now [${labelNames.join(", ")}]: declare it the same way everywhere`,
        );
      }
      return { definition: existing, created: false };
    }
    const definition: MetricDefinition = {
      name,
      kind,
      help: options.help ?? name,
      labelNames,
      ...(options.buckets !== undefined ? { buckets: [...options.buckets] } : {}),
    };
    this.byName.set(name, definition);
    return { definition, created: true };
  }

  get(name: string): MetricDefinition | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }
}

/** Checks one update's labels against the declared names; returns them in a canonical order. */
export function checkMetricLabels(
  name: string,
  declared: readonly string[],
  labels: MetricLabels | undefined,
): MetricLabels {
  if (labels === undefined) return {};
  const out: Record<string, string> = {};
  for (const key of Object.keys(labels).sort()) {
    if (!declared.includes(key)) {
      throw new InvalidConfiguration(
        `metric ${name}: label ${JSON.stringify(key)} is not declared; add it to labelNames (declared: ${declared.join(", ") || "none"})`,
      );
    }
    out[key] = String(labels[key]);
  }
  return out;
}

/** Metrics that go nowhere: the production default until a Prometheus client is configured. */
export const NO_METRICS: MetricsProvider = Object.freeze({
  counter: (name: string, options?: MetricOptions) => {
    checkMetricDefinition("counter", name, options);
    return { inc: () => {} };
  },
  gauge: (name: string, options?: MetricOptions) => {
    checkMetricDefinition("gauge", name, options);
    return { set: () => {}, inc: () => {}, dec: () => {} };
  },
  histogram: (name: string, options?: HistogramOptions) => {
    checkMetricDefinition("histogram", name, options);
    return { observe: () => {} };
  },
});
