/**
 * The space-time diagram of the timeline page, drawn on a canvas (lanes = actors, time rightwards)
 * so tens of thousands of events stay fluid: only what is on screen is drawn, one mark per lane,
 * pixel column and kind. Two modes: every event, or the story (the failure's causal slice, each
 * mark labelled, periodic repeats folded into bands, quiet stretches squeezed into axis breaks).
 */
import { duration } from "./common.ts";
import { doomWindow } from "./doom.ts";
import { type Band, eventLabel, type TimeScale } from "./story.ts";
import { addArrow, addShape, type Batch, batch, niceStep, pathOf, shapeOf } from "./marks.ts";
import type { Category, PageArrow, PageData, PageEvent, PageLane } from "./timeline-types.ts";

export const COLORS: Readonly<Record<Category, string>> = {
  message: "#2f6fdb",
  process: "#8250df",
  partition: "#d4600b",
  fault: "#b26b00",
  failure: "#cf222e",
  fact: "#57606a",
  console: "#8c959f",
};

export const AXIS_H = 26;
const GROUP_H = 20;
/** Lane height: every event, and the story (room for two rows of labels above and below the line). */
const LANE_H = 30;
const STORY_LANE_H = 72;
/** Many marks on screen: squares and headless arrows (unreadable at that density anyway), cheap to draw. */
const DENSE_EVENTS = 2000;
const LABEL_ROWS = [-11, -24, 15, 28];
const MAX_LABEL_PX = 300;
/** Above this many story marks on screen labels cannot fit anyway: none are drawn until the reader zooms in. */
export const MAX_LABELLED_MARKS = 400;

/** A mark drawn (for hit-testing and the page's scripting handle). */
export interface DrawnMark {
  readonly x: number;
  readonly y: number;
  readonly index: number;
  /** Its label in the story view (every mark of the story has one), else "". */
  readonly label: string;
}

export interface DrawnBand {
  readonly lane: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly count: number;
  readonly label: string;
}

/** What the diagram shows: the drawing range in `u` (see `TimeScale`), and what is filtered or matched. */
export interface DiagramState {
  story: boolean;
  scale: TimeScale;
  u0: number;
  u1: number;
  readonly enabledCategory: Record<string, boolean>;
  readonly enabledKind: Record<string, boolean>;
  matches: Uint8Array | null;
  selected: number;
}

export class Diagram {
  readonly ctx: CanvasRenderingContext2D;
  laneY: number[] = [];
  groupRows: { y: number; name: string }[] = [];
  contentH = 0;
  width = 0;
  drawn: DrawnMark[] = [];
  drawnBands: DrawnBand[] = [];
  drawnArrows = 0;
  private readonly labelCache = new Map<number, string>();

  constructor(
    readonly canvas: HTMLCanvasElement,
    readonly data: PageData,
    readonly events: readonly PageEvent[],
    readonly state: DiagramState,
    /** Per event index: 1 when in the failure's causal slice. */
    readonly inSlice: Uint8Array,
    readonly bands: readonly Band[],
    readonly methods: ReadonlyMap<number, string>,
    readonly peer: (address: unknown) => string,
  ) {
    this.ctx = canvas.getContext("2d")!;
    this.layout();
  }

  get lanes(): readonly PageLane[] {
    return this.data.lanes;
  }

  /** Lane positions for the current mode (the story's lanes are taller, for labels). */
  layout(): void {
    const laneH = this.state.story ? STORY_LANE_H : LANE_H;
    this.laneY = [];
    this.groupRows = [];
    let y = AXIS_H;
    let lastGroup: string | null = null;
    for (const lane of this.lanes) {
      if (lane.group !== lastGroup) {
        this.groupRows.push({ y, name: lane.group });
        y += GROUP_H;
        lastGroup = lane.group;
      }
      this.laneY.push(y + laneH / 2);
      y += laneH;
    }
    this.contentH = y + 10;
  }

  get laneHeight(): number {
    return this.state.story ? STORY_LANE_H : LANE_H;
  }

  get groupHeight(): number {
    return GROUP_H;
  }

  resize(width: number): void {
    const dpr = window.devicePixelRatio || 1;
    this.width = Math.max(100, width);
    this.canvas.width = Math.round(this.width * dpr);
    this.canvas.height = Math.round(this.contentH * dpr);
    this.canvas.style.width = this.width + "px";
    this.canvas.style.height = this.contentH + "px";
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }

  /** The x of simulated time `t` (ms). */
  X(t: number): number {
    const s = this.state;
    return ((s.scale.u(t) - s.u0) / (s.u1 - s.u0)) * this.width;
  }

