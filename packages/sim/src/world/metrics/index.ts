/** Simulated metrics: the per-seed sample store, its query API and the ASCII graph renderer. */
export {
  SimMetricStore,
  type MetricDefinition,
  type MetricKind,
  type MetricSeriesReport,
  type SeriesSamples,
} from "./store.ts";
export { MetricQuery, type Aggregation, type RangeOptions, type SampledSeries, type SeriesMatch } from "./query.ts";
export { renderAsciiGraph, type AsciiGraphOptions, type GraphMark, type GraphSeries } from "./ascii-graph.ts";
