/**
 * Tier 2 (docs/contributing.md, "Test tiers"): `moonpool run --coverage` gives the same coverage
 * for --workers 1, --workers 2 and three shards merged (also on a checkout at another path, and
 * without the shards' coverage folders). Five campaigns and three merges of the
 * fixtures-coverage project; coverage.test.ts has the rest of `--coverage` in tier 1, and
 * block-coverage.test.ts shows there that block unions do not depend on the order of seeds.
 */
import { existsSync } from "node:fs";
import { copyFile, cp, mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { validate } from "./json-schema.ts";
import { readJson, runCli, tempDir } from "./helpers.ts";

const PROJECT = fileURLToPath(new URL("./fixtures-coverage/", import.meta.url));
const SCHEMA_FILE = new URL("../../report.schema.json", import.meta.url);
/** The repository: a copy of the project inside it still resolves `@moonpool/sim`. */
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));

const run = (args: readonly string[]) => runCli(["run", ...args], { cwd: PROJECT });

describe("moonpool run --coverage, across workers and shards", () => {
  it("is identical for --workers 1 and --workers 2, and for shards merged: figures, lcov.info and sources", async () => {
    const out = await tempDir("coverage-identical");
    const dir = (name: string) => path.join(out, name);
    const common = ["planted", "-n", "12", "--base-seed", "3", "--coverage", "-r", "json"];
    const runs = await Promise.all([
      run([...common, "--workers", "1", "-o", dir("w1")]),
      run([...common, "--workers", "2", "-o", dir("w2")]),
      ...[1, 2, 3].map((i) => run([...common, "--shard", `${i}/3`, "-o", dir("shards")])),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const shardReports = [1, 2, 3].map((i) => path.join(dir("shards"), `report.shard-${i}-of-3.json`));
    const merge = await runCli(["merge", ...shardReports.reverse(), "-o", path.join(dir("merged"), "report.json")], {
      cwd: PROJECT,
    });
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stderr).not.toContain("warning");
    expect(merge.stderr).toContain(`wrote ${path.join(dir("merged"), "coverage", "lcov.info")}`);

    const coverageOf = async (name: string, file = "report.json") =>
      (await readJson(path.join(dir(name), file))).simulations[0].coverage;
    const w1 = await coverageOf("w1");
    expect(Object.keys(w1.data)).toEqual(["planted.sim.ts", "system.ts"]);
    expect(w1.lines.total).toBeGreaterThan(0);
    expect(w1.dir).toBe("coverage");
    expect(await coverageOf("w2")).toEqual(w1);
    // Each shard alone saw a third of the seeds and names its own folder.
    expect((await coverageOf("shards", "report.shard-2-of-3.json")).dir).toBe("coverage.shard-2-of-3");
    expect(await coverageOf("merged")).toEqual(w1);
    const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8"));
    expect(validate(schema, await readJson(path.join(dir("merged"), "report.json")))).toEqual([]);
    const lcov = await readFile(path.join(dir("w1"), "coverage", "lcov.info"), "utf8");
    expect(lcov).toContain("SF:system.ts\n");
    for (const other of ["w2", "merged"])
      expect(await readFile(path.join(dir(other), "coverage", "lcov.info"), "utf8"), other).toBe(lcov);
    expect(existsSync(path.join(dir("merged"), "coverage", "html", "index.html"))).toBe(true);
    // esbuild's __name helper (tsx keeps function names with it) is no function of the user's code.
    expect(lcov).not.toMatch(/^FN:\d+,__name$/m);
    expect(lcov).toMatch(/^FN:\d+,route$/m);

    // A merge on another checkout of the project (another path) converts the same.
    const checkout = path.join(REPO, "moonpool-reports", `coverage-checkout-${path.basename(out)}`);
    await cp(PROJECT, checkout, { recursive: true });
    try {
      const elsewhere = await runCli(["merge", ...shardReports, "-o", path.join(dir("elsewhere"), "report.json")], {
        cwd: checkout,
      });
      expect(elsewhere.code, elsewhere.stderr).toBe(0);
      expect(await coverageOf("elsewhere")).toEqual(w1);
      expect(await readFile(path.join(dir("elsewhere"), "coverage", "lcov.info"), "utf8")).toBe(lcov);
    } finally {
      await rm(checkout, { recursive: true, force: true });
    }

    // Without the shards' coverage folders: the united blocks, no line figures, and a warning.
    const bare = dir("bare");
    await mkdir(bare, { recursive: true });
    for (const file of shardReports) await copyFile(file, path.join(bare, path.basename(file)));
    const partial = await runCli(
      ["merge", ...shardReports.map((f) => path.join(bare, path.basename(f))), "-o", path.join(bare, "merged.json")],
      { cwd: PROJECT },
    );
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stderr).toContain("warning: simulation 'planted': no coverage sources");
    const m = (await readJson(path.join(bare, "merged.json"))).simulations[0].coverage;
    expect(m.data).toEqual(w1.data);
    expect(m.blocks).toEqual(w1.blocks);
    expect(m.lines).toBeNull();
    expect(m.dir).toBeUndefined();
    expect(existsSync(path.join(bare, "coverage"))).toBe(false);
  });
});
