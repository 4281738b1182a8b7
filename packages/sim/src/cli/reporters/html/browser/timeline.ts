/**
 * The timeline page of one seed: header, toolbar (zoom, fit, go to failure, the story or every
 * event, search, filters), the space-time diagram (diagram.ts), a tooltip with an event's fields,
 * and a scripting handle (`window.moonpoolTimeline`) for automation and the tests.
 */
import { command, count, duration, el, pageData } from "./common.ts";
import { AXIS_H, COLORS, Diagram, type DiagramState, MAX_LABELLED_MARKS } from "./diagram.ts";
import { doomChart, doomWindow } from "./doom.ts";
import { compressedScale, foldRepeats, IDENTITY_SCALE, messageMethods, peerNames, storyFrame } from "./story.ts";
import { type Category, type PageData, type PageEvent, unpackEvents } from "./timeline-types.ts";

const CATEGORY_LABELS: Readonly<Record<Category, string>> = {
  message: "messages",
  process: "process lifecycle",
  partition: "partitions",
  fault: "injected faults",
  failure: "failures",
  fact: "trace facts",
  console: "console",
};

const startedAt = performance.now();
const raw = pageData<PageData>();
const events: PageEvent[] = unpackEvents(raw);
const data = { ...raw, events };
const { lanes, arrows } = data;

const endMs = Math.max(
  data.simulatedTimeMs,
  events.length > 0 ? events[events.length - 1]!.timeMs : 0,
  data.failure !== null ? data.failure.timeMs : 0,
  1,
);

// ---- the story: the failure's causal slice, its scale, the folded repeats ---------------------
const maxSeq = events.reduce((m, e) => Math.max(m, e.seq), 0);
const indexBySeq = new Int32Array(maxSeq + 1).fill(-1);
for (const [i, e] of events.entries()) indexBySeq[e.seq] = i;
const indexOfSeq = (seq: number): number => (seq >= 0 && seq <= maxSeq ? indexBySeq[seq]! : -1);
const inSlice = new Uint8Array(events.length);
for (const seq of data.slice ?? []) {
  const i = indexOfSeq(seq);
  if (i >= 0) inSlice[i] = 1;
}
const hasStory = (data.slice ?? []).length > 0;
const methods = messageMethods(events);
const bands = hasStory ? foldRepeats(events, (i) => inSlice[i] !== 1, methods) : [];
const sliceTimes = events.filter((_e, i) => inSlice[i] === 1).map((e) => e.timeMs);
const doom = data.doom !== undefined ? doomWindow(data.doom) : null;
const storyTimes = doom === null ? sliceTimes : [...sliceTimes, doom.fromMs, doom.toMs];
const storyScale = compressedScale(storyTimes, endMs);

// ---- header, toolbar ------------------------------------------------------------------------
document.body.appendChild(
  el(
    "header",
    { class: "top" },
    el(
      "h1",
      {},
      `${data.simulation} · seed ${data.seed} `,
      el("span", { class: `badge ${data.ok ? "pass" : "fail"}` }, data.ok ? "passed" : "failed"),
    ),
    el(
      "div",
      { class: "sub" },
      (data.recipe ? `recipe "${data.recipe}" · ` : "") +
        `simulated ${duration(data.simulatedTimeMs)} · ${count(events.length)} events · ${count(arrows.length)} arrows · trace hash ${data.traceHash}`,
    ),
    data.failures.map((f) =>
      el(
        "div",
        { class: "failure-text" },
        el("span", { class: "badge fail" }, f.kind),
        " ",
        f.message,
        f.actor ? ` (actor ${f.actor})` : "",
        ` at ${duration(f.timeMs)}`,
      ),
    ),
    hasStory
      ? el(
          "div",
          { class: "note story-note" },
          `story: the ${count(sliceTimes.length)} events in the failure's happens-before past (of ${count(events.length)}), ` +
            "each labelled; repeats outside it folded into bands; quiet stretches squeezed (⋯)",
        )
      : null,
    data.doom !== undefined
      ? el(
          "div",
          { class: "doom" },
          doomChart(data.doom),
          el(
            "div",
            { class: "note" },
            `point of no return: saved until ${duration(doom!.fromMs)}, doomed from ${duration(doom!.toMs)}`,
          ),
        )
      : null,
    command(data.replayCommand),
  ),
);

