/**
 * V8 allocates a function literal assigned straight to a property (`obj.f = () => ...`) in the old
 * generation. Made per seed, such a callback keeps its seed's objects alive through every
 * young-generation collection until the next full one: exploration spent about a quarter of its
 * time in the scavenger because of a handful of them. Per-seed code assigns a local instead
 * (`const f = () => ...; obj.f = f;`), which V8 allocates young.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");
/** The layers whose code runs once per seed (or more often). */
const PER_SEED_DIRS = ["engine", "world", "chaos", "runner", "explore"];
/** Assignments made once per realm, per agent or per HTTP/2 session, not per seed. */
const ALLOWED = new Set([
  "engine/ticks.ts wrapper",
  "engine/sync-wasm.ts compile",
  "engine/sync-wasm.ts instantiate",
  "world/node-net/http2.ts request",
  "world/node-net/install.ts createConnection",
]);

/** `.name =` (or `??=`, `||=`, `&&=`) followed by a function literal on the same or the next line. */
const ASSIGNED_LITERAL = new RegExp(
  String.raw`\.([A-Za-z_$][\w$]*)\s*(?:\?\?|\|\||&&)?=\s*(?:async\s*)?` +
    String.raw`(?:function\b|\([^()]*\)\s*(?::[^=;]*)?=>|[A-Za-z_$][\w$]*\s*=>|$)`,
);
const LITERAL_START = /^\s*(?:async\s*)?(?:function\b|\([^()]*\)\s*(?::[^=;]*)?=>|[A-Za-z_$][\w$]*\s*=>)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** `file property` for every function literal assigned straight to a property in `text`. */
function literalAssignments(file: string, text: string): string[] {
  const lines = text.split("\n");
  const found: string[] = [];
  lines.forEach((line, i) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
    const match = ASSIGNED_LITERAL.exec(line);
    if (match === null) return;
    const endsWithEquals = line.slice(match.index).trimEnd().endsWith("=");
    if (endsWithEquals && !LITERAL_START.test(lines[i + 1] ?? "")) return;
    found.push(`${file} ${match[1]}`);
  });
  return found;
}

describe("per-seed callbacks", () => {
  it("recognises a function literal assigned straight to a property, and not one assigned through a local", () => {
    expect(literalAssignments("f.ts", "    engine.afterStep = () => this.checkInvariants();")).toEqual([
      "f.ts afterStep",
    ]);
    expect(literalAssignments("f.ts", "  this.x ??= async (a: number): Promise<void> => {")).toEqual(["f.ts x"]);
    expect(literalAssignments("f.ts", "  obj.onEvent = function named() {}")).toEqual(["f.ts onEvent"]);
    expect(literalAssignments("f.ts", "  obj.cb =\n    (event) => event.name;")).toEqual(["f.ts cb"]);
    expect(literalAssignments("f.ts", "  const afterStep = () => 1;\n  engine.afterStep = afterStep;")).toEqual([]);
    expect(literalAssignments("f.ts", "  if (a.b === (c) => d) {}")).toEqual([]);
    expect(literalAssignments("f.ts", "  world.extraSleepUs = buggifiedSleepDelay(world, config);")).toEqual([]);
  });

  it("are never function literals assigned straight to a property in the per-seed layers", () => {
    const found = PER_SEED_DIRS.flatMap((dir) =>
      sourceFiles(join(SRC, dir)).flatMap((path) =>
        literalAssignments(relative(SRC, path).split("\\").join("/"), readFileSync(path, "utf8")),
      ),
    );
    // The scan sees the assignments it allows (so it reads the tree it should).
    for (const allowed of ALLOWED) expect(found).toContain(allowed);
    expect(
      found.filter((entry) => !ALLOWED.has(entry)),
      "assign a local first: `const f = () => ...; obj.f = f;` (see this file's comment)",
    ).toEqual([]);
  });
});
