/**
 * The defaults docs/departures.md documents (its "Defaults" table, between the
 * `<!-- defaults:start -->` and `<!-- defaults:end -->` markers) are the code's constants: each
 * row's "Here" value must equal the constant its "Constant" column names.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as core from "@moonpool/core";
import * as tuning from "../src/tuning.ts";
import * as limits from "../src/chaos/assertions/limits.ts";
import * as buggify from "../src/chaos/buggify.ts";
import * as stopRule from "../src/runner/coverage-stop-rule.ts";
import * as rootRounds from "../src/runner/root-rounds.ts";

const DEPARTURES = fileURLToPath(new URL("../../../docs/departures.md", import.meta.url));
/** Where the table's constants live: the public tuning entry and core first, then the modules that hold the rest. */
const CONSTANTS: Record<string, unknown> = { ...limits, ...buggify, ...stopRule, ...rootRounds, ...core, ...tuning };

interface DefaultRow {
  readonly name: string;
  readonly documented: number;
  readonly constant: string;
}

/** The rows of the marked table; throws when the markers or the columns are missing. */
function documentedDefaults(markdown: string): DefaultRow[] {
  const table = /<!-- defaults:start -->\n([\s\S]*?)\n<!-- defaults:end -->/.exec(markdown);
  if (table === null)
    throw new Error("docs/departures.md has no <!-- defaults:start --> ... <!-- defaults:end --> table");
  const [header, , ...rows] = table[1]!.split("\n").map((line) =>
    line
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split("|")
      .map((cell) => cell.trim()),
  );
  const here = header!.indexOf("Here");
  const constant = header!.indexOf("Constant");
  if (here < 0 || constant < 0)
    throw new Error(`the defaults table needs "Here" and "Constant" columns, has ${header}`);
  return rows.map((cells) => ({
    name: cells[0]!,
    documented: Number(cells[here]!.replace(/,/g, "")),
    constant: cells[constant]!.replace(/`/g, ""),
  }));
}

/** `NAME` or `NAME.field`, looked up in CONSTANTS; undefined when nothing has that name. */
function constantValue(path: string): unknown {
  const [name, ...fields] = path.split(".");
  let value: unknown = CONSTANTS[name!];
  for (const field of fields) value = (value as Record<string, unknown> | undefined)?.[field];
  return value;
}

/** One line per row whose documented value is not the code's. */
function mismatches(rows: readonly DefaultRow[]): string[] {
  return rows
    .filter((row) => !(Number.isFinite(row.documented) && constantValue(row.constant) === row.documented))
    .map(
      (row) => `${row.name}: the docs say ${row.documented}, ${row.constant} is ${String(constantValue(row.constant))}`,
    );
}

describe("docs/departures.md defaults table", () => {
  const rows = documentedDefaults(readFileSync(DEPARTURES, "utf8"));

  it("every documented default equals the code's constant", () => {
    expect(rows.length).toBeGreaterThanOrEqual(20);
    expect(mismatches(rows)).toEqual([]);
  });

  it("a value changed in the docs, or a constant that does not exist, is reported", () => {
    const sites = rows.find((row) => row.constant === "MAX_ASSERTION_SITES")!;
    expect(mismatches([{ ...sites, documented: 512 }])).toEqual([
      `${sites.name}: the docs say 512, MAX_ASSERTION_SITES is 2048`,
    ]);
    expect(mismatches([{ name: "x", documented: 1, constant: "NO_SUCH_CONSTANT" }])).toEqual([
      "x: the docs say 1, NO_SUCH_CONSTANT is undefined",
    ]);
    expect(() => documentedDefaults("no table here")).toThrow(/has no <!-- defaults:start -->/);
  });
});
