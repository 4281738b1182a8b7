import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ReportMergeError } from "../../src/cli/errors.ts";
import { readJsonFile } from "../../src/cli/read-json-file.ts";
import {
  readRunReport,
  runReportPieces,
  stringifyRunReport,
  writeRunReport,
  type RunReportFile,
} from "../../src/cli/run-report.ts";
import { tempDir } from "../cli/helpers.ts";

describe("reports are streamed to disk", () => {
  it("writes exactly the bytes of JSON.stringify (indentation, empty containers, undefined, bigint, toJSON)", async () => {
    const value = {
      kind: "moonpool-run",
      empty: { list: [], object: {} },
      skipped: undefined,
      nested: [{ a: 1, b: [1, [2, []], { c: 'é\n"' }], d: null }, undefined, 3],
      big: 12345678901234567890n,
      when: new Date(0),
      simulations: Array.from({ length: 50 }, (_, i) => ({
        name: `s${i}`,
        report: { seeds: [{ seed: i, ok: i % 2 === 0, failures: [] }] },
      })),
    } as unknown as RunReportFile;
    const dir = await tempDir("stream");
    const file = path.join(dir, "report.json");
    await writeRunReport(value, file);
    expect(await readFile(file, "utf8")).toBe(stringifyRunReport(value));
    await rm(dir, { recursive: true, force: true });
  });

  it("writes the same bytes when some containers are written whole and the ones around them in pieces", async () => {
    const text = "y".repeat(200_000);
    const value = {
      kind: "moonpool-run",
      simulations: [
        {
          name: "mixed",
          report: {
            seeds: Array.from({ length: 8 }, (_, seed) => ({ seed, failures: [{ message: text, at: [seed, 1n] }] })),
          },
        },
      ],
    } as unknown as RunReportFile;
    expect([...runReportPieces(value)].length).toBeGreaterThan(8);
    expect([...runReportPieces(value)].join("") + "\n").toBe(stringifyRunReport(value));
  });

  it("serializes a report longer than the longest string V8 can make, in pieces no longer than its leaves", () => {
    const megabyte = "x".repeat(1 << 20);
    const seeds = Array.from({ length: 520 }, (_, seed) => ({
      seed,
      ok: false,
      failures: [{ kind: "assertion", message: megabyte, timeMs: 0 }],
    }));
    const value = {
      kind: "moonpool-run",
      simulations: [{ name: "big", report: { seeds } }],
    } as unknown as RunReportFile;
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

describe("reports are read from disk in chunks", () => {
  const value = {
    text: 'é\n"ü€𝄞 \u0000',
    numbers: [0, -1.5, 1e-7, 123456789012, 0.1 + 0.2],
    empty: { list: [], object: {} },
    __proto__key: JSON.parse('{"__proto__": {"polluted": true}}'),
    seeds: Array.from({ length: 40 }, (_, seed) => ({ seed, ok: seed % 3 !== 0, traceHash: "0a1b2c3d", failures: [] })),
  };

  it("builds the same value as JSON.parse, whatever the chunk size (characters split across chunks)", async () => {
    const dir = await tempDir("read-stream");
    const file = path.join(dir, "value.json");
    await writeFile(file, JSON.stringify(value, null, 2) + "\n");
    const expected = JSON.parse(await readFile(file, "utf8"));
    for (const chunkBytes of [1, 3, 7, 64, 1 << 20]) {
      expect(await readJsonFile(file, chunkBytes)).toStrictEqual(expected);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await rm(dir, { recursive: true, force: true });
  });

  it("a truncated file, trailing text or an empty file is a typed error naming the file", async () => {
    const dir = await tempDir("read-broken");
    const cases: [string, string][] = [
      ["truncated", JSON.stringify(value).slice(0, 200)],
      ["trailing", JSON.stringify(value) + "\n{}"],
      ["empty", ""],
    ];
    for (const [name, text] of cases) {
      const file = path.join(dir, `${name}.json`);
      await writeFile(file, text);
      const error = await readRunReport(file).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(ReportMergeError);
      expect((error as Error).message, name).toContain(`${file}: not a readable JSON report (`);
    }
    await rm(dir, { recursive: true, force: true });
  });
});
