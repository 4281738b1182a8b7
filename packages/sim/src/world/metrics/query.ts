/**
 * Reading simulated metrics back, PromQL-style but exact: the simulator kept every sample, so a
 * rate is the true increase over its window and a quantile is computed over the observations
 * themselves (not interpolated from buckets).
 */
import { InvalidConfiguration, type MetricLabels } from "@moonpool/core";
import type { SeriesSamples, SimMetricStore } from "./store.ts";

export interface SeriesMatch {
  /** Only series whose labels include these values. */
  readonly labels?: MetricLabels;
  /** Only series of processes whose actor name matches (a string matches a prefix, e.g. "server"). */
  readonly process?: string | RegExp;
}

export interface RangeOptions {
  readonly fromMs: number;
  readonly toMs: number;
  /** Grid of the result; default (toMs − fromMs) / 60. */
  readonly stepMs?: number;
  readonly match?: SeriesMatch;
}

/** A series evaluated on a time grid, like a Prometheus range vector result. */
export interface SampledSeries {
  readonly name: string;
  /** Labels identifying the series; `process` is one of them. */
  readonly labels: MetricLabels;
  readonly points: readonly (readonly [timeMs: number, value: number])[];
}

export type Aggregation = "sum" | "avg" | "max" | "min";

function grid(o: RangeOptions): number[] {
  if (!(o.toMs > o.fromMs))
    throw new InvalidConfiguration(`range: toMs (${o.toMs}) must be after fromMs (${o.fromMs})`);
  const step = o.stepMs ?? (o.toMs - o.fromMs) / 60;
  if (!(step > 0)) throw new InvalidConfiguration(`range: stepMs must be positive, got ${step}`);
  const out: number[] = [];
  for (let t = o.fromMs; t <= o.toMs + 1e-9; t += step) out.push(t);
  return out;
}

