import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runReportPieces, stringifyRunReport, writeRunReport, type RunReportFile } from "../../src/cli/run-report.ts";
import { tempDir } from "../cli/helpers.ts";

describe("reports are streamed to disk", () => {
  it("writes exactly the bytes of JSON.stringify (indentation, empty containers, undefined, bigint, toJSON)", async () => {
    const value = {
      kind: "moonpool-run",
      empty: { list: [], object: {} },
      skipped: undefined,
      nested: [{ a: 1, b: [1, [2, []], { c: "é\n\"" }], d: null }, undefined, 3],
      big: 12345678901234567890n,
      when: new Date(0),
      simulations: Array.from({ length: 50 }, (_, i) => ({ name: `s${i}`, report: { seeds: [{ seed: i, ok: i % 2 === 0, failures: [] }] } })),
    } as unknown as RunReportFile;
    const dir = await tempDir("stream");
    const file = path.join(dir, "report.json");
    await writeRunReport(value, file);
    expect(await readFile(file, "utf8")).toBe(stringifyRunReport(value));
    await rm(dir, { recursive: true, force: true });
  });

  it("serializes a report longer than the longest string V8 can make, in pieces no longer than its leaves", () => {
    const megabyte = "x".repeat(1 << 20);
    const seeds = Array.from({ length: 520 }, (_, seed) => ({ seed, ok: false, failures: [{ kind: "assertion", message: megabyte, timeMs: 0 }] }));
    const value = { kind: "moonpool-run", simulations: [{ name: "big", report: { seeds } }] } as unknown as RunReportFile;
    let total = 0;
    let longest = 0;
    for (const piece of runReportPieces(value)) {
      total += piece.length;
      longest = Math.max(longest, piece.length);
    }
    // V8's longest string is 2^29 - 24 characters (Node 20-24): JSON.stringify throws RangeError here.
    expect(total).toBeGreaterThan(2 ** 29);
    expect(longest).toBe(megabyte.length + 2);
  });
});
