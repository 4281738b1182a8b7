/**
 * The architecture rules (see `fixtures/architecture-rules.ts`) hold on this repository, and each
 * rule fails on a planted violation in a throw-away tree (the test of the test).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { checkArchitecture, MAX_SOURCE_LINES, scanSource } from "./fixtures/architecture-rules.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

describe("the repository", () => {
  it("follows every architecture rule", () => {
    const violations = checkArchitecture(ROOT).map((v) => `${v.rule} ${v.file}:${v.line} ${v.message}`);
    expect(violations).toEqual([]);
  });
});

describe("the rules, on planted violations", () => {
  let root: string | null = null;
  afterEach(() => {
    if (root !== null) rmSync(root, { recursive: true, force: true });
    root = null;
  });

  /** A minimal tree: one file per layer, each importing the layer below it. */
  function plant(files: Record<string, string>): string {
    root = mkdtempSync(join(tmpdir(), "moonpool-architecture-"));
    const base: Record<string, string> = {
      "packages/core/src/index.ts": "/** Core. */\nexport const core = 1;\n",
      "packages/sim/src/engine/engine.ts":
        '/** Engine. */\nimport { core } from "@moonpool/core";\nexport const engine = core;\n',
      "packages/sim/src/world/world.ts":
        '/** World. */\nimport { engine } from "../engine/engine.ts";\nexport const world = engine;\n',
      "packages/sim/src/chaos/chaos.ts":
        '/** Chaos. */\nimport { world } from "../world/world.ts";\nexport const chaos = world;\n',
      "packages/sim/src/runner/runner.ts":
        '/** Runner. */\nimport { chaos } from "../chaos/chaos.ts";\nexport const runner = chaos;\n',
    };
    for (const [path, text] of Object.entries({ ...base, ...files })) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  it("a clean tree has no violation", () => {
    expect(checkArchitecture(plant({}))).toEqual([]);
  });

  it("an upward import fails the layer rule", () => {
    const tree = plant({
      "packages/sim/src/world/peek.ts":
        '/** Peeks upward. */\nimport { runner } from "../runner/runner.ts";\nexport const peek = runner;\n',
    });
    const violations = checkArchitecture(tree);
    expect(violations.map((v) => [v.rule, v.file, v.line])).toEqual([["layer", "packages/sim/src/world/peek.ts", 2]]);
    expect(violations[0]!.message).toContain("world/ imports packages/sim/src/runner/runner.ts from runner/");
  });

  it("an upward import named in the allow-list passes, and only that one", () => {
    const tree = plant({
      "packages/sim/src/world/peek.ts":
        '/** Peeks upward. */\nimport { runner } from "../runner/runner.ts";\nexport const peek = runner;\n',
      "packages/sim/src/engine/peek.ts":
        '/** Peeks upward. */\nimport { chaos } from "../chaos/chaos.ts";\nexport const peek = chaos;\n',
    });
    const allowedImports = [
      { from: "packages/sim/src/world/peek.ts", to: "packages/sim/src/runner/runner.ts", why: "test" },
    ];
    expect(checkArchitecture(tree, { allowedImports }).map((v) => v.file)).toEqual(["packages/sim/src/engine/peek.ts"]);
  });

  it("core importing the simulator fails", () => {
    const tree = plant({
      "packages/core/src/sneak.ts": '/** Sneaks. */\nimport { World } from "@moonpool/sim";\nexport { World };\n',
      "packages/core/src/reach.ts":
        '/** Reaches. */\nimport { engine } from "../../sim/src/engine/engine.ts";\nexport { engine };\n',
    });
    expect(checkArchitecture(tree).map((v) => [v.rule, v.file])).toEqual([
      ["core-imports-sim", "packages/core/src/reach.ts"],
      ["core-imports-sim", "packages/core/src/sneak.ts"],
    ]);
  });

  it("an import cycle between files fails; a type-only import back does not close one", () => {
    const cyclic = plant({
      "packages/sim/src/world/a.ts": '/** A. */\nimport { b } from "./b.ts";\nexport const a = () => b;\n',
      "packages/sim/src/world/b.ts": '/** B. */\nimport { a } from "./a.ts";\nexport const b = () => a;\n',
    });
    const cycles = checkArchitecture(cyclic).filter((v) => v.rule === "cycle");
    expect(cycles.map((v) => v.message)).toEqual([
      "import cycle among packages/sim/src/world/a.ts, packages/sim/src/world/b.ts",
    ]);
    rmSync(cyclic, { recursive: true, force: true });
    const typeOnly = plant({
      "packages/sim/src/world/a.ts":
        '/** A. */\nimport { b } from "./b.ts";\nexport type A = number;\nexport const a = b;\n',
      "packages/sim/src/world/b.ts": '/** B. */\nimport type { A } from "./a.ts";\nexport const b: A = 1;\n',
    });
    expect(checkArchitecture(typeOnly)).toEqual([]);
  });

  it("a source file without a header comment, or over the line limit, fails", () => {
    const tree = plant({
      "packages/sim/src/chaos/bare.ts": "export const bare = 1;\n",
      "packages/sim/src/chaos/long.ts": "/** Long. */\n" + "export {};\n".repeat(MAX_SOURCE_LINES),
    });
    expect(checkArchitecture(tree).map((v) => [v.rule, v.file])).toEqual([
      ["header", "packages/sim/src/chaos/bare.ts"],
      ["size", "packages/sim/src/chaos/long.ts"],
    ]);
  });

  it("a comment citing an outside document or narrating porting history fails, wherever it is", () => {
    const tree = plant({
      "packages/sim/src/engine/cites.ts":
        "/** Engine bits. */\n// Measured in findings Q1.\nexport const x = 1; // see DESIGN.md\n",
      "packages/sim/test/history.test.ts": "/* The Rust code did this differently. */\nexport const y = 2;\n",
      "examples/e/e.ts":
        "/** Fine: Raft §5.2 is a public paper. */\n// moonpool's default, quirk 4\nexport const z = 3;\n",
    });
    expect(checkArchitecture(tree).map((v) => `${v.file}:${v.line}`)).toEqual([
      "packages/sim/src/engine/cites.ts:2",
      "packages/sim/src/engine/cites.ts:3",
      "packages/sim/test/history.test.ts:1",
      "examples/e/e.ts:2",
    ]);
  });
});

