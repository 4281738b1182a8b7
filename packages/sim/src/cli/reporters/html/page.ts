/**
 * One self-contained HTML file: the page's stylesheet and script inlined, its data embedded as
 * JSON. Opening it needs no server and no network.
 *
 * The scripts are TypeScript (`./browser/`), bundled by esbuild into one script per page. The
 * published package carries the bundles built with it (`./assets/<page>.js`, by
 * scripts/build-package.mjs); run from sources (this repository), a page's bundle is built on its
 * first use in the process.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const ASSETS = new URL("./assets/", import.meta.url);
const BROWSER = new URL("./browser/", import.meta.url);
const cache = new Map<string, string>();

/** esbuild's options for a page script, shared with the package build (see its copy there). */
export const BUNDLE_OPTIONS = {
  bundle: true,
  format: "iife",
  target: "es2020",
  charset: "utf8",
  legalComments: "none",
  write: false,
} as const;

/** The bundled script of a page: prebuilt when published, else bundled from `./browser/<kind>.ts`. */
function script(kind: PageKind): string {
  const built = new URL(`${kind}.js`, ASSETS);
  if (existsSync(built)) return readFileSync(built, "utf8");
  // Loaded only here: a command that writes no page never starts esbuild.
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
  const result = esbuild.buildSync({ ...BUNDLE_OPTIONS, entryPoints: [fileURLToPath(new URL(`${kind}.ts`, BROWSER))] });
  return result.outputFiles[0]!.text;
}

/** An asset of the page (read or bundled once per process). */
function asset(name: string, load: () => string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = load();
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

/** A script's text safe inside `<script>` (a bundle could hold `</script` in a string). */
function inlineScript(text: string): string {
  return text.replace(/<\/(script)/gi, "<\\/$1");
}

export function renderPage(kind: PageKind, title: string, data: unknown): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${asset("style.css", () => readFileSync(new URL("style.css", ASSETS), "utf8"))}</style>`,
    "</head>",
    `<body class="page-${kind}">`,
    `<script type="application/json" id="moonpool-data">${embedJson(data)}</script>`,
    `<script>${asset(`${kind}.js`, () => inlineScript(script(kind)))}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
