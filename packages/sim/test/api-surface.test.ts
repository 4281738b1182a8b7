/**
 * The public surface of each package entry (every exported name and its kind), kept in
 * test/api/*.api.txt so that a review sees each change to it. After an intended change, update the
 * files with `npx vitest run packages/sim/test/api-surface.test.ts -u`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const simSrc = path.join(repoRoot, "packages/sim/src");
const coreSrc = path.join(repoRoot, "packages/core/src");

/** Each entry: its source file (under packages/), the file listing its surface, the entry as a test imports it. */
const entry = (name: string, file: string, snapshot: string, load: () => Promise<unknown>) => ({
  name,
  file: path.join(repoRoot, "packages", file),
  snapshot,
  load,
});
const ENTRIES = [
  entry("@moonpool/core", "core/src/index.ts", "core", () => import("@moonpool/core")),
  entry("@moonpool/sim", "sim/src/api.ts", "sim", () => import("@moonpool/sim")),
  entry("@moonpool/sim/tuning", "sim/src/tuning.ts", "sim-tuning", () => import("@moonpool/sim/tuning")),
  entry("@moonpool/sim/internal", "sim/src/internal.ts", "sim-internal", () => import("@moonpool/sim/internal")),
  entry("@moonpool/sim/vitest", "sim/src/vitest.ts", "sim-vitest", () => import("@moonpool/sim/vitest")),
];

function resolveModule(specifier: string, from: string): string {
  if (specifier === "@moonpool/core") return path.join(coreSrc, "index.ts");
  return path.resolve(path.dirname(from), specifier);
}

/** Every name a module exports, values and types alike, read from its export statements. */
export function exportedNames(file: string): Set<string> {
  const source = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const names = new Set<string>();
  for (const m of source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const spec of m[1]!
      .split(",")
      .map((s) => s.replace(/\/\/.*$/gm, "").trim())
      .filter((s) => s !== "")) {
      names.add(
        spec
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)
          .pop()!
          .trim(),
      );
    }
  }
  for (const m of source.matchAll(/^export\s+\*\s+from\s+"([^"]+)"/gm)) {
    for (const name of exportedNames(resolveModule(m[1]!, file))) names.add(name);
  }
  const modifiers = "(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?";
  const keyword = "(?:class|function\\*?|const|let|enum|interface|type)";
  const declaration = new RegExp(`^export\\s+${modifiers}${keyword}\\s+([\\w$]+)`, "gm");
  for (const m of source.matchAll(declaration)) {
    names.add(m[1]!);
  }
  return names;
}

function kindOf(value: unknown): string {
  if (typeof value !== "function") return "const";
  return /^class[\s{]/.test(Function.prototype.toString.call(value)) ? "class" : "function";
}

/** One line per name, `kind name`: kinds of values from the loaded module, the rest are types. */
function surface(runtime: Record<string, unknown>, names: Set<string>): string {
  const all = new Set([...names, ...Object.keys(runtime)]);
  const lines = [...all].map((name) => `${name in runtime ? kindOf(runtime[name]) : "type"} ${name}`);
  return `${lines.sort((a, b) => (a.split(" ")[1]! < b.split(" ")[1]! ? -1 : 1)).join("\n")}\n`;
}

describe("public API surface", () => {
  for (const entry of ENTRIES) {
    it(`${entry.name} exports what test/api/${entry.snapshot}.api.txt lists`, async () => {
      const runtime = (await entry.load()) as Record<string, unknown>;
      await expect(surface(runtime, exportedNames(entry.file))).toMatchFileSnapshot(`./api/${entry.snapshot}.api.txt`);
    });
  }

  it("every name of src/index.ts (this repository's barrel) is in exactly one @moonpool/sim entry", () => {
    const core = exportedNames(path.join(coreSrc, "index.ts"));
    const namesOf = (e: string) => exportedNames(path.join(simSrc, `${e}.ts`));
    const entries = ["api", "tuning", "internal"].map((e) => ({ e, names: namesOf(e) }));
    const homes = (name: string) => entries.filter(({ names }) => names.has(name)).map(({ e }) => e);
    const nowhere = "in none (add it to src/api.ts for users, src/tuning.ts for constants/tables, or src/internal.ts)";
    const misplaced = [...exportedNames(path.join(simSrc, "index.ts"))]
      .filter((name) => !core.has(name) && homes(name).length !== 1)
      .map((name) => `${name}: ${homes(name).join(", ") || nowhere}`);
    expect(misplaced).toEqual([]);
  });

  it("the user API is not the barrel: tuning tables stay out of it, the builder is in it", () => {
    const api = exportedNames(path.join(simSrc, "api.ts"));
    expect(api.has("SimulationBuilder")).toBe(true);
    expect(api.has("runSimulationTest")).toBe(false);
    expect(api.has("NETWORK_FAULT_KINDS")).toBe(false);
    expect(api.has("Engine")).toBe(false);
  });
});
