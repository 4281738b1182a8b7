/**
 * Seed isolation (runner/isolation.ts) on a fixture that keeps a ws-style module-level pool of
 * random bytes: with a fresh realm per seed, a failing seed hashes the same at every campaign
 * position, alone, on 1 and 2 workers, under `moonpool replay` and as an explored root; with
 * `--isolation shared` the report says so, and a failure whose seed hashes differently alone is
 * reported as not replaying, with the first diverging draw, and without a replay command. A
 * provider-only simulation with a module-level counter is isolated by default too.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { SimulationBuilder } from "../../src/index.ts";
import { loadSimulationFile } from "../../src/cli/discovery.ts";
import { readJson, runCli, tempDir } from "./helpers.ts";
import { validate } from "./json-schema.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures-isolation/", import.meta.url));
const SCHEMA_FILE = new URL("../../report.schema.json", import.meta.url);

interface SeedEntry {
  readonly index: number;
  readonly seed: number;
  readonly ok: boolean;
  readonly traceHash: string;
}

describe("seed isolation on a module-level byte pool", () => {
  let out: string;
  let campaign: any;
  let failing: SeedEntry;

  const run = async (name: string, args: readonly string[]) => {
    const dir = path.join(out, name);
    const result = await runCli(["run", "mask-pool", ...args, "--reporter", "json", "--out", dir], {
      cwd: FIXTURES,
      isolation: "default",
    });
    const report = await readJson(path.join(dir, "report.json"));
    return { result, report, entry: report.simulations[0], seeds: report.simulations[0].report.seeds as SeedEntry[] };
  };

  beforeAll(async () => {
    out = await tempDir("isolation");
    campaign = await run("campaign", ["--iterations", "6", "--base-seed", "3", "--workers", "1"]);
    failing = campaign.seeds.find((s: SeedEntry) => !s.ok && s.index > 0)!;
  });

  it("runs a node-runtime simulation with a fresh realm per seed by default; its failure replays", async () => {
    expect(campaign.result.code).toBe(1);
    expect(campaign.entry.isolation).toEqual({ mode: "seed", chosen: "default" });
    expect(failing, "a seed after the first fails in 6 seeds from base seed 3").toBeDefined();
    const failure = campaign.entry.failures.find((f: { seed: number }) => f.seed === failing.seed);
    expect(failure.notReplaying).toBeUndefined();
    expect(failure.replayCommand).toBe(`npx moonpool replay mask-pool --seed ${failing.seed}`);
    const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8"));
    expect(validate(schema, campaign.report)).toEqual([]);
  });

  it("gives the failing seed one hash at every position, on 2 workers, alone and under replay; other seeds differ", async () => {
    const other = campaign.seeds.find((s: SeedEntry) => s.seed !== failing.seed)!;
    const k = failing.seed;
    const repeated = await run("repeated", ["--seeds", `${k},${other.seed},${k},${k}`, "--workers", "2"]);
    expect(repeated.seeds.map((s) => s.seed)).toEqual([k, other.seed, k, k]);
    const hashes = repeated.seeds.filter((s) => s.seed === k).map((s) => s.traceHash);
    expect(hashes).toEqual([failing.traceHash, failing.traceHash, failing.traceHash]);
    // Same seed, same hash at another position; another seed, another hash.
    expect(repeated.seeds[1]!.traceHash).toBe(other.traceHash);
    expect(other.traceHash).not.toBe(failing.traceHash);

    const alone = await run("alone", ["--seed", String(k), "--workers", "1"]);
    expect(alone.seeds[0]!.traceHash).toBe(failing.traceHash);

    // The replay loads only mask-pool.sim.ts: other.sim.ts takes bytes from the pool at load.
    const replay = await runCli(["replay", "mask-pool", "--seed", String(k), "--no-trace"], { cwd: FIXTURES });
    expect(replay.code).toBe(1);
    expect(replay.stdout).toContain(`FAILED mask-pool seed ${k} `);
    expect(replay.stdout).toContain(`hash=${failing.traceHash}`);
  });

  it("gives the failing seed its hash as an explored root (a fresh realm per root)", async () => {
    const first = campaign.seeds[0]!;
    const explored = await run("explored", [
      "--seeds",
      `${first.seed},${failing.seed}`,
      "--explore",
      "--explore-budget",
      "3",
      "--workers",
      "1",
    ]);
    expect(explored.entry.explore).toBe(true);
    const root = explored.seeds.find((s) => s.seed === failing.seed)!;
    expect(root.ok).toBe(false);
    expect(root.traceHash).toBe(failing.traceHash);
  });

  it("with --isolation shared: the report says so, and a failure that hashes differently alone has no replay command", async () => {
    const shared = await run("shared", [
      "--iterations",
      "6",
      "--base-seed",
      "3",
      "--workers",
      "1",
      "--isolation",
      "shared",
    ]);
    expect(shared.entry.isolation).toEqual({ mode: "shared", chosen: "command" });
    expect(shared.result.stderr).toContain("isolation 'shared': seeds reused realms");
    expect(shared.result.stderr).toContain("replays are not guaranteed");
    // The pool carries over: some seed hashes otherwise than in its own realm.
    const moved = shared.seeds.filter((s, i) => s.traceHash !== campaign.seeds[i]!.traceHash);
    expect(moved.length).toBeGreaterThan(0);
    const notReplaying = shared.entry.failures.filter((f: { notReplaying?: string }) => f.notReplaying !== undefined);
    expect(notReplaying.length, "a failure of the shared realm does not replay alone").toBeGreaterThan(0);
    for (const f of notReplaying) {
      const campaignHash = shared.seeds.find((s) => s.seed === f.seed)!.traceHash;
      const aloneHash = campaign.seeds.find((s: SeedEntry) => s.seed === f.seed)!.traceHash;
      expect(f.replayCommand).toBe("");
      expect(f.notReplaying).toContain(`does not replay on its own`);
      expect(f.notReplaying).toContain(`trace hash ${aloneHash}, not ${campaignHash} as in the campaign`);
      expect(f.notReplaying).toMatch(/the runs part at sim draw #\d+/);
      expect(f.notReplaying).toMatch(/in the campaign: draw by framer@[\d.]+ at [\d.]+ ms/);
      expect(f.notReplaying).toContain("mask-pool.sim.ts");
    }
    expect(shared.entry.replayCheck).toEqual({
      seedsChecked: shared.entry.report.failedRuns,
      notReplaying: notReplaying.length,
      seedsUnchecked: 0,
    });
    const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8"));
    expect(validate(schema, shared.report)).toEqual([]);
  });

  it("would replay the seed otherwise had the replay also imported other.sim.ts (which the replay does not)", async () => {
    // In this realm: other.sim.ts's top level takes bytes from the pool before the seed runs.
    await loadSimulationFile(path.join(FIXTURES, "other.sim.ts"));
    const [mask] = await loadSimulationFile(path.join(FIXTURES, "mask-pool.sim.ts"));
    const builder = mask!.definition.build() as SimulationBuilder;
    const report = await builder.setDebugSeeds([failing.seed]).setIterations(1).run();
    expect(report.seeds[0]!.traceHash).not.toBe(failing.traceHash);
  });

  it("refuses an unknown --isolation with the modes it takes", async () => {
    const bad = await runCli(["run", "mask-pool", "--isolation", "thread"], { cwd: FIXTURES });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--isolation 'thread': use seed (a fresh realm per seed) or shared");
  });
});

describe("seed isolation of a provider-only simulation with a module-level counter", () => {
  const SEED = 11;
  const OTHER = 12;

  const run = async (name: string, args: readonly string[]) => {
    const dir = path.join(await tempDir(`counter-${name}`), "out");
    const seeds = `${SEED},${OTHER},${SEED},${SEED}`;
    const result = await runCli(
      ["run", "module-counter", "--seeds", seeds, "--workers", "1", ...args, "--reporter", "json", "--out", dir],
      { cwd: FIXTURES, isolation: "default" },
    );
    const report = await readJson(path.join(dir, "report.json"));
    return { result, entry: report.simulations[0], seeds: report.simulations[0].report.seeds as SeedEntry[] };
  };

  let isolated: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    isolated = await run("default", []);
  });

  it("gives a seed one hash at every campaign position by default; another seed another hash", async () => {
    const { result, entry, seeds } = isolated;
    expect(result.code).toBe(0);
    expect(entry.isolation).toEqual({ mode: "seed", chosen: "default" });
    expect(result.stderr).not.toContain("isolation 'shared'");
    expect(seeds.map((s) => s.seed)).toEqual([SEED, OTHER, SEED, SEED]);
    const [first, other, second, third] = seeds.map((s) => s.traceHash);
    expect([second, third]).toEqual([first, first]);
    expect(other).not.toBe(first);
  });

  it("with --isolation shared: the count carries over, and the report says replays are not guaranteed", async () => {
    const { result, entry, seeds } = await run("shared", ["--isolation", "shared"]);
    expect(entry.isolation).toEqual({ mode: "shared", chosen: "command" });
    expect(result.stderr).toContain("isolation 'shared': seeds reused realms");
    expect(result.stderr).toContain("replays are not guaranteed");
    // The first seed of the realm is as in a realm of its own; the same seed later is not.
    const hashes = seeds.map((s) => s.traceHash);
    expect(hashes[0]).toBe(isolated.seeds[0]!.traceHash);
    expect(new Set([hashes[0], hashes[2], hashes[3]]).size).toBe(3);
  });
});