/** Index of the last sample at or before `t` (-1 if none). */
function lastAtOrBefore(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export class MetricQuery {
  constructor(private readonly store: SimMetricStore) {}

  /** Names of every metric declared so far. */
  names(): string[] {
    return this.store.metricNames;
  }

  /** The raw series of a metric (every sample), filtered by `match`. */
  select(name: string, match: SeriesMatch = {}): readonly SeriesSamples[] {
    if (this.store.definition(name) === undefined) return [];
    return this.store.series.filter((s) => {
      if (s.name !== name) return false;
      for (const [k, v] of Object.entries(match.labels ?? {})) if (s.labels[k] !== v) return false;
      const p = match.process;
      if (p === undefined) return true;
      return typeof p === "string" ? s.process.startsWith(p) : p.test(s.process);
    });
  }

  /** Counter or gauge values on a grid: each point is the last sample at or before it (absent before the first). */
  range(name: string, options: RangeOptions): SampledSeries[] {
    const times = grid(options);
    return this.select(name, options.match).map((s) => {
      this.expectKind(s, ["counter", "gauge"], "range");
      const points: [number, number][] = [];
      for (const t of times) {
        const i = lastAtOrBefore(s.timesMs, t);
        if (i >= 0) points.push([t, s.values[i]!]);
      }
      return { name, labels: { ...s.labels, process: s.process }, points };
    });
  }

  /**
   * Per-second rate of a counter over the `windowMs` before each grid point. A reboot restarts a
   * process's counters from zero; the store knows where, so the increase across it is exact.
   * For a histogram, the rate of observations.
   */
  rate(name: string, options: RangeOptions & { readonly windowMs: number }): SampledSeries[] {
    if (!(options.windowMs > 0))
      throw new InvalidConfiguration(`rate: windowMs must be positive, got ${options.windowMs}`);
    const times = grid(options);
    return this.select(name, options.match).map((s) => {
      this.expectKind(s, ["counter", "histogram"], "rate");
      const points = times.map((t): [number, number] => [
        t,
        (this.increaseOf(s, t - options.windowMs, t) * 1000) / options.windowMs,
      ]);
      return { name, labels: { ...s.labels, process: s.process }, points };
    });
  }

  /** Total increase of a counter (or number of observations of a histogram) in `(fromMs, toMs]`, summed over the matching series. */
  increase(name: string, fromMs: number, toMs: number, match?: SeriesMatch): number {
    return this.select(name, match).reduce((sum, s) => sum + this.increaseOf(s, fromMs, toMs), 0);
  }

  /** The latest value of each matching counter or gauge at `atMs` (default: now, the last sample). */
  latest(
    name: string,
    atMs = Number.POSITIVE_INFINITY,
    match?: SeriesMatch,
  ): { labels: MetricLabels; value: number }[] {
    return this.select(name, match).flatMap((s) => {
      const i = lastAtOrBefore(s.timesMs, atMs);
      return i < 0 ? [] : [{ labels: { ...s.labels, process: s.process }, value: s.values[i]! }];
    });
  }

  /**
   * The `q` quantile (0..1) of a histogram's observations in `(fromMs, toMs]` over the matching
   * series, nearest-rank; `undefined` when there was none.
   */
  quantile(name: string, q: number, fromMs: number, toMs: number, match?: SeriesMatch): number | undefined {
    if (!(q >= 0 && q <= 1)) throw new InvalidConfiguration(`quantile: q must be within 0..1, got ${q}`);
    const values = this.observations(name, fromMs, toMs, match).sort((a, b) => a - b);
    if (values.length === 0) return undefined;
    return values[Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1))];
  }

  /** A histogram's observed values in `(fromMs, toMs]`. */
  observations(name: string, fromMs: number, toMs: number, match?: SeriesMatch): number[] {
    const out: number[] = [];
    for (const s of this.select(name, match)) {
      this.expectKind(s, ["histogram"], "observations");
      for (let i = 0; i < s.timesMs.length; i++)
        if (s.timesMs[i]! > fromMs && s.timesMs[i]! <= toMs) out.push(s.values[i]!);
    }
    return out;
  }

  /**
   * Combines series point by point, grouped by the labels in `by` (`process` included if named);
   * without `by`, into one series. Series must share a grid (results of one `range` or `rate`).
   */
  aggregate(series: readonly SampledSeries[], op: Aggregation, by: readonly string[] = []): SampledSeries[] {
    const groups = new Map<string, { labels: Record<string, string>; byTime: Map<number, number[]> }>();
    for (const s of series) {
      const labels: Record<string, string> = {};
      for (const k of by) if (s.labels[k] !== undefined) labels[k] = s.labels[k]!;
      const key = JSON.stringify(labels);
      let g = groups.get(key);
      if (g === undefined) groups.set(key, (g = { labels, byTime: new Map() }));
      for (const [t, v] of s.points) {
        const at = g.byTime.get(t);
        if (at === undefined) g.byTime.set(t, [v]);
        else at.push(v);
      }
    }
    const combine = (vs: number[]): number =>
      op === "sum"
        ? vs.reduce((a, b) => a + b, 0)
        : op === "avg"
          ? vs.reduce((a, b) => a + b, 0) / vs.length
          : op === "max"
            ? Math.max(...vs)
            : Math.min(...vs);
    return [...groups.values()].map((g) => ({
      name: `${op}(${series[0]?.name ?? ""})`,
      labels: g.labels,
      points: [...g.byTime.entries()].sort((a, b) => a[0] - b[0]).map(([t, vs]) => [t, combine(vs)] as const),
    }));
  }

  private increaseOf(s: SeriesSamples, fromMs: number, toMs: number): number {
    if (s.kind === "histogram") {
      let n = 0;
      for (const t of s.timesMs) if (t > fromMs && t <= toMs) n++;
      return n;
    }
    const start = lastAtOrBefore(s.timesMs, fromMs);
    let previous = start >= 0 ? s.values[start]! : 0;
    let total = 0;
    let restart = s.restarts.findIndex((r) => r > start);
    for (let i = start + 1; i < s.timesMs.length && s.timesMs[i]! <= toMs; i++) {
      if (restart >= 0 && s.restarts[restart] === i) {
        previous = 0;
        restart = restart + 1 < s.restarts.length ? restart + 1 : -1;
      }
      total += s.values[i]! - previous;
      previous = s.values[i]!;
    }
    return total;
  }

  private expectKind(s: SeriesSamples, kinds: readonly string[], what: string): void {
    if (!kinds.includes(s.kind))
      throw new InvalidConfiguration(
        `${what}(${s.name}): ${s.name} is a ${s.kind}; ${what} reads ${kinds.join(" or ")} metrics`,
      );
  }
}
