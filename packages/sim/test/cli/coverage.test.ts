/**
 * `moonpool run --coverage` end to end on the fixtures-coverage project (its own package.json, so
 * its files are user code): a planted branch is covered only by the seeds that take it, code
 * coverage keeps a campaign going while new code is reached, and the reports carry coverage only
 * when asked for. That coverage is the same for any worker count and for merged shards is in
 * tier 2, coverage.heavy.test.ts (five campaigns and three merges).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { validate } from "./json-schema.ts";
import { readJson, runCli, tempDir, type CliResult } from "./helpers.ts";

const PROJECT = fileURLToPath(new URL("./fixtures-coverage/", import.meta.url));
const SCHEMA_FILE = new URL("../../report.schema.json", import.meta.url);
const SLOW_MS = 240_000;

const run = (args: readonly string[]) => runCli(["run", ...args], { cwd: PROJECT });

/** Line → hit count of one file in an lcov.info. */
function lcovLines(lcov: string, file: string): Map<number, number> {
  const record = lcov.split("end_of_record").find((r) => r.includes(`SF:${file}\n`));
  expect(record, `${file} in lcov.info`).toBeDefined();
  const lines = new Map<number, number>();
  for (const m of record!.matchAll(/^DA:(\d+),(\d+)$/gm)) lines.set(Number(m[1]), Number(m[2]));
  return lines;
}

async function plantedLine(): Promise<number> {
  const source = await readFile(path.join(PROJECT, "system.ts"), "utf8");
  return source.split("\n").findIndex((l) => l.includes("PLANTED BRANCH")) + 1;
}

