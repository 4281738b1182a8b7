/**
 * The campaign page: outcome, failures by property, assertion and code coverage, seeds and
 * exploration charts. Its data (campaign-data.ts) is read as loosely typed JSON.
 */
import { bar, chart } from "./campaign-charts.ts";
import { command, count, duration, el, pageData, svg } from "./common.ts";

const data = pageData<any>();
const KIND_ORDER = [
  "always",
  "alwaysOrUnreachable",
  "unreachable",
  "numericAlways",
  "sometimes",
  "reachable",
  "numericSometimes",
  "sometimesAll",
];
const STATUS_ORDER = ["FAIL", "MISS", "PASS"];
const SAFETY: Record<string, number> = { always: 1, alwaysOrUnreachable: 1, unreachable: 1, numericAlways: 1 };

function statusBadge(status: any) {
  return el("span", { class: "badge " + (status === "PASS" ? "pass" : status === "FAIL" ? "fail" : "miss") }, status);
}

function coverageTable(sim: any) {
  const details = sim.assertionDetails.slice().sort((a: any, b: any) => {
    return (
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)
    );
  });
  const rows = details.map((d: any) => {
    const total = d.passCount + d.failCount;
    let visual: HTMLElement;
    let figures: string;
    if (SAFETY[d.kind]) {
      visual = bar(
        [
          { cls: "ok", fraction: total ? d.passCount / total : 0 },
          { cls: "bad", fraction: total ? d.failCount / total : 0 },
        ],
        d.failCount + " violation(s) in " + total + " evaluation(s)",
      );
      figures = count(total) + " evaluated, " + count(d.failCount) + " violated";
    } else if (d.kind === "sometimesAll") {
      const frac = d.propositions ? (d.frontier || 0) / d.propositions : 0;
      visual = bar([{ cls: "hit", fraction: frac }], "frontier " + (d.frontier || 0) + " of " + d.propositions);
      figures = count(d.passCount) + " calls, frontier " + (d.frontier || 0) + "/" + d.propositions;
    } else {
      visual = bar([{ cls: "hit", fraction: total ? d.passCount / total : 0 }], "hit " + d.passCount + " of " + total);
      figures =
        count(d.passCount) +
        " / " +
        count(total) +
        " hit (" +
        (total ? ((100 * d.passCount) / total).toFixed(1) : "0.0") +
        "%)";
    }
    if (d.neverReached) figures = "never reached (" + d.neverReached + ")";
    const watermark = d.watermark === null || d.watermark === undefined ? "" : String(d.watermark);
    const first = sim.sometimesFirstReached.filter((r: any) => {
      return r.message === d.message;
    })[0];
    return el(
      "tr",
      { "data-kind": d.kind, "data-status": d.status },
      el("td", {}, statusBadge(d.status)),
      el("td", { class: "mono" }, d.kind),
      el("td", {}, d.message),
      el("td", {}, visual),
      el("td", { class: "num" }, figures),
      el("td", { class: "num mono" }, watermark),
      el("td", { class: "num" }, first ? "seed #" + (first.seedIndex + 1) : ""),
    );
  });
  return el(
    "table",
    { class: "coverage-table" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["status", "kind", "assertion", "", "evaluations", "watermark", "first reached"].map((h: any) => {
          return el("th", {}, h);
        }),
      ),
    ),
    el("tbody", {}, rows),
  );
}

function bucketTable(sim: any) {
  if (!sim.bucketSummaries.length) return null;
  return el(
    "table",
    { class: "bucket-table" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["sometimes-each site", "buckets", "hits", "buckets by hits"].map((h: any) => {
          return el("th", {}, h);
        }),
      ),
    ),
    el(
      "tbody",
      {},
      sim.bucketSummaries.map((b: any) => {
        const max = b.buckets.reduce((m: any, x: any) => {
          return Math.max(m, x.hits);
        }, 1);
        const grid = el(
          "span",
          { class: "grid" },
          b.buckets.slice(0, 128).map((x: any) => {
            const identity = Object.keys(x.identity)
              .map((k: any) => {
                return k + "=" + x.identity[k];
              })
              .join(", ");
            return el("i", {
              title: identity + ": " + x.hits + " hits",
              style: "opacity:" + (0.25 + (0.75 * x.hits) / max).toFixed(2),
            });
          }),
        );
        return el(
          "tr",
          {},
          el("td", {}, b.message),
          el("td", { class: "num" }, count(b.bucketsDiscovered)),
          el("td", { class: "num" }, count(b.totalHits)),
          el("td", {}, grid),
        );
      }),
    ),
  );
}