const categories: Record<string, number> = {};
const kinds: Record<string, { category: Category; count: number }> = {};
for (const e of events) {
  categories[e.category] = (categories[e.category] ?? 0) + 1;
  const k = kinds[e.kind] ?? (kinds[e.kind] = { category: e.category, count: 0 });
  k.count++;
}
const state: DiagramState = {
  story: hasStory,
  scale: hasStory ? storyScale : IDENTITY_SCALE,
  u0: 0,
  u1: endMs,
  enabledCategory: Object.fromEntries(Object.keys(COLORS).map((c) => [c, true])),
  enabledKind: Object.fromEntries(Object.keys(kinds).map((k) => [k, true])),
  matches: null,
  selected: -1,
};

const search = el("input", {
  type: "search",
  placeholder: "search events (Enter: next)",
  "aria-label": "search events",
});
const searchInfo = el("span", { class: "note" });
const button = (action: string, title: string, text: string) =>
  el("button", { type: "button", "data-action": action, title }, text);
const storyButton = hasStory
  ? button("story", "the failure's story, or every event", state.story ? "all events" : "story")
  : null;
const toolbar = el(
  "div",
  { class: "toolbar" },
  button("zoom-in", "zoom in (or mouse wheel)", "+"),
  button("zoom-out", "zoom out", "−"),
  button("fit", "the whole run", "fit"),
  data.failure !== null ? button("failure", "zoom to the failure", "go to failure") : null,
  storyButton,
  search,
  searchInfo,
  (Object.keys(COLORS) as Category[])
    .filter((c) => categories[c])
    .map((c) => {
      const box = el("input", { type: "checkbox", checked: "", "data-category": c });
      box.addEventListener("change", () => {
        state.enabledCategory[c] = box.checked;
        draw();
      });
      return el(
        "label",
        {},
        box,
        el("span", { class: "swatch", style: `background:${COLORS[c]}` }),
        `${CATEGORY_LABELS[c]} (${count(categories[c]!)})`,
      );
    }),
  el(
    "details",
    { class: "kinds" },
    el("summary", {}, "kinds…"),
    el(
      "div",
      {
        style:
          "position:absolute;z-index:5;background:#fff;border:1px solid #e2e5ec;padding:6px 10px;max-height:300px;overflow:auto",
      },
      Object.keys(kinds)
        .sort()
        .map((k) => {
          const box = el("input", { type: "checkbox", checked: "", "data-kind": k });
          box.addEventListener("change", () => {
            state.enabledKind[k] = box.checked;
            draw();
          });
          return el(
            "div",
            {},
            el(
              "label",
              {},
              box,
              el("span", { class: "swatch", style: `background:${COLORS[kinds[k]!.category]}` }),
              `${k} (${count(kinds[k]!.count)})`,
            ),
          );
        }),
    ),
  ),
);
document.body.appendChild(toolbar);

// ---- lanes, canvas --------------------------------------------------------------------------
const canvas = el("canvas", { "aria-label": "space-time diagram" });
const diagram = new Diagram(canvas, data, events, state, inSlice, bands, methods, peerNames(lanes));
const labels = el("div", { class: "lane-labels" });
const marker =
  data.failure !== null ? el("div", { id: "failure-marker" }, `✗ ${data.failures[0]?.kind ?? "failure"}`) : null;
const sizer = el("div", { class: "sizer", style: "position:relative" }, canvas, marker);
const wrap = el("div", { class: "canvas-wrap", style: "overflow-y:auto;overflow-x:hidden" }, sizer);
const tooltip = el("div", { id: "tooltip", role: "tooltip" });
const status = el("div", { class: "statusline" });
document.body.appendChild(el("div", { class: "diagram" }, labels, wrap));
document.body.appendChild(status);
document.body.appendChild(tooltip);
wrap.addEventListener("scroll", () => {
  labels.scrollTop = wrap.scrollTop;
});
labels.style.overflow = "hidden";

/** Lane labels at the diagram's lane positions (the story's lanes are taller). */
function placeLanes(): void {
  labels.replaceChildren();
  const laneH = diagram.laneHeight;
  for (const g of diagram.groupRows) {
    const h = diagram.groupHeight;
    labels.appendChild(
      el("div", { class: "lane-group", style: `top:${g.y}px;height:${h}px;line-height:${h}px` }, g.name),
    );
  }
  for (const [i, lane] of lanes.entries()) {
    const top = diagram.laneY[i]! - laneH / 2;
    labels.appendChild(
      el(
        "div",
        {
          class: "lane-label",
          "data-lane": lane.id,
          title: lane.label,
          style: `top:${top}px;height:${laneH}px;line-height:${laneH}px`,
        },
        lane.label,
      ),
    );
  }
  labels.appendChild(el("div", { style: `position:absolute;top:${diagram.contentH}px;height:1px;width:1px` }));
  sizer.style.height = diagram.contentH + "px";
}

