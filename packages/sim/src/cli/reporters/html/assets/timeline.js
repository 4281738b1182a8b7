// The timeline page: a space-time diagram of one seed drawn on a canvas (lanes = actors, time
// rightwards), so that tens of thousands of events stay fluid. Only what is on screen is drawn,
// one mark per lane, pixel column and kind.
"use strict";
(function () {
  var startedAt = performance.now();
  var M = Moonpool,
    el = M.el;
  var data = M.data();
  var COLORS = {
    message: "#2f6fdb",
    process: "#8250df",
    partition: "#d4600b",
    fault: "#b26b00",
    failure: "#cf222e",
    fact: "#57606a",
    console: "#8c959f",
  };
  var CATEGORY_LABELS = {
    message: "messages",
    process: "process lifecycle",
    partition: "partitions",
    fault: "injected faults",
    failure: "failures",
    fact: "trace facts",
    console: "console",
  };
  var LANE_H = 30,
    GROUP_H = 20,
    AXIS_H = 26;
  // Events arrive as rows with their strings in one table (see packTimelineEvents).
  var strings = data.packedEvents.strings;
  data.events = data.packedEvents.rows.map(function (r) {
    return {
      seq: r[0],
      timeMs: r[1],
      lane: r[2],
      level: strings[r[3]],
      name: strings[r[4]],
      kind: strings[r[5]],
      category: strings[r[6]],
      fields: r[7],
    };
  });
  var events = data.events,
    lanes = data.lanes,
    arrows = data.arrows;

  // ---- header, toolbar ------------------------------------------------------------------------
  var endMs = Math.max(
    data.simulatedTimeMs,
    events.length ? events[events.length - 1].timeMs : 0,
    data.failure ? data.failure.timeMs : 0,
    1,
  );
  var header = el(
    "header",
    { class: "top" },
    el(
      "h1",
      {},
      data.simulation + " · seed " + data.seed + " ",
      el("span", { class: "badge " + (data.ok ? "pass" : "fail") }, data.ok ? "passed" : "failed"),
    ),
    el(
      "div",
      { class: "sub" },
      (data.recipe ? 'recipe "' + data.recipe + '" · ' : "") +
        "simulated " +
        M.duration(data.simulatedTimeMs) +
        " · " +
        M.count(events.length) +
        " events · " +
        M.count(arrows.length) +
        " arrows · trace hash " +
        data.traceHash,
    ),
    data.failures.map(function (f) {
      return el(
        "div",
        { class: "failure-text" },
        el("span", { class: "badge fail" }, f.kind),
        " ",
        f.message,
        f.actor ? " (actor " + f.actor + ")" : "",
        " at " + M.duration(f.timeMs),
      );
    }),
    M.command(data.replayCommand),
  );
  document.body.appendChild(header);

  var categories = {},
    kinds = {};
  events.forEach(function (e) {
    categories[e.category] = (categories[e.category] || 0) + 1;
    var k = kinds[e.kind] || (kinds[e.kind] = { category: e.category, count: 0 });
    k.count++;
  });
  var enabledCategory = {},
    enabledKind = {};
  Object.keys(COLORS).forEach(function (c) {
    enabledCategory[c] = true;
  });
  Object.keys(kinds).forEach(function (k) {
    enabledKind[k] = true;
  });

  var search = el("input", {
    type: "search",
    placeholder: "search events (Enter: next)",
    "aria-label": "search events",
  });
  var searchInfo = el("span", { class: "note" });
  var toolbar = el(
    "div",
    { class: "toolbar" },
    el("button", { type: "button", "data-action": "zoom-in", title: "zoom in (or mouse wheel)" }, "+"),
    el("button", { type: "button", "data-action": "zoom-out", title: "zoom out" }, "−"),
    el("button", { type: "button", "data-action": "fit", title: "the whole run" }, "fit"),
    data.failure
      ? el("button", { type: "button", "data-action": "failure", title: "zoom to the failure" }, "go to failure")
      : null,
    search,
    searchInfo,
    Object.keys(COLORS)
      .filter(function (c) {
        return categories[c];
      })
      .map(function (c) {
        var box = el("input", { type: "checkbox", checked: "", "data-category": c });
        box.addEventListener("change", function () {
          enabledCategory[c] = box.checked;
          draw();
        });
        return el(
          "label",
          {},
          box,
          el("span", { class: "swatch", style: "background:" + COLORS[c] }),
          CATEGORY_LABELS[c] + " (" + M.count(categories[c]) + ")",
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
            "position:absolute;z-index:5;background:#fff;border:1px solid #e2e5ec;" +
            "padding:6px 10px;max-height:300px;overflow:auto",
        },
        Object.keys(kinds)
          .sort()
          .map(function (k) {
            var box = el("input", { type: "checkbox", checked: "", "data-kind": k });
            box.addEventListener("change", function () {
              enabledKind[k] = box.checked;
              draw();
            });
            return el(
              "div",
              {},
              el(
                "label",
                {},
                box,
                el("span", { class: "swatch", style: "background:" + COLORS[kinds[k].category] }),
                k + " (" + M.count(kinds[k].count) + ")",
              ),
            );
          }),
      ),
    ),
  );
  document.body.appendChild(toolbar);

  // ---- lanes ----------------------------------------------------------------------------------
  var laneY = [],
    groupRows = [],
    y = AXIS_H,
    lastGroup = null;
  lanes.forEach(function (lane, i) {
    if (lane.group !== lastGroup) {
      groupRows.push({ y: y, name: lane.group });
      y += GROUP_H;
      lastGroup = lane.group;
    }
    laneY.push(y + LANE_H / 2);
    y += LANE_H;
  });
  var contentH = y + 10;
  var labels = el("div", { class: "lane-labels" });
  groupRows.forEach(function (g) {
    labels.appendChild(
      el(
        "div",
        { class: "lane-group", style: "top:" + g.y + "px;height:" + GROUP_H + "px;line-height:" + GROUP_H + "px" },
        g.name,
      ),
    );
  });
  lanes.forEach(function (lane, i) {
    labels.appendChild(
      el(
        "div",
        {
          class: "lane-label",
          "data-lane": lane.id,
          title: lane.label,
          style: "top:" + (laneY[i] - LANE_H / 2) + "px;height:" + LANE_H + "px;line-height:" + LANE_H + "px",
        },
        lane.label,
      ),
    );
  });
  var laneById = {};
  lanes.forEach(function (lane, i) {
    laneById[lane.id] = i;
  });

  var canvas = el("canvas", { "aria-label": "space-time diagram" });
  var marker = data.failure
    ? el("div", { id: "failure-marker" }, "✗ " + (data.failures[0] ? data.failures[0].kind : "failure"))
    : null;
  var wrap = el(
    "div",
    { class: "canvas-wrap", style: "overflow-y:auto;overflow-x:hidden" },
    el("div", { class: "sizer", style: "position:relative;height:" + contentH + "px" }, canvas, marker),
  );
  var tooltip = el("div", { id: "tooltip", role: "tooltip" });
  var status = el("div", { class: "statusline" });
  document.body.appendChild(el("div", { class: "diagram" }, labels, wrap));
  document.body.appendChild(status);
  document.body.appendChild(tooltip);
  wrap.addEventListener("scroll", function () {
    labels.scrollTop = wrap.scrollTop;
  });
  labels.style.overflow = "hidden";
  labels.appendChild(el("div", { style: "position:absolute;top:" + contentH + "px;height:1px;width:1px" }));

  // ---- view -----------------------------------------------------------------------------------
  var view = { t0: -endMs * 0.01, t1: endMs * 1.02 };
  var width = 0,
    height = 0,
    dpr = window.devicePixelRatio || 1;
  var ctx = canvas.getContext("2d");
  var drawn = []; // [x, y, eventIndex] of the marks on screen, for hit-testing
  var stats = {
    lanes: lanes.length,
    marks: 0,
    arrows: 0,
    failure: false,
    events: events.length,
    firstRenderMs: null,
    drawnAtMs: null,
    lastDrawMs: null,
  };
  var selected = -1;
  var matches = null,
    matchList = [],
    matchAt = -1;
  // Built on the first search, so opening the page does not pay for it.
  var searchText = null;

  function resize() {
    width = Math.max(100, wrap.clientWidth);
    height = contentH;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  function X(t) {
    return ((t - view.t0) / (view.t1 - view.t0)) * width;
  }
  function T(x) {
    return view.t0 + (x / width) * (view.t1 - view.t0);
  }
  function firstAtOrAfter(t) {
    var lo = 0,
      hi = events.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (events[mid].timeMs < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  function visible(e) {
    return enabledCategory[e.category] && enabledKind[e.kind];
  }

  function niceStep(span) {
    var raw = span / 8,
      p = Math.pow(10, Math.floor(Math.log10(raw))),
      m = raw / p;
    return (m < 2 ? 2 : m < 5 ? 5 : 10) * p;
  }

  function drawAxis() {
    ctx.fillStyle = "#f6f7fa";
    ctx.fillRect(0, 0, width, AXIS_H);
    ctx.strokeStyle = "#e2e5ec";
    ctx.beginPath();
    ctx.moveTo(0, AXIS_H - 0.5);
    ctx.lineTo(width, AXIS_H - 0.5);
    ctx.stroke();
    var step = niceStep(view.t1 - view.t0);
    ctx.fillStyle = "#6b7385";
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      var x = Math.round(X(t)) + 0.5;
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
      ctx.fillText(M.duration(Math.abs(t) < step / 1e6 ? 0 : t), x + 3, AXIS_H / 2);
    }
  }

  // Marks and arrows are collected into batches of one style each, drawn as a few paths of at most
  // CHUNK shapes: one stroke per shape is slow, and so is one huge path of overlapping shapes.
  var CHUNK = 64,
    DENSE_EVENTS = 2000;
  function shapeOf(e) {
    if (e.category === "process") return /crash|kill|wipe/.test(e.kind) ? "cross" : "triangle";
    if (e.category === "failure") return "failure";
    if (e.category === "partition") return "square";
    if (e.category === "fault") return "down";
    return e.category === "fact" ? "dot" : "small";
  }
  // Fills close each shape themselves; an explicit closePath() is slow on a path of many shapes.
  function addShape(path, shape, x, yy) {
    switch (shape) {
      case "failure":
        path.moveTo(x + 7, yy);
        path.arc(x, yy, 7, 0, 6.283);
        break;
      case "cross":
        path.moveTo(x - 5, yy - 5);
        path.lineTo(x + 5, yy + 5);
        path.moveTo(x + 5, yy - 5);
        path.lineTo(x - 5, yy + 5);
        break;
      case "triangle":
        path.moveTo(x, yy - 7);
        path.lineTo(x + 6, yy + 5);
        path.lineTo(x - 6, yy + 5);
        break;
      case "square":
        path.rect(x - 4, yy - 4, 8, 8);
        break;
      case "down":
        path.moveTo(x, yy + 5);
        path.lineTo(x + 4, yy - 3);
        path.lineTo(x - 4, yy - 3);
        break;
      case "tiny":
        path.rect(x - 2.5, yy - 2.5, 5, 5);
        break;
      case "dot":
        path.moveTo(x + 4, yy);
        path.arc(x, yy, 4, 0, 6.283);
        break;
      default:
        path.moveTo(x + 3, yy);
        path.arc(x, yy, 3, 0, 6.283);
    }
  }
  function batch(batches, key, make) {
    var b = batches[key];
    if (!b) {
      b = batches[key] = make();
      b.paths = [new Path2D()];
      b.heads = [new Path2D()];
      b.count = 0;
    }
    return b;
  }
  /** The path the next shape of a batch goes into. */
  function pathOf(b, list) {
    if (b.count > 0 && b.count % CHUNK === 0 && list.length * CHUNK <= b.count) list.push(new Path2D());
    return list[list.length - 1];
  }
  function addArrow(b, x0, y0, x1, y1, headless) {
    var line = pathOf(b, b.paths),
      head = pathOf(b, b.heads);
    b.count++;
    line.moveTo(x0, y0);
    line.lineTo(x1, y1);
    if (headless) return;
    var a = Math.atan2(y1 - y0, x1 - x0);
    head.moveTo(x1, y1);
    head.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
    head.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
  }

  var maxSeq = events.reduce(function (m, e) {
    return Math.max(m, e.seq);
  }, 0);
  var indexBySeq = new Int32Array(maxSeq + 1).fill(-1);
  events.forEach(function (e, i) {
    indexBySeq[e.seq] = i;
  });
  function eventIndex(seq) {
    return seq >= 0 && seq <= maxSeq ? indexBySeq[seq] : -1;
  }

  var pending = 0;
  /** Redraws on the next frame (pointer moves and wheel turns come faster than frames). */
  function drawSoon() {
    if (!pending)
      pending = requestAnimationFrame(function () {
        pending = 0;
        draw();
      });
  }

  function draw() {
    var drawStart = performance.now();
    ctx.clearRect(0, 0, width, height);
    drawAxis();
    groupRows.forEach(function (g) {
      ctx.fillStyle = "#f6f7fa";
      ctx.fillRect(0, g.y, width, GROUP_H);
    });
    ctx.strokeStyle = "#d5d9e2";
    ctx.lineWidth = 1;
    var lanesPath = new Path2D();
    laneY.forEach(function (ly) {
      lanesPath.moveTo(0, Math.round(ly) + 0.5);
      lanesPath.lineTo(width, Math.round(ly) + 0.5);
    });
    ctx.stroke(lanesPath);
    // The failure line goes under everything else.
    stats.failure = false;
    if (data.failure) {
      var fx = X(data.failure.timeMs);
      if (fx >= -2 && fx <= width + 2) {
        ctx.fillStyle = "rgba(207,34,46,0.10)";
        ctx.fillRect(fx - 3, AXIS_H, 6, height - AXIS_H);
        ctx.strokeStyle = "#cf222e";
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.moveTo(fx, AXIS_H);
        ctx.lineTo(fx, height);
        ctx.stroke();
        ctx.lineWidth = 1;
        stats.failure = true;
        marker.style.display = "block";
        marker.style.left = fx + "px";
        marker.style.top = AXIS_H + 2 + "px";
      } else marker.style.display = "none";
    }
    // With thousands of events on screen, marks are squares and arrows lose their heads (both
    // unreadable at that density anyway), which keeps a redraw cheap without a GPU.
    var lo = firstAtOrAfter(view.t0 - (view.t1 - view.t0) * 0.005);
    var dense = firstAtOrAfter(view.t1) - lo > DENSE_EVENTS;
    // Arrows, one per pixel position.
    var arrowBatches = {},
      drawnArrows = 0,
      seenArrow = new Set();
    for (var a = 0; a < arrows.length; a++) {
      var ar = arrows[a];
      if (ar.toTimeMs < view.t0 || ar.fromTimeMs > view.t1) continue;
      var si = eventIndex(ar.seq),
        src = si >= 0 ? events[si] : null;
      if (src && !visible(src)) continue;
      var x0 = X(ar.fromTimeMs),
        x1 = X(ar.toTimeMs);
      var key = ((ar.fromLane * 4096 + ar.toLane) * 65536 + Math.round(x0)) * 65536 + Math.round(x1);
      if (seenArrow.has(key)) continue;
      seenArrow.add(key);
      var dim = matches !== null && !(si >= 0 && matches[si]);
      var category = src ? src.category : "message";
      var b = batch(arrowBatches, category + (ar.delivered ? "" : "-") + (dim ? "d" : ""), function () {
        return { color: COLORS[category], faint: !ar.delivered, dim: dim };
      });
      addArrow(b, x0, laneY[ar.fromLane], x1, laneY[ar.toLane], dense);
      drawnArrows++;
    }
    Object.keys(arrowBatches).forEach(function (k) {
      var b = arrowBatches[k];
      // Arrows not known to be delivered are fainter (dashes would cost too much when dense).
      ctx.globalAlpha = b.dim ? 0.12 : b.faint ? 0.45 : 0.75;
      ctx.strokeStyle = b.color;
      ctx.fillStyle = b.color;
      b.paths.forEach(function (path) {
        ctx.stroke(path);
      });
      b.heads.forEach(function (path) {
        ctx.fill(path);
      });
    });
    ctx.globalAlpha = 1;
    // Marks: one per lane, pixel column and kind.
    drawn = [];
    var seen = new Set(),
      markBatches = {},
      links = new Path2D(),
      rings = new Path2D(),
      kindIds = {},
      kindCount = 0;
    for (var i = lo; i < events.length; i++) {
      var e = events[i];
      if (e.timeMs > view.t1) break;
      if (!visible(e)) continue;
      var x = X(e.timeMs),
        ly = laneY[e.lane];
      if (e.category === "partition" && typeof e.fields.to === "string" && laneById[e.fields.to] !== undefined) {
        links.moveTo(x, ly);
        links.lineTo(x, laneY[laneById[e.fields.to]]);
      }
      var kid = kindIds[e.kind] === undefined ? (kindIds[e.kind] = kindCount++) : kindIds[e.kind];
      var k = (e.lane * 65536 + Math.round(x)) * 1024 + kid;
      if (seen.has(k) && i !== selected && e.category !== "failure") continue;
      seen.add(k);
      var dimmed = matches !== null && !matches[i];
      var shape = shapeOf(e);
      if (dense && (shape === "dot" || shape === "small" || shape === "down")) shape = "tiny";
      var mb = batch(markBatches, e.category + ":" + shape + (dimmed ? "d" : ""), function () {
        return { color: COLORS[e.category], shape: shape, dim: dimmed, category: e.category };
      });
      addShape(pathOf(mb, mb.paths), shape, x, ly);
      mb.count++;
      if (matches !== null && matches[i]) {
        rings.moveTo(x + 8, ly);
        rings.arc(x, ly, 8, 0, 6.283);
      }
      drawn.push([x, ly, i]);
    }
    ctx.strokeStyle = COLORS.partition;
    ctx.setLineDash([2, 3]);
    ctx.stroke(links);
    ctx.setLineDash([]);
    // Failures last, so nothing covers them.
    Object.keys(markBatches)
      .sort(function (p, q) {
        return (markBatches[p].category === "failure") - (markBatches[q].category === "failure");
      })
      .forEach(function (key) {
        var mb = markBatches[key];
        ctx.globalAlpha = mb.dim ? 0.18 : 1;
        ctx.fillStyle = mb.color;
        ctx.strokeStyle = mb.color;
        mb.paths.forEach(function (path) {
          if (mb.shape === "cross") {
            ctx.lineWidth = 2.5;
            ctx.stroke(path);
            ctx.lineWidth = 1;
          } else ctx.fill(path);
          if (mb.shape === "failure" && !mb.dim) {
            ctx.strokeStyle = "#fff";
            ctx.lineWidth = 1.5;
            ctx.stroke(path);
            ctx.lineWidth = 1;
          }
        });
      });
    ctx.globalAlpha = 1;
    ctx.strokeStyle = "#f5a623";
    ctx.lineWidth = 2;
    ctx.stroke(rings);
    ctx.lineWidth = 1;
    if (selected >= 0) {
      var sel = events[selected];
      ctx.strokeStyle = "#1d2330";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(X(sel.timeMs), laneY[sel.lane], 10, 0, 6.283);
      ctx.stroke();
      ctx.lineWidth = 1;
    }
    stats.marks = drawn.length;
    stats.arrows = drawnArrows;
    stats.lastDrawMs = performance.now() - drawStart;
    status.textContent =
      "showing " +
      M.duration(Math.max(0, view.t0)) +
      " – " +
      M.duration(view.t1) +
      " · " +
      M.count(drawn.length) +
      " marks, " +
      M.count(drawnArrows) +
      " arrows on screen · wheel: zoom, drag: pan, click a mark: its fields";
  }

  // ---- interaction ----------------------------------------------------------------------------
  function zoom(factor, atX, soon) {
    var t = T(atX === undefined ? width / 2 : atX),
      span = (view.t1 - view.t0) * factor;
    span = Math.max(span, 0.001);
    var f = atX === undefined ? 0.5 : atX / width;
    view.t0 = t - span * f;
    view.t1 = view.t0 + span;
    if (soon) drawSoon();
    else draw();
  }
  function showRange(t0, t1) {
    view.t0 = t0;
    view.t1 = t1;
    draw();
  }
  function nearest(px, py) {
    var best = -1,
      bestD = 81,
      failure = -1,
      failureD = 81;
    for (var i = 0; i < drawn.length; i++) {
      var dx = drawn[i][0] - px,
        dy = drawn[i][1] - py,
        d = dx * dx + dy * dy;
      if (d <= bestD) {
        bestD = d;
        best = drawn[i][2];
      }
      // A failure within reach wins over nearer marks: it is drawn on top, and it is what a
      // reader clicks for.
      if (d <= 81 && events[drawn[i][2]].category === "failure" && (failure < 0 || d < failureD)) {
        failure = drawn[i][2];
        failureD = d;
      }
    }
    return failure >= 0 ? failure : best;
  }
  function fieldsTable(e) {
    return el(
      "table",
      {},
      el(
        "tbody",
        {},
        [
          ["time", M.duration(e.timeMs)],
          ["actor", lanes[e.lane].label],
          ["level", e.level],
          ["seq", e.seq],
        ]
          .concat(
            Object.keys(e.fields).map(function (k) {
              return [k, typeof e.fields[k] === "string" ? e.fields[k] : JSON.stringify(e.fields[k])];
            }),
          )
          .map(function (r) {
            return el("tr", {}, el("td", {}, r[0]), el("td", {}, String(r[1])));
          }),
      ),
    );
  }
  function showTooltip(i, clientX, clientY, pinned) {
    var e = events[i];
    tooltip.innerHTML = "";
    tooltip.appendChild(el("div", { class: "t-name" }, e.kind === e.name ? e.name : e.name + ": " + e.kind));
    tooltip.appendChild(fieldsTable(e));
    tooltip.style.display = "block";
    tooltip.className = pinned ? "pinned" : "";
    tooltip.setAttribute("data-seq", e.seq);
    var left = Math.min(clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
    var top =
      clientY + 14 + tooltip.offsetHeight > window.innerHeight ? clientY - tooltip.offsetHeight - 10 : clientY + 14;
    tooltip.style.left = Math.max(4, left) + "px";
    tooltip.style.top = Math.max(4, top) + "px";
  }
  function hideTooltip() {
    tooltip.style.display = "none";
    tooltip.removeAttribute("data-seq");
  }
  function clientOf(i) {
    var r = canvas.getBoundingClientRect();
    return { x: r.left + X(events[i].timeMs), y: r.top + laneY[events[i].lane] };
  }
  function select(i) {
    selected = i;
    var e = events[i];
    if (X(e.timeMs) < 0 || X(e.timeMs) > width) {
      var span = view.t1 - view.t0;
      showRange(e.timeMs - span / 2, e.timeMs + span / 2);
    } else draw();
    var wrapRect = wrap.getBoundingClientRect(),
      p = clientOf(i);
    if (p.y < wrapRect.top || p.y > wrapRect.bottom) {
      wrap.scrollTop += p.y - (wrapRect.top + wrapRect.bottom) / 2;
      p = clientOf(i);
    }
    showTooltip(i, p.x, p.y, true);
  }

  var drag = null;
  wrap.addEventListener("mousedown", function (ev) {
    drag = { x: ev.clientX, t0: view.t0, t1: view.t1, moved: false };
  });
  window.addEventListener("mousemove", function (ev) {
    if (drag) {
      var dx = ev.clientX - drag.x;
      if (Math.abs(dx) > 3) {
        drag.moved = true;
        wrap.classList.add("dragging");
      }
      if (drag.moved) {
        var dt = (dx / width) * (drag.t1 - drag.t0);
        view.t0 = drag.t0 - dt;
        view.t1 = drag.t1 - dt;
        drawSoon();
        return;
      }
    }
    if (tooltip.className === "pinned") return;
    var r = canvas.getBoundingClientRect();
    var i = nearest(ev.clientX - r.left, ev.clientY - r.top);
    if (i >= 0 && ev.target === canvas) showTooltip(i, ev.clientX, ev.clientY, false);
    else hideTooltip();
  });
  window.addEventListener("mouseup", function (ev) {
    if (!drag) return;
    var wasDrag = drag.moved;
    drag = null;
    wrap.classList.remove("dragging");
    if (wasDrag || ev.target !== canvas) return;
    var r = canvas.getBoundingClientRect();
    var i = nearest(ev.clientX - r.left, ev.clientY - r.top);
    if (i >= 0) {
      selected = i;
      draw();
      showTooltip(i, ev.clientX, ev.clientY, true);
    } else {
      selected = -1;
      hideTooltip();
      draw();
    }
  });
  wrap.addEventListener(
    "wheel",
    function (ev) {
      ev.preventDefault();
      var r = canvas.getBoundingClientRect();
      if (ev.shiftKey) {
        var dt = ((ev.deltaY || ev.deltaX) / width) * (view.t1 - view.t0);
        view.t0 += dt;
        view.t1 += dt;
        drawSoon();
      } else zoom(Math.pow(1.0015, ev.deltaY), ev.clientX - r.left, true);
    },
    { passive: false },
  );
  toolbar.addEventListener("click", function (ev) {
    var action = ev.target.getAttribute && ev.target.getAttribute("data-action");
    if (action === "zoom-in") zoom(0.5);
    else if (action === "zoom-out") zoom(2);
    else if (action === "fit") showRange(-endMs * 0.01, endMs * 1.02);
    else if (action === "failure") {
      var span = Math.max((view.t1 - view.t0) / 20, 1);
      showRange(data.failure.timeMs - span / 2, data.failure.timeMs + span / 2);
    }
  });
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    if (!q) {
      matches = null;
      matchList = [];
      searchInfo.textContent = "";
      draw();
      return;
    }
    matches = new Uint8Array(events.length);
    matchList = [];
    if (searchText === null) {
      searchText = events.map(function (e) {
        return (e.name + " " + e.kind + " " + lanes[e.lane].label + " " + JSON.stringify(e.fields)).toLowerCase();
      });
    }
    for (var i = 0; i < events.length; i++)
      if (searchText[i].indexOf(q) >= 0) {
        matches[i] = 1;
        matchList.push(i);
      }
    matchAt = -1;
    searchInfo.textContent = M.count(matchList.length) + " match" + (matchList.length === 1 ? "" : "es");
    draw();
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter" || !matchList.length) return;
    matchAt = (matchAt + 1) % matchList.length;
    searchInfo.textContent = matchAt + 1 + " of " + M.count(matchList.length);
    select(matchList[matchAt]);
  });
  window.addEventListener("resize", function () {
    resize();
    draw();
  });

  resize();
  draw();
  stats.firstRenderMs = performance.now() - startedAt;
  // performance.now() counts from the start of navigation: the time until the diagram was first on screen.
  stats.drawnAtMs = performance.now();
  // A scripting handle for automation (and the tests): where an event is drawn, select it, what was drawn.
  window.moonpoolTimeline = {
    stats: function () {
      return JSON.parse(JSON.stringify(stats));
    },
    locate: function (seq) {
      var i = eventIndex(seq);
      if (i < 0) return null;
      var p = clientOf(i);
      return { x: p.x, y: p.y };
    },
    select: function (seq) {
      var i = eventIndex(seq);
      if (i >= 0) select(i);
    },
    showRange: showRange,
    /** The page's data with its events unpacked. */
    data: function () {
      return data;
    },
  };
  document.body.setAttribute("data-ready", "true");
})();