/** Sometimes signals reached so far after each seed: a step line, one dot per newly reached signal. */
function coverageOverSeeds(sim: any) {
  const reached = sim.sometimesFirstReached;
  const total = sim.assertionDetails.filter((d: any) => {
    return d.kind === "sometimes" || d.kind === "reachable" || d.kind === "sometimesAll";
  }).length;
  const lastIndex = sim.seeds.reduce((m: any, s: any) => {
    return Math.max(m, s.index);
  }, 0);
  const firstIndex = sim.seeds.reduce((m: any, s: any) => {
    return Math.min(m, s.index);
  }, lastIndex);
  let points = [[firstIndex + 1, 0]],
    count = 0;
  reached.forEach((r: any) => {
    points.push([r.seedIndex + 1, count]);
    count++;
    points.push([r.seedIndex + 1, count]);
  });
  points.push([lastIndex + 1, count]);
  const node = chart("sometimes signals reached over seeds (" + count + " of " + total + ")", points, {
    id: "coverage",
    kind: "line",
    xMin: firstIndex + 1,
    xLabel: "seeds",
    yMax: Math.max(total, 1),
  });
  reached.forEach((r: any) => {
    const dot = node.ownerDocument.createElementNS("http://www.w3.org/2000/svg", "circle");
    const p = (node as any).__scale(r.seedIndex + 1, reached.indexOf(r) + 1);
    dot.setAttribute("cx", p[0]);
    dot.setAttribute("cy", p[1]);
    dot.setAttribute("r", "3");
    dot.setAttribute("fill", "#2f6fdb");
    dot.appendChild(
      svg("title", {}, '"' + r.message + '" (' + r.kind + ") first reached by seed #" + (r.seedIndex + 1)),
    );
    node.appendChild(dot);
  });
  return node;
}

function kindBars(byKind: any) {
  const kinds = Object.keys(byKind);
  const max = kinds.reduce((m: any, k: any) => {
    return Math.max(m, byKind[k]);
  }, 1);
  return el(
    "table",
    { class: "discoveries" },
    el(
      "tbody",
      {},
      kinds.map((k: any) => {
        return el(
          "tr",
          {},
          el("td", { class: "mono" }, k),
          el("td", {}, bar([{ cls: "hit", fraction: byKind[k] / max }])),
          el("td", { class: "num" }, count(byKind[k])),
        );
      }),
    ),
  );
}

/** The recipes that led to each bug, as a tree of reseed points per root seed. */
function recipeTree(bugs: any) {
  const roots: Record<string, any> = {};
  bugs.forEach((b: any) => {
    const root = roots[b.seed] || (roots[b.seed] = { children: {}, bugs: [] });
    let node = root;
    (b.recipe ? b.recipe.split(/\s*->\s*/) : []).forEach((step: any) => {
      node = node.children[step] || (node.children[step] = { children: {}, bugs: [] });
    });
    node.bugs.push(b);
  });
  function render(node: any): any {
    const items: any[] = Object.keys(node.children).map((step: any) => {
      const child = node.children[step];
      return el("li", {}, el("code", {}, step), child.bugs.map(bugLine), render(child));
    });
    return items.length ? el("ul", { class: "tree" }, items) : null;
  }
  function bugLine(b: any) {
    return el(
      "div",
      {},
      el("span", { class: "badge fail" }, "bug"),
      " ",
      b.property,
      el("span", { class: "note" }, " (timeline " + b.foundAtTimeline + ")"),
    );
  }
  return el(
    "div",
    { class: "recipe-tree" },
    Object.keys(roots).map((seed: any) => {
      return el(
        "div",
        {},
        el("div", { class: "mono" }, "root seed " + seed),
        roots[seed].bugs.map(bugLine),
        render(roots[seed]),
      );
    }),
  );
}

function failingTimeline(t: any) {
  return el(
    "div",
    {},
    el(
      "div",
      { class: "note" },
      "seed " +
        t.seed +
        " (#" +
        (t.index + 1) +
        ")" +
        (t.recipe ? ', recipe "' + t.recipe + '"' : "") +
        ": " +
        t.message,
    ),
    command(t.replayCommand),
    t.timelineHref
      ? el("a", { href: t.timelineHref, class: "timeline-link" }, "open the timeline of this seed →")
      : null,
  );
}