describe("moonpool run --coverage", () => {
  let out: string;
  /** flat and growing until stable, without and with --coverage (text and JSON reports). */
  let untilStable: Promise<[CliResult, CliResult]>;
  beforeAll(async () => {
    out = await tempDir("coverage");
    // Until-stable campaigns of up to 200 seeds: they reuse realms (coverage is the subject, and a
    // take of precise coverage is one seed whatever the realm ran before).
    const args = ["flat", "growing", "--until-stable", "5,200", "--base-seed", "7", "--isolation", "shared"];
    args.push("-r", "text,json,html");
    untilStable = Promise.all([
      run([...args, "-o", path.join(out, "plain")]),
      run([...args, "--coverage", "-o", path.join(out, "covered")]),
    ]);
    untilStable.catch(() => {});
  });

  it(
    "covers the planted branch in exactly the seeds that take it",
    async () => {
      const line = await plantedLine();
      const seeds = [1, 5];
      const results = await Promise.all(
        seeds.map((seed) =>
          run(["planted", "--seed", String(seed), "--coverage", "-r", "json", "-o", path.join(out, `seed-${seed}`)]),
        ),
      );
      const took: boolean[] = [];
      for (const [i, seed] of seeds.entries()) {
        expect(results[i]!.code, results[i]!.stderr).toBe(0);
        const dir = path.join(out, `seed-${seed}`);
        const report = await readJson(path.join(dir, "report.json"));
        const planted = report.simulations[0].report.assertionDetails.find(
          (d: { message: string }) => d.message === "took the planted branch",
        );
        const covered =
          (lcovLines(await readFile(path.join(dir, "coverage", "lcov.info"), "utf8"), "system.ts").get(line) ?? 0) > 0;
        expect(covered, `seed ${seed}: the line ran exactly when the assertion says the branch was taken`).toBe(
          planted.passCount > 0,
        );
        took.push(covered);
      }
      // One seed of each kind, else the test shows nothing (a change of the random streams moves them).
      expect(took).toEqual([false, true]);
    },
    SLOW_MS,
  );

  it(
    "a merge of reports without coverage stays without",
    async () => {
      const [a, b] = await Promise.all(
        [1, 2].map((i) =>
          run([
            "planted",
            "-n",
            "4",
            "--base-seed",
            "3",
            "--shard",
            `${i}/2`,
            "-r",
            "json",
            "-o",
            path.join(out, "nocov"),
          ]),
        ),
      );
      expect(a!.code, a!.stderr).toBe(0);
      expect(b!.code, b!.stderr).toBe(0);
      const reports = [1, 2].map((i) => path.join(out, "nocov", `report.shard-${i}-of-2.json`));
      const merged = path.join(out, "nocov", "merged", "report.json");
      const merge = await runCli(["merge", ...reports, "-o", merged], { cwd: PROJECT });
      expect(merge.code, merge.stderr).toBe(0);
      expect((await readJson(merged)).simulations[0].coverage).toBeUndefined();
      expect(existsSync(path.join(out, "nocov", "merged", "coverage"))).toBe(false);
      expect(merge.stderr).not.toContain("lcov");
    },
    SLOW_MS,
  );

  it(
    "keeps the campaign going while new code is reached, and names the signal that stopped it",
    async () => {
      const [without, covered] = await untilStable;
      expect(without.code, without.stderr).toBe(0);
      expect(covered.code, covered.stderr).toBe(0);
      const entries = [
        ...(await readJson(path.join(out, "plain", "report.json"))).simulations,
        ...(await readJson(path.join(out, "covered", "report.json"))).simulations,
      ];
      expect(entries.map((e: { name: string }) => e.name)).toEqual(["flat", "growing", "flat", "growing"]);
      for (const [i, entry] of entries.entries()) {
        expect(entry.report.saturation.saturated).toBe(true);
        expect(entry.report.saturation.signals).toEqual(
          i < 2 ? ["assertionCoverage"] : ["codeCoverage", "assertionCoverage"],
        );
      }
      const [flat, growing, flatCovered, growingCovered] = entries.map(
        (e: { report: { iterations: number } }) => e.report.iterations,
      ) as [number, number, number, number];
      // The assertion is stable at once; thirty handlers keep adding code for many more seeds.
      expect(growingCovered).toBeGreaterThan(growing + 10);
      expect(entries[3].report.saturation.stoppedBy).toEqual(["codeCoverage"]);
      // Nothing new to reach: code coverage does not hold the campaign.
      expect(flatCovered).toBe(flat);
      expect(covered.stdout).toContain(
        "Plateau signals: codeCoverage, assertionCoverage · stopped by the codeCoverage plateau",
      );
      expect(without.stdout).toContain("Plateau signals: assertionCoverage · stopped by the assertionCoverage plateau");
    },
    SLOW_MS,
  );

  it(
    "reports coverage only with --coverage: JSON fields, text section, lcov and HTML files",
    async () => {
      const [without, covered] = await untilStable;
      const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8"));
      const a = await readJson(path.join(out, "covered", "report.json"));
      const b = await readJson(path.join(out, "plain", "report.json"));
      expect(validate(schema, a)).toEqual([]);
      expect(validate(schema, b)).toEqual([]);
      const flat = a.simulations[0].coverage;
      expect(flat.lines.total).toBeGreaterThan(0);
      expect(flat.files.map((f: { file: string }) => f.file).sort()).toEqual(["flat.sim.ts", "system.ts"]);
      // Lowest first: system.ts has the handlers the flat simulation never calls.
      expect(flat.files[0].file).toBe("system.ts");
      expect(a.simulations[1].coverage.blocks.covered).toBeGreaterThan(flat.blocks.covered);
      expect(a.simulations[0].report.saturation.codeCoveredChars).toBeGreaterThan(0);
      for (const entry of b.simulations) {
        expect(entry.coverage).toBeUndefined();
        expect(entry.report.saturation.codeCoveredChars).toBeUndefined();
      }
      expect(covered.stdout).toContain("--- Code Coverage (--coverage) ---");
      expect(covered.stdout).toMatch(/lowest coverage \(of 2 files\):\n +[\d.]+% lines +[\d.]+% branches +system\.ts/);
      expect(without.stdout).not.toContain("Code Coverage");
      expect(covered.stderr).toContain(`wrote ${path.join(out, "covered", "coverage", "lcov.info")}`);
      expect(existsSync(path.join(out, "covered", "coverage", "html", "index.html"))).toBe(true);
      expect(existsSync(path.join(out, "plain", "coverage"))).toBe(false);
    },
    SLOW_MS,
  );

  it(
    "shows code coverage on the HTML campaign page only with --coverage, linking the coverage view",
    async () => {
      await untilStable;
      const pageData = async (dir: string) => {
        const html = await readFile(path.join(out, dir, "report.html"), "utf8");
        const json = /<script type="application\/json" id="moonpool-data">(.*?)<\/script>/s.exec(html)![1]!;
        return { html, data: JSON.parse(json) };
      };
      const covered = await pageData("covered");
      const report = await readJson(path.join(out, "covered", "report.json"));
      for (const [i, sim] of covered.data.simulations.entries()) {
        const entry = report.simulations[i].coverage;
        expect(sim.codeCoverage).toEqual({
          lines: entry.lines,
          branches: entry.branches,
          functions: entry.functions,
          blocks: entry.blocks,
          fileCount: 2,
          lowestFiles: entry.files,
          htmlHref: "coverage/html/index.html",
          lcovHref: "coverage/lcov.info",
        });
        expect(sim.codeCoverage.lowestFiles[0].file).toBe("system.ts");
      }
      expect(existsSync(path.join(out, "covered", covered.data.simulations[0].codeCoverage.htmlHref))).toBe(true);
      const plain = await pageData("plain");
      for (const sim of plain.data.simulations) expect(sim.codeCoverage).toBeNull();
      expect(plain.html).not.toContain("coverage/html/index.html");
    },
    SLOW_MS,
  );
});
