/**
 * Why a `.ts` file may fail to load: Node (and tsx with it) loads a `.ts` file as CommonJS in a
 * package without `"type": "module"` (npm 11's `npm init -y` writes `"type": "commonjs"`), and an
 * ES-module-syntax file loaded that way fails. `.mts` files are ES modules in every package, which
 * is why `moonpool init` writes `.mts` files.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** The `type` of the package.json nearest to `file` ("commonjs" when none says "module"). */
export function packageTypeOf(file: string): "module" | "commonjs" {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type === "module"
          ? "module"
          : "commonjs";
      } catch {
        return "commonjs"; // Node reads an unreadable manifest as no type either
      }
    }
    if (path.dirname(dir) === dir) return "commonjs";
  }
}

/** What Node says when ES module syntax meets the CommonJS loader (or the reverse). */
const MODULE_KIND_ERROR =
  /require\(\) ES Module|ERR_REQUIRE_|Cannot use import statement|exports is not defined|require is not defined/;

/**
 * What to change when a `.ts` file of a CommonJS package failed to load for its module kind; ""
 * for any other file or failure (a user's own exception needs no hint).
 */
export function commonJsHint(file: string, error: unknown): string {
  const message = error instanceof Error ? `${error.message} ${String((error as { code?: unknown }).code)}` : "";
  if (!file.endsWith(".ts") || !MODULE_KIND_ERROR.test(message) || packageTypeOf(file) === "module") return "";
  const base = path.basename(file);
  const renamed = base.replace(/\.ts$/, ".mts");
  return ` (${base} is in a package without "type": "module", so Node loads it as CommonJS: rename it to ${renamed}, as moonpool init does, or add "type": "module" to package.json)`;
}
