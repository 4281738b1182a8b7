// The campaign page: outcome, failures by property, assertion and code coverage, seeds and exploration charts.
"use strict";
(function () {
  var M = Moonpool,
    el = M.el,
    svg = M.svg;
  var data = M.data();
  var KIND_ORDER = [
    "always",
    "alwaysOrUnreachable",
    "unreachable",
    "numericAlways",
    "sometimes",
    "reachable",
    "numericSometimes",
    "sometimesAll",
  ];
  var STATUS_ORDER = ["FAIL", "MISS", "PASS"];
  var SAFETY = { always: 1, alwaysOrUnreachable: 1, unreachable: 1, numericAlways: 1 };

  function bar(parts, title) {
    var node = el("span", { class: "bar", title: title || "" });
    var left = 0;
    parts.forEach(function (p) {
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

  function statusBadge(status) {
    return el("span", { class: "badge " + (status === "PASS" ? "pass" : status === "FAIL" ? "fail" : "miss") }, status);
  }

  function coverageTable(sim) {
    var details = sim.assertionDetails.slice().sort(function (a, b) {
      return (
        KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
        STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
        (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)
      );
    });
    var rows = details.map(function (d) {
      var total = d.passCount + d.failCount;
      var visual, figures;
      if (SAFETY[d.kind]) {
        visual = bar(
          [
            { cls: "ok", fraction: total ? d.passCount / total : 0 },
            { cls: "bad", fraction: total ? d.failCount / total : 0 },
          ],
          d.failCount + " violation(s) in " + total + " evaluation(s)",
        );
        figures = M.count(total) + " evaluated, " + M.count(d.failCount) + " violated";
      } else if (d.kind === "sometimesAll") {
        var frac = d.propositions ? (d.frontier || 0) / d.propositions : 0;
        visual = bar([{ cls: "hit", fraction: frac }], "frontier " + (d.frontier || 0) + " of " + d.propositions);
        figures = M.count(d.passCount) + " calls, frontier " + (d.frontier || 0) + "/" + d.propositions;
      } else {
        visual = bar(
          [{ cls: "hit", fraction: total ? d.passCount / total : 0 }],
          "hit " + d.passCount + " of " + total,
        );
        figures =
          M.count(d.passCount) +
          " / " +
          M.count(total) +
          " hit (" +
          (total ? ((100 * d.passCount) / total).toFixed(1) : "0.0") +
          "%)";
      }
      if (d.neverReached) figures = "never reached (" + d.neverReached + ")";
      var watermark = d.watermark === null || d.watermark === undefined ? "" : String(d.watermark);
      var first = sim.sometimesFirstReached.filter(function (r) {
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
          ["status", "kind", "assertion", "", "evaluations", "watermark", "first reached"].map(function (h) {
            return el("th", {}, h);
          }),
        ),
      ),
      el("tbody", {}, rows),
    );
  }

  function bucketTable(sim) {
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
          ["sometimes-each site", "buckets", "hits", "buckets by hits"].map(function (h) {
            return el("th", {}, h);
          }),
        ),
      ),
      el(
        "tbody",
        {},
        sim.bucketSummaries.map(function (b) {
          var max = b.buckets.reduce(function (m, x) {
            return Math.max(m, x.hits);
          }, 1);
          var grid = el(
            "span",
            { class: "grid" },
            b.buckets.slice(0, 128).map(function (x) {
              var identity = Object.keys(x.identity)
                .map(function (k) {
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
            el("td", { class: "num" }, M.count(b.bucketsDiscovered)),
            el("td", { class: "num" }, M.count(b.totalHits)),
            el("td", {}, grid),
          );
        }),
      ),
    );
  }

  /** A small chart: points [x, y] as bars or a line, with axis labels. */
  function chart(title, points, options) {
    var w = 420,
      h = 170,
      pl = 46,
      pr = 10,
      pt = 22,
      pb = 26;
    var node = svg("svg", {
      class: "chart",
      width: w,
      height: h,
      viewBox: "0 0 " + w + " " + h,
      "data-chart": options.id,
    });
    node.appendChild(svg("text", { x: pl, y: 14, style: "font-weight:600;fill:#1d2330" }, title));
    var xs = points.map(function (p) {
        return p[0];
      }),
      ys = points.map(function (p) {
        return p[1];
      });
    var xMin = options.xMin !== undefined ? options.xMin : Math.min.apply(null, xs.concat([0]));
    var xMax = Math.max.apply(null, xs.concat([xMin + 1]));
    var yMax = options.yMax !== undefined ? options.yMax : Math.max.apply(null, ys.concat([1]));
    var X = function (x) {
      return pl + ((x - xMin) / (xMax - xMin || 1)) * (w - pl - pr);
    };
    var Y = function (y) {
      return h - pb - (y / yMax) * (h - pt - pb);
    };
    node.__scale = function (x, y) {
      return [X(x), Y(y)];
    };
    node.appendChild(svg("line", { x1: pl, y1: h - pb, x2: w - pr, y2: h - pb, stroke: "#c9ced8" }));
    node.appendChild(svg("line", { x1: pl, y1: pt, x2: pl, y2: h - pb, stroke: "#c9ced8" }));
    node.appendChild(
      svg(
        "text",
        { x: pl - 4, y: pt + 4, "text-anchor": "end" },
        options.yFormat ? options.yFormat(yMax) : M.count(yMax),
      ),
    );
    node.appendChild(svg("text", { x: pl - 4, y: h - pb, "text-anchor": "end" }, "0"));
    node.appendChild(svg("text", { x: pl, y: h - 8 }, String(xMin)));
    node.appendChild(
      svg("text", { x: w - pr, y: h - 8, "text-anchor": "end" }, M.count(xMax) + " " + (options.xLabel || "")),
    );
    if (options.kind === "line") {
      var d = points
        .map(function (p, i) {
          return (i ? "L" : "M") + X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1);
        })
        .join("");
      node.appendChild(svg("path", { d: d, fill: "none", stroke: "#2f6fdb", "stroke-width": 1.5 }));
    } else {
      var bw = Math.max(1, (w - pl - pr) / Math.max(points.length, 1) - 1);
      points.forEach(function (p, i) {
        var x = pl + i * (bw + 1);
        var color = options.color ? options.color(i) : "#2f6fdb";
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

  /** Sometimes signals reached so far after each seed: a step line, one dot per newly reached signal. */
  function coverageOverSeeds(sim) {
    var reached = sim.sometimesFirstReached;
    var total = sim.assertionDetails.filter(function (d) {
      return d.kind === "sometimes" || d.kind === "reachable" || d.kind === "sometimesAll";
    }).length;
    var lastIndex = sim.seeds.reduce(function (m, s) {
      return Math.max(m, s.index);
    }, 0);
    var firstIndex = sim.seeds.reduce(function (m, s) {
      return Math.min(m, s.index);
    }, lastIndex);
    var points = [[firstIndex + 1, 0]],
      count = 0;
    reached.forEach(function (r) {
      points.push([r.seedIndex + 1, count]);
      count++;
      points.push([r.seedIndex + 1, count]);
    });
    points.push([lastIndex + 1, count]);
    var node = chart("sometimes signals reached over seeds (" + count + " of " + total + ")", points, {
      id: "coverage",
      kind: "line",
      xMin: firstIndex + 1,
      xLabel: "seeds",
      yMax: Math.max(total, 1),
    });
    reached.forEach(function (r) {
      var dot = node.ownerDocument.createElementNS("http://www.w3.org/2000/svg", "circle");
      var p = node.__scale(r.seedIndex + 1, reached.indexOf(r) + 1);
      dot.setAttribute("cx", p[0]);
      dot.setAttribute("cy", p[1]);
      dot.setAttribute("r", 3);
      dot.setAttribute("fill", "#2f6fdb");
      dot.appendChild(
        svg("title", {}, '"' + r.message + '" (' + r.kind + ") first reached by seed #" + (r.seedIndex + 1)),
      );
      node.appendChild(dot);
    });
    return node;
  }

  function kindBars(byKind) {
    var kinds = Object.keys(byKind);
    var max = kinds.reduce(function (m, k) {
      return Math.max(m, byKind[k]);
    }, 1);
    return el(
      "table",
      { class: "discoveries" },
      el(
        "tbody",
        {},
        kinds.map(function (k) {
          return el(
            "tr",
            {},
            el("td", { class: "mono" }, k),
            el("td", {}, bar([{ cls: "hit", fraction: byKind[k] / max }])),
            el("td", { class: "num" }, M.count(byKind[k])),
          );
        }),
      ),
    );
  }

  /** The recipes that led to each bug, as a tree of reseed points per root seed. */
  function recipeTree(bugs) {
    var roots = {};
    bugs.forEach(function (b) {
      var root = roots[b.seed] || (roots[b.seed] = { children: {}, bugs: [] });
      var node = root;
      (b.recipe ? b.recipe.split(/\s*->\s*/) : []).forEach(function (step) {
        node = node.children[step] || (node.children[step] = { children: {}, bugs: [] });
      });
      node.bugs.push(b);
    });
    function render(node) {
      var items = Object.keys(node.children).map(function (step) {
        var child = node.children[step];
        return el("li", {}, el("code", {}, step), child.bugs.map(bugLine), render(child));
      });
      return items.length ? el("ul", { class: "tree" }, items) : null;
    }
    function bugLine(b) {
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
      Object.keys(roots).map(function (seed) {
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

  function failingTimeline(t) {
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
      M.command(t.replayCommand),
      t.timelineHref
        ? el("a", { href: t.timelineHref, class: "timeline-link" }, "open the timeline of this seed →")
        : null,
    );
  }

  function failures(sim) {
    if (!sim.failureGroups.length) return null;
    return el(
      "div",
      { class: "failures" },
      el("h3", {}, "Failures by property"),
      sim.failureGroups.map(function (g) {
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

  function pct(c) {
    return c === null || c === undefined ? "-" : c.pct.toFixed(1) + "%";
  }

  function coverageCell(c) {
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
  function codeCoverage(sim) {
    var c = sim.codeCoverage;
    if (!c) return null;
    var cards = el(
      "div",
      { class: "cards" },
      [
        ["lines", pct(c.lines)],
        ["branches", pct(c.branches)],
        ["functions", pct(c.functions)],
        ["blocks", pct(c.blocks)],
      ].map(function (x) {
        return el("div", { class: "card" }, el("div", { class: "v" }, x[1]), el("div", { class: "k" }, x[0]));
      }),
    );
    var links = c.htmlHref
      ? el(
          "div",
          { class: "note" },
          el("a", { class: "coverage-link", href: c.htmlHref }, "coverage report by file and line"),
          " · ",
          el("a", { href: c.lcovHref }, "lcov.info"),
        )
      : el("div", { class: "note" }, "line figures need the coverage folders of the merged shards");
    var files = c.lowestFiles.length
      ? el(
          "table",
          { class: "code-coverage-table" },
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              ["file (lowest coverage of " + c.fileCount + ")", "lines", "branches", "functions"].map(function (h) {
                return el("th", {}, h);
              }),
            ),
          ),
          el(
            "tbody",
            {},
            c.lowestFiles.map(function (f) {
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

  function simulation(sim) {
    var avgSim = sim.seeds.length
      ? sim.seeds.reduce(function (s, x) {
          return s + x.simulatedTimeMs;
        }, 0) / sim.seeds.length
      : 0;
    var cards = el(
      "div",
      { class: "cards" },
      [
        ["seeds", M.count(sim.iterations)],
        ["passed", M.count(sim.successfulRuns)],
        ["failed", M.count(sim.failedRuns)],
        ["wall time", M.duration(sim.totalWallTimeMs)],
        ["avg simulated time", M.duration(avgSim)],
        ["violations", M.count(sim.assertionViolations.length)],
        ["coverage gaps", M.count(sim.coverageViolations.length)],
      ].map(function (c) {
        return el("div", { class: "card" }, el("div", { class: "v" }, c[1]), el("div", { class: "k" }, c[0]));
      }),
    );
    var charts = el(
      "div",
      { class: "charts" },
      chart(
        "simulated time per seed (red: failed)",
        sim.seeds.map(function (s) {
          return [s.index + 1, s.simulatedTimeMs];
        }),
        {
          id: "seeds",
          xMin: 1,
          xLabel: "seeds",
          yFormat: M.duration,
          color: function (i) {
            return sim.seeds[i].ok ? "#8fb4ee" : "#cf222e";
          },
          tip: function (i) {
            var s = sim.seeds[i];
            return (
              "#" +
              (s.index + 1) +
              " seed " +
              s.seed +
              ": " +
              (s.ok ? "passed" : "FAILED") +
              ", " +
              M.duration(s.simulatedTimeMs) +
              ", " +
              M.count(s.eventsProcessed) +
              " events"
            );
          },
        },
      ),
    );
    if (
      sim.assertionDetails.some(function (d) {
        return d.kind === "sometimes" || d.kind === "reachable" || d.kind === "sometimesAll";
      })
    ) {
      charts.appendChild(coverageOverSeeds(sim));
    }
    var x = sim.exploration;
    var exploration = null;
    if (x) {
      var perSeed = x.perSeed.map(function (p) {
        return [p.seed, p.timelines];
      });
      var cumulative = 0;
      charts.appendChild(
        chart(
          "timelines explored (cumulative, per root seed)",
          perSeed.map(function (p, i) {
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
            x.frontierSizes.map(function (p) {
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
          M.count(x.timelines) +
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
    var sat = sim.saturation;
    // The adaptive campaign's split of its budget between fresh root seeds and continuations.
    var budget = sim.campaign;
    var armLine = function (name, a) {
      return (
        name +
        ": " +
        a.timelines +
        " timelines, " +
        a.discoveries +
        " discoveries, " +
        a.failures +
        " failing" +
        (a.firstFailureAtTimeline === null ? "" : " (first at timeline " + a.firstFailureAtTimeline + ")")
      );
    };
    var budgetSection = budget
      ? el(
          "div",
          { class: "campaign-budget" },
          el("h3", {}, "Campaign budget"),
          el(
            "div",
            { class: "note" },
            budget.timelines + " of " + budget.budgetTimelines + " timelines: " + budget.stopReason,
          ),
          el("div", { class: "note" }, armLine("Fresh root seeds", budget.arms.fresh)),
          el("div", { class: "note" }, armLine("Continuations", budget.arms.continuation)),
        )
      : null;
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
      budgetSection,
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

  var failed = data.simulations.filter(function (s) {
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
      el(
        "div",
        { class: "sub" },
        data.generatedBy + (data.wallTimeMs !== null ? " · " + M.duration(data.wallTimeMs) : ""),
      ),
    ),
  );
  document.body.appendChild(el("main", {}, data.simulations.map(simulation)));
  document.body.setAttribute("data-ready", "true");
})();
