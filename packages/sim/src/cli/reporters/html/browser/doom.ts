/**
 * The point of no return on the timeline page (`moonpool explain`'s data, when the page has it):
 * a small chart of the failure probability against the cut point after which the randomness was
 * changed, with its confidence interval, and the doomed window it names.
 */
import { duration, svg } from "./common.ts";
import type { PageDoom } from "./timeline-types.ts";

/** The doomed window in ms: from the last cut point that could still save the run to the first that never did. */
export function doomWindow(doom: PageDoom): { fromMs: number; toMs: number } {
  return { fromMs: doom.savedUntilUs / 1000, toMs: doom.doomedFromUs / 1000 };
}

/** The chart: one dot per cut point (failures / runs), a whisker for its interval, the window shaded. */
export function doomChart(doom: PageDoom): SVGElement {
  const w = 420;
  const h = 150;
  const pl = 40;
  const pr = 12;
  const pt = 22;
  const pb = 26;
  const points = [...doom.cutPoints].sort((a, b) => a.atUs - b.atUs);
  const { fromMs, toMs } = doomWindow(doom);
  const times = [...points.map((p) => p.atUs / 1000), fromMs, toMs];
  const xMin = Math.max(0, Math.min(...times));
  const xMax = Math.max(...times, xMin + 1);
  const X = (t: number) => pl + ((t - xMin) / (xMax - xMin)) * (w - pl - pr);
  const Y = (p: number) => h - pb - p * (h - pt - pb);
  const node = svg("svg", {
    class: "chart doom-chart",
    width: w,
    height: h,
    viewBox: `0 0 ${w} ${h}`,
    "data-chart": "doom",
  });
  node.appendChild(
    svg(
      "text",
      { x: pl, y: 14, style: "font-weight:600;fill:#1d2330" },
      "failure probability, randomness changed after t",
    ),
  );
  node.appendChild(
    svg("rect", {
      class: "doom-window",
      x: X(fromMs).toFixed(1),
      y: pt,
      width: Math.max(1, X(toMs) - X(fromMs)).toFixed(1),
      height: h - pt - pb,
      fill: "rgba(207,34,46,0.12)",
    }),
  );
  node.appendChild(svg("line", { x1: pl, y1: h - pb, x2: w - pr, y2: h - pb, stroke: "#c9ced8" }));
  node.appendChild(svg("line", { x1: pl, y1: pt, x2: pl, y2: h - pb, stroke: "#c9ced8" }));
  node.appendChild(svg("text", { x: pl - 4, y: pt + 4, "text-anchor": "end" }, "1"));
  node.appendChild(svg("text", { x: pl - 4, y: h - pb, "text-anchor": "end" }, "0"));
  node.appendChild(svg("text", { x: pl, y: h - 8 }, duration(xMin)));
  node.appendChild(svg("text", { x: w - pr, y: h - 8, "text-anchor": "end" }, duration(xMax)));
  const line = points
    .map(
      (p, i) =>
        `${i === 0 ? "M" : "L"}${X(p.atUs / 1000).toFixed(1)},${Y(p.runs > 0 ? p.failures / p.runs : 0).toFixed(1)}`,
    )
    .join("");
  node.appendChild(svg("path", { d: line, fill: "none", stroke: "#cf222e", "stroke-width": 1.5 }));
  for (const p of points) {
    const x = X(p.atUs / 1000);
    const share = p.runs > 0 ? p.failures / p.runs : 0;
    node.appendChild(
      svg("line", { x1: x, y1: Y(p.low), x2: x, y2: Y(p.high), stroke: "#cf222e", "stroke-opacity": 0.5 }),
    );
    node.appendChild(
      svg(
        "circle",
        { class: "cut-point", cx: x.toFixed(1), cy: Y(share).toFixed(1), r: 3, fill: "#cf222e" },
        svg(
          "title",
          {},
          `after ${duration(p.atUs / 1000)}: ${p.failures} of ${p.runs} runs failed (${p.low.toFixed(2)}–${p.high.toFixed(2)})`,
        ),
      ),
    );
  }
  return node;
}