describe("the scanner", () => {
  it("finds imports and comments, not look-alikes inside strings, templates or regular expressions", () => {
    const scan = scanSource(
      [
        "// header",
        'import { a } from "./a.ts";',
        'import type { B } from "./b.ts";',
        'export { c } from "./c.ts";',
        'export type { D } from "./d.ts";',
        'import "./side-effect.ts";',
        'const s = "import { x } from \\"./not.ts\\"; // not a comment";',
        'const t = `import { y } from "./not2.ts" $' + "{s /* inner */} // still text`;",
        "const r = /\\/\\/ not a comment/.test(s);",
        'const lazy = () => import("./lazy.ts");',
        "/* block",
        "   comment */ export const done = 1;",
      ].join("\n"),
    );
    expect(scan.imports.map((i) => [i.specifier, i.typeOnly, i.line])).toEqual([
      ["./a.ts", false, 2],
      ["./b.ts", true, 3],
      ["./c.ts", false, 4],
      ["./d.ts", true, 5],
      ["./side-effect.ts", false, 6],
      ["./lazy.ts", false, 10],
    ]);
    expect(scan.comments.map((c) => [c.line, c.text])).toEqual([
      [1, "// header"],
      [8, "/* inner */"],
      [11, "/* block\n   comment */"],
    ]);
    expect(scan.startsWithComment).toBe(true);
  });
});
