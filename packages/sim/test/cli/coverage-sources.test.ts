/**
 * The sources a run saves for `moonpool merge`: inline source maps made relative to the project
 * root (so a merge on another checkout finds the originals), and a typed error for a file that is
 * not one.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  absoluteMap,
  portableSource,
  readCoverageSources,
  writeCoverageSources,
} from "../../src/cli/coverage-sources.ts";
import { ReportMergeError } from "../../src/cli/errors.ts";

const ROOT = path.resolve(os.tmpdir(), "project");

function withInlineMap(code: string, map: object): string {
  return `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString("base64")}\n`;
}

describe("coverage sources", () => {
  it("keeps the code as V8 ran it and makes the map's sources relative to the project root", () => {
    const file = path.join(ROOT, "src", "system.ts");
    const code = withInlineMap("function route(){}", {
      version: 3,
      sources: [file],
      sourcesContent: [null],
      mappings: "AAAA",
      names: [],
    });
    const portable = portableSource(code, file, ROOT);
    expect(portable.code).toBe(code);
    expect(portable.map).toEqual({ version: 3, sources: ["src/system.ts"], mappings: "AAAA", names: [] });
    // Back on another checkout: absolute under that root.
    const elsewhere = path.resolve(os.tmpdir(), "other-checkout");
    expect(absoluteMap(portable.map!, elsewhere).sources).toEqual([path.join(elsewhere, "src", "system.ts")]);
  });

  it("resolves relative sources and a sourceRoot from the script's folder, keeps full sourcesContent", () => {
    const file = path.join(ROOT, "dist", "a.js");
    const code = withInlineMap("x()", {
      version: 3,
      sourceRoot: "../src",
      sources: ["a.ts"],
      sourcesContent: ["x();"],
      mappings: "AAAA",
    });
    expect(portableSource(code, file, ROOT).map).toEqual({
      version: 3,
      sources: ["src/a.ts"],
      sourcesContent: ["x();"],
      mappings: "AAAA",
    });
  });

  it("has no map for code without an inline one", () => {
    expect(portableSource("const a = 1;\n", path.join(ROOT, "a.js"), ROOT)).toEqual({
      code: "const a = 1;\n",
      map: null,
    });
  });

  it("round-trips through sources.json, and rejects a file that is not one with a typed error", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "moonpool-sources-"));
    const sources = { "b.ts": { code: "b", map: null }, "a.ts": { code: "a", map: null } };
    const file = await writeCoverageSources(dir, sources);
    expect(Object.keys(await readCoverageSources(file))).toEqual(["a.ts", "b.ts"]);
    const wrong = path.join(dir, "wrong.json");
    await writeFile(wrong, JSON.stringify({ files: {} }));
    await expect(readCoverageSources(wrong)).rejects.toBeInstanceOf(ReportMergeError);
    await expect(readCoverageSources(path.join(dir, "missing.json"))).rejects.toThrow(/not a readable coverage/);
  });
});
