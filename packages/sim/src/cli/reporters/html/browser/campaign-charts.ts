/**
 * The campaign page's small drawings: proportion bars and bar or line charts with axis labels.
 */
import { count, el, svg } from "./common.ts";

/** A bar of parts, each a fraction of the whole. */
export function bar(parts: any, title?: any) {
  const node = el("span", { class: "bar", title: title || "" });
  let left = 0;
  parts.forEach((p: any) => {
    if (p.fraction <= 0) return;
    node.appendChild(
      el("span", {
        class: p.cls,
        style: "left:" + (left * 100).toFixed(2) + "%;width:" + (p.fraction * 100).toFixed(2) + "%",
      }),
    );
    left += p.fraction;
  });
  return node;
}

/** A small chart: points [x, y] as bars or a line, with axis labels. */
export function chart(title: any, points: any, options: any) {
  const w = 420,
    h = 170,
    pl = 46,
    pr = 10,
    pt = 22,
    pb = 26;
  const node = svg("svg", {
    class: "chart",
    width: w,
    height: h,
    viewBox: "0 0 " + w + " " + h,
    "data-chart": options.id,
  });
  node.appendChild(svg("text", { x: pl, y: 14, style: "font-weight:600;fill:#1d2330" }, title));
  const xs = points.map((p: any) => {
      return p[0];
    }),
    ys = points.map((p: any) => {
      return p[1];
    });
  const xMin = options.xMin !== undefined ? options.xMin : Math.min.apply(null, xs.concat([0]));
  const xMax = Math.max.apply(null, xs.concat([xMin + 1]));
  const yMax = options.yMax !== undefined ? options.yMax : Math.max.apply(null, ys.concat([1]));
  const X = (x: any) => {
    return pl + ((x - xMin) / (xMax - xMin || 1)) * (w - pl - pr);
  };
  const Y = (y: any) => {
    return h - pb - (y / yMax) * (h - pt - pb);
  };
  (node as any).__scale = (x: any, y: any) => {
    return [X(x), Y(y)];
  };
  node.appendChild(svg("line", { x1: pl, y1: h - pb, x2: w - pr, y2: h - pb, stroke: "#c9ced8" }));
  node.appendChild(svg("line", { x1: pl, y1: pt, x2: pl, y2: h - pb, stroke: "#c9ced8" }));
  node.appendChild(
    svg("text", { x: pl - 4, y: pt + 4, "text-anchor": "end" }, options.yFormat ? options.yFormat(yMax) : count(yMax)),
  );
  node.appendChild(svg("text", { x: pl - 4, y: h - pb, "text-anchor": "end" }, "0"));
  node.appendChild(svg("text", { x: pl, y: h - 8 }, String(xMin)));
  node.appendChild(
    svg("text", { x: w - pr, y: h - 8, "text-anchor": "end" }, count(xMax) + " " + (options.xLabel || "")),
  );
  if (options.kind === "line") {
    const d = points
      .map((p: any, i: any) => {
        return (i ? "L" : "M") + X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1);
      })
      .join("");
    node.appendChild(svg("path", { d: d, fill: "none", stroke: "#2f6fdb", "stroke-width": 1.5 }));
  } else {
    const bw = Math.max(1, (w - pl - pr) / Math.max(points.length, 1) - 1);
    points.forEach((p: any, i: any) => {
      const x = pl + i * (bw + 1);
      const color = options.color ? options.color(i) : "#2f6fdb";
      node.appendChild(
        svg(
          "rect",
          {
            x: x.toFixed(1),
            y: Y(p[1]).toFixed(1),
            width: bw.toFixed(1),
            height: (h - pb - Y(p[1])).toFixed(1),
            fill: color,
          },
          svg("title", {}, options.tip ? options.tip(i) : p[0] + ": " + p[1]),
        ),
      );
    });
  }
  return node;
}
