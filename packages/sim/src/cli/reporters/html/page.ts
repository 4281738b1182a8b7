/**
 * One self-contained HTML file: the page's stylesheet and script inlined, its data embedded as
 * JSON. Opening it needs no server and no network.
 */
import { readFileSync } from "node:fs";

const ASSETS = new URL("./assets/", import.meta.url);
const cache = new Map<string, string>();

/** An asset of the page (read once per process). */
function asset(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(name, ASSETS), "utf8");
    cache.set(name, text);
  }
  return text;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** JSON safe inside `<script>`: `<` never appears, so no `</script>` or `<!--` can end the element. */
export function embedJson(data: unknown): string {
  const text = JSON.stringify(data, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
  return text
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export type PageKind = "campaign" | "timeline";

export function renderPage(kind: PageKind, title: string, data: unknown): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${asset("style.css")}</style>`,
    "</head>",
    `<body class="page-${kind}">`,
    `<script type="application/json" id="moonpool-data">${embedJson(data)}</script>`,
    `<script>${asset("common.js")}</script>`,
    `<script>${asset(`${kind}.js`)}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