// ---- view -----------------------------------------------------------------------------------
interface Stats {
  lanes: number;
  marks: number;
  arrows: number;
  failure: boolean;
  events: number;
  firstRenderMs: number | null;
  drawnAtMs: number | null;
  lastDrawMs: number | null;
  story: boolean;
  /** The simulated time at the diagram's left and right edges (ms). */
  fromMs: number;
  toMs: number;
  /** How many events the failure's causal slice holds. */
  sliceEvents: number;
  marksDrawn: { seq: number; name: string; label: string; x: number }[];
  bands: { lane: number; fromMs: number; toMs: number; count: number; label: string }[];
}
const stats: Stats = {
  lanes: lanes.length,
  marks: 0,
  arrows: 0,
  failure: false,
  events: events.length,
  firstRenderMs: null,
  drawnAtMs: null,
  lastDrawMs: null,
  story: state.story,
  fromMs: 0,
  toMs: 0,
  sliceEvents: sliceTimes.length,
  marksDrawn: [],
  bands: [],
};
let matchList: number[] = [];
let matchAt = -1;
// Built on the first search, so opening the page does not pay for it.
let searchText: string[] | null = null;

const uMin = () => state.scale.u(0);
const uMax = () => state.scale.u(endMs);

/** Sets the drawing range, never before time 0 and never much wider than the run. */
function setView(u0: number, u1: number): void {
  const full = (uMax() - uMin()) * 1.02;
  let span = Math.max(Math.min(u1 - u0, full), 1e-3);
  if (!Number.isFinite(span)) span = full;
  let from = u0;
  if (from < uMin()) from = uMin();
  state.u0 = from;
  state.u1 = from + span;
}

function draw(): void {
  const drawStart = performance.now();
  stats.failure = diagram.draw(arrows, indexOfSeq, marker);
  stats.marks = diagram.drawn.length;
  stats.arrows = diagram.drawnArrows;
  stats.story = state.story;
  stats.fromMs = diagram.T(0);
  stats.toMs = diagram.T(diagram.width);
  stats.marksDrawn = diagram.drawn.map((m) => ({
    seq: events[m.index]!.seq,
    name: events[m.index]!.name,
    label: m.label,
    x: m.x,
  }));
  stats.bands = diagram.drawnBands.map((b) => ({ ...b }));
  stats.lastDrawMs = performance.now() - drawStart;
  const unlabelled = state.story && diagram.drawn.length > MAX_LABELLED_MARKS ? " (zoom in to read the labels)" : "";
  const hidden = state.story
    ? ` · story: ${count(sliceTimes.length)} of ${count(events.length)} events${unlabelled}`
    : "";
  status.textContent =
    `showing ${duration(Math.max(0, stats.fromMs))} – ${duration(stats.toMs)} · ` +
    `${count(diagram.drawn.length)} marks, ${count(diagram.drawnArrows)} arrows on screen${hidden} · ` +
    "wheel: zoom, drag: pan, click a mark: its fields";
}

let pending = 0;
/** Redraws on the next frame (pointer moves and wheel turns come faster than frames). */
function drawSoon(): void {
  if (pending === 0)
    pending = requestAnimationFrame(() => {
      pending = 0;
      draw();
    });
}

function zoom(factor: number, atX?: number, soon = false): void {
  const x = atX ?? diagram.width / 2;
  const u = state.u0 + (x / diagram.width) * (state.u1 - state.u0);
  const span = (state.u1 - state.u0) * factor;
  const f = x / diagram.width;
  setView(u - span * f, u - span * f + span);
  if (soon) drawSoon();
  else draw();
}

/** Shows simulated time `t0..t1` (ms). */
function showRange(t0: number, t1: number): void {
  setView(state.scale.u(Math.max(0, t0)), state.scale.u(t1));
  draw();
}

function fit(): void {
  setView(uMin(), uMin() + (uMax() - uMin()) * 1.02);
  draw();
}

