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

const ENTRIES = [
  { name: "@moonpool/core", file: path.join(coreSrc, "index.ts"), snapshot: "core.api.txt", load: () => import("@moonpool/core") },
  { name: "@moonpool/sim", file: path.join(simSrc, "api.ts"), snapshot: "sim.api.txt", load: () => import("@moonpool/sim") },
  { name: "@moonpool/sim/tuning", file: path.join(simSrc, "tuning.ts"), snapshot: "sim-tuning.api.txt", load: () => import("@moonpool/sim/tuning") },
  { name: "@moonpool/sim/internal", file: path.join(simSrc, "internal.ts"), snapshot: "sim-internal.api.txt", load: () => import("@moonpool/sim/internal") },
  { name: "@moonpool/sim/vitest", file: path.join(simSrc, "vitest.ts"), snapshot: "sim-vitest.api.txt", load: () => import("@moonpool/sim/vitest") },
] as const;

function resolveModule(specifier: string, from: string): string {
  if (specifier === "@moonpool/core") return path.join(coreSrc, "index.ts");
  return path.resolve(path.dirname(from), specifier);
}

/** Every name a module exports, values and types alike, read from its export statements. */
export function exportedNames(file: string): Set<string> {
  const source = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const names = new Set<string>();
  for (const m of source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const spec of m[1]!.split(",").map((s) => s.replace(/\/\/.*$/gm, "").trim()).filter((s) => s !== "")) {
      names.add(spec.replace(/^type\s+/, "").split(/\s+as\s+/).pop()!.trim());
    }
  }
  for (const m of source.matchAll(/^export\s+\*\s+from\s+"([^"]+)"/gm)) {
    for (const name of exportedNames(resolveModule(m[1]!, file))) names.add(name);
  }
  for (const m of source.matchAll(/^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:class|function\*?|const|let|enum|interface|type)\s+([A-Za-z_$][\w$]*)/gm)) {
    names.add(m[1]!);
  }
  return names;
}

function kindOf(value: unknown): string {
  if (typeof value === "function") return /^class[\s{]/.test(Function.prototype.toString.call(value)) ? "class" : "function";
  return "const";
}

/** One line per name, `kind name`: kinds of values from the loaded module, the rest are types. */
function surface(runtime: Record<string, unknown>, names: Set<string>): string {
  const all = new Set([...names, ...Object.keys(runtime)]);
  const lines = [...all].map((name) => `${name in runtime ? kindOf(runtime[name]) : "type"} ${name}`);
  return `${lines.sort((a, b) => (a.split(" ")[1]! < b.split(" ")[1]! ? -1 : 1)).join("\n")}\n`;
}

describe("public API surface", () => {
  for (const entry of ENTRIES) {
    it(`${entry.name} exports what test/api/${entry.snapshot} lists`, async () => {
      const runtime = (await entry.load()) as Record<string, unknown>;
      await expect(surface(runtime, exportedNames(entry.file))).toMatchFileSnapshot(`./api/${entry.snapshot}`);
    });
  }

  it("every name of src/index.ts (this repository's barrel) is in exactly one @moonpool/sim entry", () => {
    const core = exportedNames(path.join(coreSrc, "index.ts"));
    const [api, tuning, internal] = ["api.ts", "tuning.ts", "internal.ts"].map((f) => exportedNames(path.join(simSrc, f)));
    const homes = (name: string) => [api!.has(name) && !core.has(name) ? "api" : null, tuning!.has(name) ? "tuning" : null, internal!.has(name) ? "internal" : null]
      .filter((h) => h !== null);
    const misplaced = [...exportedNames(path.join(simSrc, "index.ts"))]
      .filter((name) => !core.has(name) && homes(name).length !== 1)
      .map((name) => `${name}: ${homes(name).join(", ") || "in none (add it to src/api.ts for users, src/tuning.ts for constants and tables, or src/internal.ts)"}`);
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