function failures(sim: any) {
  if (!sim.failureGroups.length) return null;
  return el(
    "div",
    { class: "failures" },
    el("h3", {}, "Failures by property"),
    sim.failureGroups.map((g: any) => {
      return el(
        "div",
        { class: "failure-group" },
        el(
          "div",
          { class: "prop" },
          g.property,
          el("span", { class: "note" }, "  " + g.timelines.length + " failing timeline(s)"),
        ),
        g.timelines.slice(0, 2).map(failingTimeline),
        g.timelines.length > 2
          ? el(
              "details",
              {},
              el("summary", { class: "note" }, g.timelines.length - 2 + " more failing timeline(s)"),
              g.timelines.slice(2, 50).map(failingTimeline),
              g.timelines.length > 50
                ? el("div", { class: "note" }, g.timelines.length - 50 + " more in the JSON report")
                : null,
            )
          : null,
      );
    }),
  );
}

function pct(c: any) {
  return c === null || c === undefined ? "-" : c.pct.toFixed(1) + "%";
}

function coverageCell(c: any) {
  if (c === null || c === undefined) return el("td", { class: "num" }, "-");
  return el(
    "td",
    { class: "num" },
    bar([{ cls: "hit", fraction: c.total ? c.covered / c.total : 1 }], c.covered + " of " + c.total),
    " " + pct(c),
  );
}

// Code coverage of the system under test (moonpool run --coverage): figures, the lowest-covered
// files and links to the full coverage view.
function codeCoverage(sim: any) {
  const c = sim.codeCoverage;
  if (!c) return null;
  const cards = el(
    "div",
    { class: "cards" },
    [
      ["lines", pct(c.lines)],
      ["branches", pct(c.branches)],
      ["functions", pct(c.functions)],
      ["blocks", pct(c.blocks)],
    ].map((x: any) => {
      return el("div", { class: "card" }, el("div", { class: "v" }, x[1]), el("div", { class: "k" }, x[0]));
    }),
  );
  const links = c.htmlHref
    ? el(
        "div",
        { class: "note" },
        el("a", { class: "coverage-link", href: c.htmlHref }, "coverage report by file and line"),
        " · ",
        el("a", { href: c.lcovHref }, "lcov.info"),
      )
    : el("div", { class: "note" }, "line figures need the coverage folders of the merged shards");
  const files = c.lowestFiles.length
    ? el(
        "table",
        { class: "code-coverage-table" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            ["file (lowest coverage of " + c.fileCount + ")", "lines", "branches", "functions"].map((h: any) => {
              return el("th", {}, h);
            }),
          ),
        ),
        el(
          "tbody",
          {},
          c.lowestFiles.map((f: any) => {
            return el(
              "tr",
              {},
              el("td", { class: "mono" }, f.file),
              coverageCell(f.lines),
              coverageCell(f.branches),
              coverageCell(f.functions),
            );
          }),
        ),
      )
    : null;
  return el("div", { class: "code-coverage" }, el("h3", {}, "Code coverage"), cards, links, files);
}