function goToFailure(): void {
  if (data.failure === null) return;
  if (state.story) {
    const [u0, u1] = storyFrame(state.scale, storyTimes, data.failure.timeMs);
    setView(u0, u1);
    draw();
    return;
  }
  const span = Math.max((state.u1 - state.u0) / 20, 1);
  showRange(data.failure.timeMs - span / 2, data.failure.timeMs + span / 2);
}

function setMode(story: boolean): void {
  if (!hasStory) return;
  state.story = story;
  state.scale = story ? storyScale : IDENTITY_SCALE;
  if (storyButton !== null) storyButton.textContent = story ? "all events" : "story";
  diagram.layout();
  diagram.resize(wrap.clientWidth);
  placeLanes();
  if (story) goToFailure();
  else fit();
}

function nearest(px: number, py: number): number {
  let best = -1;
  let bestD = 81;
  let failure = -1;
  let failureD = 81;
  for (const m of diagram.drawn) {
    const dx = m.x - px;
    const dy = m.y - py;
    const d = dx * dx + dy * dy;
    if (d <= bestD) {
      bestD = d;
      best = m.index;
    }
    // A failure within reach wins over nearer marks: it is drawn on top, and it is what a reader clicks for.
    if (d <= 81 && events[m.index]!.category === "failure" && (failure < 0 || d < failureD)) {
      failure = m.index;
      failureD = d;
    }
  }
  return failure >= 0 ? failure : best;
}

function fieldsTable(e: PageEvent): HTMLTableElement {
  const rows: [string, string | number][] = [
    ["time", duration(e.timeMs)],
    ["actor", lanes[e.lane]!.label],
    ["level", e.level],
    ["seq", e.seq],
    ...Object.entries(e.fields).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  ];
  return el(
    "table",
    {},
    el(
      "tbody",
      {},
      rows.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, String(v)))),
    ),
  );
}

