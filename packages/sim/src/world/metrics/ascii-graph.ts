/**
 * Plain-text time-series graphs for a terminal or a report: one or more series over simulated
 * time, a y axis with its unit, a time axis in seconds, vertical marks for events (a trigger),
 * and a legend. Each column shows the value of the last point at or before its time.
 */
import { InvalidConfiguration } from "@moonpool/core";

export interface GraphSeries {
  readonly label: string;
  readonly points: readonly (readonly [timeMs: number, value: number])[];
  /** One character; default from `*+o#x@%&`. */
  readonly symbol?: string;
}

export interface GraphMark {
  readonly atMs: number;
  readonly label: string;
}

export interface AsciiGraphOptions {
  readonly title?: string;
  /** Unit of the values, printed on the y axis and in the legend, e.g. "req/s". */
  readonly unit?: string;
  /** Plot width in characters; default 64. */
  readonly widthCols?: number;
  /** Plot height in rows; default 12. */
  readonly heightRows?: number;
  /** Time range; default: the range of the points. */
  readonly fromMs?: number;
  readonly toMs?: number;
  /** Top of the y axis; default: the largest value (bottom is 0, or the smallest value if negative). */
  readonly yMax?: number;
  readonly marks?: readonly GraphMark[];
}

const SYMBOLS = "*+o#x@%&";

function formatValue(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${(v / 1e3).toFixed(0)}k`;
  if (a >= 100 || Number.isInteger(v)) return v.toFixed(0);
  return v.toFixed(a >= 10 ? 1 : 2);
}

const formatSeconds = (ms: number): string => `${Number((ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1))}s`;

export function renderAsciiGraph(series: readonly GraphSeries[], options: AsciiGraphOptions = {}): string {
  const width = options.widthCols ?? 64;
  const height = options.heightRows ?? 12;
  if (!Number.isInteger(width) || width < 8)
    throw new InvalidConfiguration(`widthCols must be an integer >= 8, got ${width}`);
  if (!Number.isInteger(height) || height < 3)
    throw new InvalidConfiguration(`heightRows must be an integer >= 3, got ${height}`);
  const all = series.flatMap((s) => s.points);
  const fromMs = options.fromMs ?? (all.length > 0 ? Math.min(...all.map((p) => p[0])) : 0);
  const toMs = options.toMs ?? (all.length > 0 ? Math.max(...all.map((p) => p[0])) : 1);
  const span = Math.max(toMs - fromMs, 1e-9);
  const values = all.map((p) => p[1]);
  const yMin = Math.min(0, ...values);
  const yMax = options.yMax ?? Math.max(yMin + 1e-9, ...values);
  const unit = options.unit ? ` ${options.unit}` : "";
  const colTime = (c: number) => fromMs + (c / (width - 1)) * span;
  const rowOf = (v: number) => Math.round(((Math.min(v, yMax) - yMin) / (yMax - yMin)) * (height - 1));

  // cells[row][col], row 0 at the bottom.
  const cells: string[][] = Array.from({ length: height }, () => Array.from({ length: width }, () => " "));
  for (const mark of options.marks ?? []) {
    if (mark.atMs < fromMs || mark.atMs > toMs) continue;
    const c = Math.round(((mark.atMs - fromMs) / span) * (width - 1));
    for (let r = 0; r < height; r++) cells[r]![c] = "|";
  }
  series.forEach((s, k) => {
    const symbol = (s.symbol ?? SYMBOLS[k % SYMBOLS.length]!).slice(0, 1);
    const points = [...s.points].sort((a, b) => a[0] - b[0]);
    let i = -1;
    for (let c = 0; c < width; c++) {
      const t = colTime(c) + 1e-6;
      while (i + 1 < points.length && points[i + 1]![0] <= t) i++;
      if (i < 0) continue;
      const r = rowOf(points[i]![1]);
      const cell = cells[r]![c]!;
      if (cell === " " || cell === "|") cells[r]![c] = symbol;
    }
  });

  const labels = new Map<number, string>([
    [height - 1, formatValue(yMax) + unit],
    [
      Math.round((height - 1) / 2),
      formatValue(yMin + (yMax - yMin) * (Math.round((height - 1) / 2) / (height - 1))) + unit,
    ],
    [0, formatValue(yMin) + unit],
  ]);
  const labelWidth = Math.max(...[...labels.values()].map((l) => l.length));
  const lines: string[] = [];
  if (options.title) lines.push(options.title);
  for (let r = height - 1; r >= 0; r--) {
    const label = labels.get(r);
    lines.push(`${(label ?? "").padStart(labelWidth)} ${label === undefined ? "│" : "┤"}${cells[r]!.join("")}`);
  }
  lines.push(`${" ".repeat(labelWidth)} └${"─".repeat(width)}`);
  const axis = Array.from({ length: width + 1 }, () => " ");
  const place = (col: number, text: string) => {
    const start = Math.max(0, Math.min(width + 1 - text.length, col - Math.floor(text.length / 2)));
    for (let j = 0; j < text.length; j++) axis[start + j] = text[j]!;
  };
  place(0, formatSeconds(fromMs));
  place(Math.round(width / 2), formatSeconds(fromMs + span / 2));
  place(width, formatSeconds(toMs));
  lines.push(`${" ".repeat(labelWidth + 1)}${axis.join("").trimEnd()}  (simulated time)`);
  const legend = series.map((s, k) => `${(s.symbol ?? SYMBOLS[k % SYMBOLS.length]!).slice(0, 1)} ${s.label}${unit}`);
  for (const mark of options.marks ?? []) legend.push(`| ${mark.label} at ${formatSeconds(mark.atMs)}`);
  lines.push(`${" ".repeat(labelWidth + 2)}${legend.join("   ")}`);
  return lines.join("\n");
}