function simulation(sim: any) {
  const avgSim = sim.seeds.length
    ? sim.seeds.reduce((s: any, x: any) => {
        return s + x.simulatedTimeMs;
      }, 0) / sim.seeds.length
    : 0;
  const cards = el(
    "div",
    { class: "cards" },
    [
      ["seeds", count(sim.iterations)],
      ["passed", count(sim.successfulRuns)],
      ["failed", count(sim.failedRuns)],
      ["wall time", duration(sim.totalWallTimeMs)],
      ["avg simulated time", duration(avgSim)],
      ["violations", count(sim.assertionViolations.length)],
      ["coverage gaps", count(sim.coverageViolations.length)],
    ].map((c: any) => {
      return el("div", { class: "card" }, el("div", { class: "v" }, c[1]), el("div", { class: "k" }, c[0]));
    }),
  );
  const charts = el(
    "div",
    { class: "charts" },
    chart(
      "simulated time per seed (red: failed)",
      sim.seeds.map((s: any) => {
        return [s.index + 1, s.simulatedTimeMs];
      }),
      {
        id: "seeds",
        xMin: 1,
        xLabel: "seeds",
        yFormat: duration,
        color: (i: any) => {
          return sim.seeds[i].ok ? "#8fb4ee" : "#cf222e";
        },
        tip: (i: any) => {
          const s = sim.seeds[i];
          return (
            "#" +
            (s.index + 1) +
            " seed " +
            s.seed +
            ": " +
            (s.ok ? "passed" : "FAILED") +
            ", " +
            duration(s.simulatedTimeMs) +
            ", " +
            count(s.eventsProcessed) +
            " events"
          );
        },
      },
    ),
  );
  if (
    sim.assertionDetails.some((d: any) => {
      return d.kind === "sometimes" || d.kind === "reachable" || d.kind === "sometimesAll";
    })
  ) {
    charts.appendChild(coverageOverSeeds(sim));
  }
  const x = sim.exploration;
  let exploration = null;
  if (x) {
    const perSeed = x.perSeed.map((p: any) => {
      return [p.seed, p.timelines];
    });
    let cumulative = 0;
    charts.appendChild(
      chart(
        "timelines explored (cumulative, per root seed)",
        perSeed.map((p: any, i: any) => {
          cumulative += p[1];
          return [i + 1, cumulative];
        }),
        { id: "timelines", kind: "line", xMin: 1, xLabel: "root seeds" },
      ),
    );
    if (x.frontierSizes.length)
      charts.appendChild(
        chart(
          "frontier size",
          x.frontierSizes.map((p: any) => {
            return [p[0], p[1]];
          }),
          { id: "frontier", kind: "line", xLabel: "timelines" },
        ),
      );
    exploration = el(
      "div",
      { class: "exploration" },
      el("h3", {}, "Exploration"),
      el(
        "div",
        { class: "note" },
        count(x.timelines) +
          " timelines, " +
          x.bugsFound +
          " bug(s), " +
          (100 * x.replayOverhead.replayedFraction).toFixed(1) +
          "% of draws replayed",
      ),
      el("h3", {}, "Discoveries by kind"),
      kindBars(x.discoveriesByKind),
      x.bugRecipes.length ? [el("h3", {}, "Recipes that led to each bug"), recipeTree(x.bugRecipes)] : null,
    );
  }
  const sat = sim.saturation;
  return el(
    "section",
    { class: "sim", "data-simulation": sim.name },
    el(
      "h2",
      {},
      sim.name,
      sim.expectFailure && sim.status === "passed"
        ? el("span", { class: "badge pass" }, "failed as expected")
        : el("span", { class: "badge " + (sim.status === "passed" ? "pass" : "fail") }, sim.status),
    ),
    el(
      "div",
      { class: "note" },
      sim.description + " · " + sim.file + (sim.stoppedBy ? " · stopped by " + sim.stoppedBy : ""),
    ),
    cards,
    failures(sim),
    el("h3", {}, "Assertion coverage"),
    sat
      ? el(
          "div",
          { class: "note" },
          (sat.saturated ? "saturated" : "NOT saturated") +
            ": " +
            sat.sometimesHit +
            "/" +
            sat.sometimesTotal +
            " sometimes/reachable hit, stable for " +
            sat.plateauSeeds +
            " seeds (needs " +
            sat.requiredQuietSeeds +
            ")" +
            (sat.signals ? " · plateau signals: " + sat.signals.join(", ") : "") +
            (sat.stoppedBy && sat.stoppedBy.length ? " · stopped by " + sat.stoppedBy.join(", ") : ""),
        )
      : null,
    sim.assertionDetails.length ? coverageTable(sim) : el("div", { class: "note" }, "no assertions recorded"),
    bucketTable(sim),
    codeCoverage(sim),
    el("h3", {}, "Seeds"),
    charts,
    exploration,
  );
}

const failed = data.simulations.filter((s: any) => {
  return s.status === "failed";
}).length;
document.body.appendChild(
  el(
    "header",
    { class: "top" },
    el(
      "h1",
      {},
      "Simulations: " +
        (data.simulations.length - failed) +
        " passed, " +
        failed +
        " failed" +
        (data.interrupted ? " (interrupted)" : ""),
    ),
    el("div", { class: "sub" }, data.generatedBy + (data.wallTimeMs !== null ? " · " + duration(data.wallTimeMs) : "")),
  ),
);
document.body.appendChild(el("main", {}, data.simulations.map(simulation)));
document.body.setAttribute("data-ready", "true");