function showTooltip(i: number, clientX: number, clientY: number, pinned: boolean): void {
  const e = events[i]!;
  tooltip.replaceChildren(el("div", { class: "t-name" }, e.kind === e.name ? e.name : `${e.name}: ${e.kind}`));
  if (inSlice[i] === 1) tooltip.appendChild(el("div", { class: "note" }, "in the failure's causal slice"));
  tooltip.appendChild(fieldsTable(e));
  tooltip.style.display = "block";
  tooltip.className = pinned ? "pinned" : "";
  tooltip.setAttribute("data-seq", String(e.seq));
  const left = Math.min(clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
  const top =
    clientY + 14 + tooltip.offsetHeight > window.innerHeight ? clientY - tooltip.offsetHeight - 10 : clientY + 14;
  tooltip.style.left = Math.max(4, left) + "px";
  tooltip.style.top = Math.max(4, top) + "px";
}

function hideTooltip(): void {
  tooltip.style.display = "none";
  tooltip.removeAttribute("data-seq");
}

function clientOf(i: number): { x: number; y: number } {
  const r = canvas.getBoundingClientRect();
  return { x: r.left + diagram.X(events[i]!.timeMs), y: r.top + diagram.laneY[events[i]!.lane]! };
}

function select(i: number): void {
  state.selected = i;
  const e = events[i]!;
  if (state.story && inSlice[i] !== 1) setMode(false);
  const x = diagram.X(e.timeMs);
  if (x < 0 || x > diagram.width) {
    const span = state.u1 - state.u0;
    const u = state.scale.u(e.timeMs);
    setView(u - span / 2, u + span / 2);
  }
  draw();
  const wrapRect = wrap.getBoundingClientRect();
  let p = clientOf(i);
  if (p.y < wrapRect.top || p.y > wrapRect.bottom) {
    wrap.scrollTop += p.y - (wrapRect.top + wrapRect.bottom) / 2;
    p = clientOf(i);
  }
  showTooltip(i, p.x, p.y, true);
}

let drag: { x: number; u0: number; u1: number; moved: boolean } | null = null;
wrap.addEventListener("mousedown", (ev) => {
  drag = { x: ev.clientX, u0: state.u0, u1: state.u1, moved: false };
});
window.addEventListener("mousemove", (ev) => {
  if (drag !== null) {
    const dx = ev.clientX - drag.x;
    if (Math.abs(dx) > 3) {
      drag.moved = true;
      wrap.classList.add("dragging");
    }
    if (drag.moved) {
      const du = (dx / diagram.width) * (drag.u1 - drag.u0);
      setView(drag.u0 - du, drag.u1 - du);
      drawSoon();
      return;
    }
  }
  if (tooltip.className === "pinned") return;
  const r = canvas.getBoundingClientRect();
  const i = nearest(ev.clientX - r.left, ev.clientY - r.top);
  if (i >= 0 && ev.target === canvas) showTooltip(i, ev.clientX, ev.clientY, false);
  else hideTooltip();
});
window.addEventListener("mouseup", (ev) => {
  if (drag === null) return;
  const wasDrag = drag.moved;
  drag = null;
  wrap.classList.remove("dragging");
  if (wasDrag || ev.target !== canvas) return;
  const r = canvas.getBoundingClientRect();
  const i = nearest(ev.clientX - r.left, ev.clientY - r.top);
  state.selected = i;
  draw();
  if (i >= 0) showTooltip(i, ev.clientX, ev.clientY, true);
  else hideTooltip();
});
wrap.addEventListener(
  "wheel",
  (ev) => {
    ev.preventDefault();
    const r = canvas.getBoundingClientRect();
    if (ev.shiftKey) {
      const du = ((ev.deltaY || ev.deltaX) / diagram.width) * (state.u1 - state.u0);
      setView(state.u0 + du, state.u1 + du);
      drawSoon();
    } else zoom(Math.pow(1.0015, ev.deltaY), ev.clientX - r.left, true);
  },
  { passive: false },
);
toolbar.addEventListener("click", (ev) => {
  const action = (ev.target as Element | null)?.getAttribute?.("data-action");
  if (action === "zoom-in") zoom(0.5);
  else if (action === "zoom-out") zoom(2);
  else if (action === "fit") fit();
  else if (action === "failure") goToFailure();
  else if (action === "story") setMode(!state.story);
});

function runSearch(): void {
  const q = search.value.trim().toLowerCase();
  if (!q) {
    state.matches = null;
    matchList = [];
    searchInfo.textContent = "";
    draw();
    return;
  }
  const matches = new Uint8Array(events.length);
  matchList = [];
  searchText ??= events.map((e) =>
    `${e.name} ${e.kind} ${lanes[e.lane]!.label} ${JSON.stringify(e.fields)}`.toLowerCase(),
  );
  for (const [i, text] of searchText.entries())
    if (text.includes(q)) {
      matches[i] = 1;
      matchList.push(i);
    }
  state.matches = matches;
  matchAt = -1;
  searchInfo.textContent = `${count(matchList.length)} match${matchList.length === 1 ? "" : "es"}`;
  draw();
}
search.addEventListener("input", runSearch);
search.addEventListener("keydown", (ev) => {
  if (ev.key !== "Enter" || matchList.length === 0) return;
  matchAt = (matchAt + 1) % matchList.length;
  searchInfo.textContent = `${matchAt + 1} of ${count(matchList.length)}`;
  select(matchList[matchAt]!);
});
window.addEventListener("resize", () => {
  diagram.resize(wrap.clientWidth);
  draw();
});

placeLanes();
diagram.resize(wrap.clientWidth);
if (state.story) {
  const [u0, u1] = storyFrame(state.scale, storyTimes, data.failure?.timeMs ?? null);
  setView(u0, u1);
} else setView(uMin(), uMin() + (uMax() - uMin()) * 1.02);
draw();
stats.firstRenderMs = performance.now() - startedAt;
// performance.now() counts from the start of navigation: the time until the diagram was first on screen.
stats.drawnAtMs = performance.now();

/** The page's scripting handle: where an event is drawn, select it, what was drawn, the mode. */
(window as unknown as { moonpoolTimeline: unknown }).moonpoolTimeline = {
  stats: () => JSON.parse(JSON.stringify(stats)) as Stats,
  locate: (seq: number) => {
    const i = indexOfSeq(seq);
    return i < 0 ? null : clientOf(i);
  },
  select: (seq: number) => {
    const i = indexOfSeq(seq);
    if (i >= 0) select(i);
  },
  showRange,
  /** `"story"`: the failure's causal slice; `"all"`: every event. */
  setMode: (mode: "story" | "all") => setMode(mode === "story"),
  goToFailure,
  /** The page's data with its events unpacked. */
  data: () => data,
  /** The top of the diagram's axis, for screenshots. */
  axisHeight: AXIS_H,
};
document.body.setAttribute("data-ready", "true");
