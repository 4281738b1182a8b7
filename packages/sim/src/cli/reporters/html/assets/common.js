// Shared helpers of the moonpool report pages (no dependencies, no network).
"use strict";
// biome-ignore lint/correctness/noUnusedVariables: a global, read by the page's other scripts
var Moonpool = (function () {
  function data() {
    return JSON.parse(document.getElementById("moonpool-data").textContent);
  }
  /** el("td", { class: "num", title: "x" }, child, "text", ...) */
  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) for (var k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) node.setAttribute(k, attrs[k]);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) {
      child.forEach(function (c) {
        append(node, c);
      });
      return;
    }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  var SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    if (attrs) for (var k in attrs) node.setAttribute(k, attrs[k]);
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c !== null && c !== undefined)
        node.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  function count(n) {
    return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }
  function duration(ms) {
    if (ms === null || ms === undefined || !isFinite(ms)) return "-";
    if (ms === 0) return "0";
    if (Math.abs(ms) < 1) return ms.toFixed(3) + " ms";
    if (ms < 1000) return (ms < 10 ? ms.toFixed(2) : Math.round(ms)) + " ms";
    if (ms < 60000) return (ms / 1000).toFixed(2) + " s";
    return Math.floor(ms / 60000) + "m " + String(Math.floor((ms % 60000) / 1000)).padStart(2, "0") + "s";
  }
  /** A command in a code box with a Copy button. */
  function command(text) {
    var button = el("button", { type: "button", title: "copy to the clipboard" }, "Copy");
    button.addEventListener("click", function () {
      var done = function () {
        button.textContent = "Copied";
        setTimeout(function () {
          button.textContent = "Copy";
        }, 1200);
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () {});
      else {
        var area = el("textarea", {}, text);
        document.body.appendChild(area);
        area.select();
        try {
          document.execCommand("copy");
          done();
        } catch {
          /* the text stays selectable */
        }
        area.remove();
      }
    });
    return el("div", { class: "cmd" }, el("code", {}, text), button);
  }
  return { data: data, el: el, svg: svg, count: count, duration: duration, command: command };
})();