  /** The simulated time (ms) at `x`. */
  T(x: number): number {
    const s = this.state;
    return s.scale.t(s.u0 + (x / this.width) * (s.u1 - s.u0));
  }

  label(index: number): string {
    let text = this.labelCache.get(index);
    if (text === undefined) {
      text = eventLabel(this.events[index]!, this.methods.get(index), this.peer);
      this.labelCache.set(index, text);
    }
    return text;
  }

  /** Whether event `index` is drawn as a mark: its kind is on, and in the story it is in the slice. */
  shown(index: number): boolean {
    const e = this.events[index]!;
    if (!this.state.enabledCategory[e.category] || !this.state.enabledKind[e.kind]) return false;
    return !this.state.story || this.inSlice[index] === 1;
  }

  private firstAtOrAfter(t: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.timeMs < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private drawAxis(): void {
    const { ctx, width } = this;
    const height = this.contentH;
    ctx.fillStyle = "#f6f7fa";
    ctx.fillRect(0, 0, width, AXIS_H);
    ctx.strokeStyle = "#e2e5ec";
    ctx.beginPath();
    ctx.moveTo(0, AXIS_H - 0.5);
    ctx.lineTo(width, AXIS_H - 0.5);
    ctx.stroke();
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const scale = this.state.scale;
    // Ticks in the stretches the scale keeps at full width (slope 1 there), none inside a break.
    const step = niceStep(((this.state.u1 - this.state.u0) / width) * 800);
    const tMin = Math.max(0, this.T(0));
    const tMax = this.T(width);
    const stretches: [number, number][] = [];
    let from = tMin;
    for (const b of scale.breaks) {
      if (b.toMs <= tMin || b.fromMs >= tMax) continue;
      if (b.fromMs > from) stretches.push([from, b.fromMs]);
      from = Math.max(from, b.toMs);
    }
    if (from < tMax) stretches.push([from, tMax]);
    let lastLabelX = -Infinity;
    for (const [a, z] of stretches) {
      for (let t = Math.ceil(a / step) * step; t <= z; t += step) {
        const x = Math.round(this.X(t)) + 0.5;
        ctx.strokeStyle = "#eef0f4";
        ctx.beginPath();
        ctx.moveTo(x, AXIS_H);
        ctx.lineTo(x, height);
        ctx.stroke();
        ctx.strokeStyle = "#c9ced8";
        ctx.beginPath();
        ctx.moveTo(x, AXIS_H - 6);
        ctx.lineTo(x, AXIS_H);
        ctx.stroke();
        if (x - lastLabelX < 60) continue;
        ctx.fillStyle = "#6b7385";
        ctx.fillText(duration(Math.abs(t) < step / 1e6 ? 0 : t), x + 3, AXIS_H / 2);
        lastLabelX = x;
      }
    }
    for (const b of scale.breaks) {
      const x0 = this.X(b.fromMs);
      const x1 = this.X(b.toMs);
      if (x1 < 0 || x0 > width) continue;
      ctx.fillStyle = "rgba(107,115,133,0.10)";
      ctx.fillRect(x0, 0, x1 - x0, height);
      ctx.strokeStyle = "#b8bfcc";
      ctx.setLineDash([3, 3]);
      ctx.beginPath();
      ctx.moveTo(Math.round(x0) + 0.5, 0);
      ctx.lineTo(Math.round(x0) + 0.5, height);
      ctx.moveTo(Math.round(x1) + 0.5, 0);
      ctx.lineTo(Math.round(x1) + 0.5, height);
      ctx.stroke();
      ctx.setLineDash([]);
      const text = `⋯ ${duration(b.toMs - b.fromMs)} ⋯`;
      const w = ctx.measureText(text).width;
      if (x1 - x0 > w + 4) {
        ctx.fillStyle = "#6b7385";
        ctx.fillText(text, (x0 + x1) / 2 - w / 2, AXIS_H / 2);
      }
    }
  }

  private drawFailureAndDoom(marker: HTMLElement | null): boolean {
    const { ctx, data } = this;
    const height = this.contentH;
    if (data.doom !== undefined) {
      const { fromMs, toMs } = doomWindow(data.doom);
      const x0 = Math.max(0, this.X(fromMs));
      const x1 = Math.min(this.width, this.X(toMs));
      if (x1 >= 0 && x0 <= this.width) {
        ctx.fillStyle = "rgba(207,34,46,0.08)";
        ctx.fillRect(x0, AXIS_H, Math.max(2, x1 - x0), height - AXIS_H);
        ctx.strokeStyle = "rgba(207,34,46,0.6)";
        ctx.setLineDash([4, 3]);
        ctx.strokeRect(x0 + 0.5, AXIS_H + 0.5, Math.max(2, x1 - x0) - 1, height - AXIS_H - 1);
        ctx.setLineDash([]);
        ctx.fillStyle = "#a40e26";
        ctx.font = "600 11px system-ui, sans-serif";
        ctx.fillText("point of no return", x0 + 4, AXIS_H + 10);
        ctx.font = "11px system-ui, sans-serif";
      }
    }
    if (data.failure === null || marker === null) return false;
    const fx = this.X(data.failure.timeMs);
    if (fx < -2 || fx > this.width + 2) {
      marker.style.display = "none";
      return false;
    }
    ctx.fillStyle = "rgba(207,34,46,0.10)";
    ctx.fillRect(fx - 3, AXIS_H, 6, height - AXIS_H);
    ctx.strokeStyle = "#cf222e";
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(fx, AXIS_H);
    ctx.lineTo(fx, height);
    ctx.stroke();
    ctx.lineWidth = 1;
    marker.style.display = "block";
    marker.style.left = fx + "px";
    marker.style.top = AXIS_H + 2 + "px";
    return true;
  }

  private drawArrows(arrows: readonly PageArrow[], indexOfSeq: (seq: number) => number, dense: boolean): void {
    const { ctx, state } = this;
    const batches = new Map<string, Batch>();
    const seen = new Set<number>();
    const [t0, t1] = [this.T(0), this.T(this.width)];
    this.drawnArrows = 0;
    for (const ar of arrows) {
      if (ar.toTimeMs < t0 || ar.fromTimeMs > t1) continue;
      const si = indexOfSeq(ar.seq);
      const src = si >= 0 ? this.events[si]! : null;
      if (src !== null && !this.shown(si)) continue;
      if (src === null && state.story) continue;
      const x0 = this.X(ar.fromTimeMs);
      const x1 = this.X(ar.toTimeMs);
      const key = ((ar.fromLane * 4096 + ar.toLane) * 65536 + Math.round(x0)) * 65536 + Math.round(x1);
      if (seen.has(key)) continue;
      seen.add(key);
      const dim = state.matches !== null && !(si >= 0 && state.matches[si] === 1);
      const category = src !== null ? src.category : "message";
      const b = batch(batches, category + (ar.delivered ? "" : "-") + (dim ? "d" : ""), () => ({
        color: COLORS[category],
        faint: !ar.delivered,
        dim,
        category,
      }));
      addArrow(b, x0, this.laneY[ar.fromLane]!, x1, this.laneY[ar.toLane]!, dense);
      this.drawnArrows++;
    }
    for (const b of batches.values()) {
      // Arrows not known to be delivered are fainter (dashes would cost too much when dense).
      ctx.globalAlpha = b.dim ? 0.12 : b.faint ? 0.45 : 0.75;
      ctx.strokeStyle = b.color;
      ctx.fillStyle = b.color;
      for (const p of b.paths) ctx.stroke(p);
      for (const p of b.heads) ctx.fill(p);
    }
    ctx.globalAlpha = 1;
  }

  /** The story's folded repeats: one shaded, labelled band per lane and run of repeats. */
  private drawBands(): void {
    const { ctx } = this;
    this.drawnBands = [];
    if (!this.state.story) return;
    const h = this.laneHeight;
    ctx.font = "11px system-ui, sans-serif";
    for (const band of this.bands) {
      const x0 = Math.max(0, this.X(band.fromMs));
      const x1 = Math.min(this.width, this.X(band.toMs));
      if (x1 < 0 || x0 > this.width) continue;
      const y = this.laneY[band.lane]! - h / 2 + 4;
      const w = Math.max(3, x1 - x0);
      ctx.fillStyle = "rgba(47,111,219,0.10)";
      ctx.fillRect(x0, y, w, h - 8);
      ctx.strokeStyle = "rgba(47,111,219,0.45)";
      ctx.strokeRect(x0 + 0.5, y + 0.5, w - 1, h - 9);
      // The label stays readable where the band is narrow: it runs on to the right.
      const text = `↻ ${band.label}`;
      ctx.fillStyle = "#1f4f9e";
      ctx.textBaseline = "middle";
      ctx.fillText(this.fit(text, Math.max(w - 6, MAX_LABEL_PX)), x0 + 3, y + 8);
      this.drawnBands.push({ lane: band.lane, fromMs: band.fromMs, toMs: band.toMs, count: band.count, label: text });
    }
  }

  /** `text` cut with an ellipsis to `px` wide. */
  private fit(text: string, px: number): string {
    if (this.ctx.measureText(text).width <= px) return text;
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.ctx.measureText(text.slice(0, mid) + "…").width <= px) lo = mid;
      else hi = mid - 1;
    }
    return text.slice(0, lo) + "…";
  }

  draw(arrows: readonly PageArrow[], indexOfSeq: (seq: number) => number, marker: HTMLElement | null): boolean {
    const { ctx, width, state, events } = this;
    const height = this.contentH;
    ctx.clearRect(0, 0, width, height);
    this.drawAxis();
    for (const g of this.groupRows) {
      ctx.fillStyle = "#f6f7fa";
      ctx.fillRect(0, g.y, width, GROUP_H);
    }
    ctx.strokeStyle = "#d5d9e2";
    ctx.lineWidth = 1;
    const lanesPath = new Path2D();
    for (const ly of this.laneY) {
      lanesPath.moveTo(0, Math.round(ly) + 0.5);
      lanesPath.lineTo(width, Math.round(ly) + 0.5);
    }
    ctx.stroke(lanesPath);
    const failureShown = this.drawFailureAndDoom(marker);
    this.drawBands();
    const t0 = this.T(0);
    const t1 = this.T(width);
    const lo = this.firstAtOrAfter(t0 - (t1 - t0) * 0.005);
    const dense = !state.story && this.firstAtOrAfter(t1) - lo > DENSE_EVENTS;
    this.drawArrows(arrows, indexOfSeq, dense);
    // Marks: one per lane, pixel column and kind (in the story, one per lane and column, all its events in the label).
    this.drawn = [];
    const seen = new Set<number>();
    const marks = new Map<string, Batch>();
    const links = new Path2D();
    const rings = new Path2D();
    const kindIds = new Map<string, number>();
    const groups = new Map<number, number[]>();
    const members = new Map<number, number[]>();
    const laneById = new Map(this.lanes.map((l, i) => [l.id, i]));
    for (let i = lo; i < events.length; i++) {
      const e = events[i]!;
      if (e.timeMs > t1) break;
      if (!this.shown(i)) continue;
      const x = this.X(e.timeMs);
      const ly = this.laneY[e.lane]!;
      const to = typeof e.fields.to === "string" ? laneById.get(e.fields.to) : undefined;
      if (e.category === "partition" && to !== undefined) {
        links.moveTo(x, ly);
        links.lineTo(x, this.laneY[to]!);
      }
      let kid = kindIds.get(e.kind);
      if (kid === undefined) kindIds.set(e.kind, (kid = kindIds.size));
      const column = (e.lane * 65536 + Math.round(x)) * 1024;
      if (state.story) {
        // Events within 3 px on a lane share one mark and one label.
        const near = [column - 3072, column - 2048, column - 1024, column].find((c) => groups.has(c));
        if (near !== undefined && e.category !== "failure") {
          groups.get(near)!.push(i);
          continue;
        }
        const list = [i];
        groups.set(column, list);
        members.set(i, list);
      } else {
        const k = column + kid;
        if (seen.has(k) && i !== state.selected && e.category !== "failure") continue;
        seen.add(k);
      }
      const dimmed = state.matches !== null && state.matches[i] !== 1;
      let shape = shapeOf(e);
      if (dense && (shape === "dot" || shape === "small" || shape === "down")) shape = "tiny";
      const mb = batch(marks, `${e.category}:${shape}${dimmed ? "d" : ""}`, () => ({
        color: COLORS[e.category],
        shape,
        dim: dimmed,
        category: e.category,
      }));
      addShape(pathOf(mb, mb.paths), shape, x, ly);
      mb.count++;
      if (state.matches !== null && state.matches[i] === 1) {
        rings.moveTo(x + 8, ly);
        rings.arc(x, ly, 8, 0, 6.283);
      }
      this.drawn.push({ x, y: ly, index: i, label: "" });
    }
    ctx.strokeStyle = COLORS.partition;
    ctx.setLineDash([2, 3]);
    ctx.stroke(links);
    ctx.setLineDash([]);
    // Failures last, so nothing covers them.
    const ordered = [...marks.values()].sort(
      (p, q) => Number(p.category === "failure") - Number(q.category === "failure"),
    );
    for (const mb of ordered) {
      ctx.globalAlpha = mb.dim ? 0.18 : 1;
      ctx.fillStyle = mb.color;
      ctx.strokeStyle = mb.color;
      for (const p of mb.paths) {
        if (mb.shape === "cross") {
          ctx.lineWidth = 2.5;
          ctx.stroke(p);
          ctx.lineWidth = 1;
        } else ctx.fill(p);
        if (mb.shape === "failure" && !mb.dim) {
          ctx.strokeStyle = "#fff";
          ctx.lineWidth = 1.5;
          ctx.stroke(p);
          ctx.lineWidth = 1;
        }
      }
    }
    ctx.globalAlpha = 1;
    ctx.strokeStyle = "#f5a623";
    ctx.lineWidth = 2;
    ctx.stroke(rings);
    ctx.lineWidth = 1;
    if (state.story && this.drawn.length <= MAX_LABELLED_MARKS) this.drawLabels(members);
    else if (state.story)
      this.drawn = this.drawn.flatMap((m) => (members.get(m.index) ?? [m.index]).map((i) => ({ ...m, index: i })));
    if (state.selected >= 0) {
      const sel = events[state.selected]!;
      ctx.strokeStyle = "#1d2330";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(this.X(sel.timeMs), this.laneY[sel.lane]!, 10, 0, 6.283);
      ctx.stroke();
      ctx.lineWidth = 1;
    }
    return failureShown;
  }

  /**
   * One label per story mark (its events' labels, application facts first), in the first of four
   * rows around the lane where it fits; where none is free it goes after the shortest row, with a
   * leader line back to its mark.
   */
  private drawLabels(groups: ReadonlyMap<number, readonly number[]>): void {
    const { ctx } = this;
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    // Per lane and row, the spans [x0, x1] its labels take.
    const taken = this.lanes.map(() => LABEL_ROWS.map((): [number, number][] => []));
    const labelled = new Map<number, string>();
    const byX = [...this.drawn].sort((a, b) => a.x - b.x);
    for (const mark of byX) {
      const e = this.events[mark.index]!;
      const members = groups.get(mark.index) ?? [mark.index];
      const ordered = [...members].sort((a, b) => this.rank(a) - this.rank(b) || a - b);
      const text = this.fit(ordered.map((i) => this.label(i)).join(" · "), MAX_LABEL_PX);
      const w = ctx.measureText(text).width;
      const rows = taken[e.lane]!;
      // Marks come left to right and a label starts at most MAX_LABEL_PX + 6 left of its mark: older spans can go.
      for (const spans of rows) while (spans.length > 0 && spans[0]![1] < mark.x - MAX_LABEL_PX - 16) spans.shift();
      const free = (r: number, x0: number) => rows[r]!.every(([a, z]) => x0 + w + 4 <= a || x0 >= z + 4);
      // Right of the mark in the first free row, else left of it (near the right edge, left first).
      const right = mark.x + 6;
      const left = Math.max(2, mark.x - 6 - w);
      const sides = right + w > this.width - 2 ? [left, right] : [right, left];
      let row = -1;
      let x = right;
      for (const side of sides) {
        row = LABEL_ROWS.findIndex((_y, r) => free(r, side));
        if (row >= 0) {
          x = side;
          break;
        }
      }
      if (row < 0) {
        // No free place: after the row that ends first, with a leader line back to the mark.
        const ends = rows.map((spans) => Math.max(-Infinity, ...spans.map(([, z]) => z)));
        row = ends.indexOf(Math.min(...ends));
        x = Math.max(right, ends[row]! + 6);
      }
      rows[row]!.push([x, x + w]);
      const y = mark.y + LABEL_ROWS[row]!;
      if (x > mark.x + 6 || x + w < mark.x - 6) {
        ctx.strokeStyle = "rgba(87,96,106,0.5)";
        ctx.beginPath();
        ctx.moveTo(mark.x, mark.y);
        ctx.lineTo(x, y);
        ctx.stroke();
      }
      ctx.fillStyle = "rgba(255,255,255,0.85)";
      ctx.fillRect(x - 1, y - 6, w + 2, 12);
      ctx.fillStyle = e.category === "failure" ? "#a40e26" : "#1d2330";
      ctx.fillText(text, x, y);
      for (const i of members) labelled.set(i, text);
    }
    this.drawn = this.drawn.flatMap((m) => {
      return (groups.get(m.index) ?? [m.index]).map((i) => ({
        x: m.x,
        y: m.y,
        index: i,
        label: labelled.get(i) ?? "",
      }));
    });
  }

  /** Label order within a mark: failures, application facts, lifecycle and faults, then debug plumbing. */
  private rank(index: number): number {
    const e = this.events[index]!;
    if (e.category === "failure") return 0;
    if (e.level !== "debug") return 1;
    return e.name === "net_send" || e.name === "net_recv" ? 2 : 3;
  }
}
