/**
 * `moonpool explain` on the repository's leader-election planted bug: the curve, the verdict and
 * the doomed window on stdout, the same text for the same budget, the same facts as JSON, and
 * `--html` writes the timeline page with its `doom` field. Bad flags and a passing seed are usage
 * errors (exit 2) whose message says what to change.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "./helpers.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures-explain/", import.meta.url));
/** Seed index 0 of base seed 1 (explain.test.ts): a split brain in term 1 at 249 ms. */
const VOTE_TWICE_SEED = 469527774716190;
// Shared realms: a fresh realm per re-run is 24 worker starts per command; isolation is not the
// subject here (seed-isolation.test.ts), and the two commands are compared with each other.
const ARGS = [
  "explain",
  "leader-election-vote-twice",
  "--seed",
  String(VOTE_TWICE_SEED),
  "--cuts",
  "8",
  "--budget",
  "24",
  "--isolation",
  "shared",
];

describe("moonpool explain", () => {
  it("prints the curve, the verdict and the doomed window, the same twice; --json and --html", async () => {
    const first = await runCli(ARGS, { cwd: FIXTURE });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`explaining leader-election-vote-twice seed ${VOTE_TWICE_SEED}`);
    const lines = first.stdout.split("\n");
    expect(lines[0]).toBe(
      `explain leader-election-vote-twice seed ${VOTE_TWICE_SEED}: "one leader per term" at 256.573 ms`,
    );
    // One bar per cut point: time, bar, failures/runs, interval.
    const bars = lines.filter((l) => /^\s+\d+\.\d{3} ms {2}[█░·]{24} +\d+\/\d+ {2}\[\d\.\d\d, \d\.\d\d\]/.test(l));
    expect(bars.length).toBeGreaterThanOrEqual(8);
    expect(first.stdout).toContain("<- last saved");
    expect(first.stdout).toContain("<- doomed");
    // This seed's curve rises within its confidence: no conflicting pair to report.
    expect(first.stdout).not.toContain("not monotone");
    expect(first.stdout).toMatch(/^saved until \d+\.\d{3} ms \(a run changed after it passed\), doomed from/m);
    expect(first.stdout).toMatch(/^ +\d+\.\d{3} ms {2}node-\d@[\d.]+ vote_granted term=1 candidate="10\.0\.1\.2"$/m);
    expect(first.stdout).toContain(
      `24 runs; replay: npx moonpool replay leader-election-vote-twice --seed ${VOTE_TWICE_SEED}`,
    );

    const second = await runCli(ARGS, { cwd: FIXTURE });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);

    const out = await tempDir("explain");
    const json = await runCli([...ARGS, "--json", "--html", "--out", out], { cwd: FIXTURE });
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toMatchObject({ simulation: "leader-election-vote-twice", seed: VOTE_TWICE_SEED, runs: 24 });
    expect(parsed.doom.cutPoints.length).toBe(bars.length);
    expect(parsed.conflicts).toEqual([]);
    for (const p of parsed.doom.cutPoints) expect(p.failureTimesUs.length).toBe(p.failures);
    const saved = /^saved until (\d+\.\d{3}) ms/m.exec(first.stdout)![1]!;
    expect((parsed.doom.savedUntilUs / 1000).toFixed(3)).toBe(saved);
    const page = await readFile(
      path.join(out, `timeline-leader-election-vote-twice-${VOTE_TWICE_SEED}-explained.html`),
      "utf8",
    );
    expect(page).toContain('"doom":{"cutPoints":[{"atUs":0,');
    expect(page).toContain(`"savedUntilUs":${parsed.doom.savedUntilUs}`);
  });

  it("a missing seed, too few cut points and a passing seed are usage errors", async () => {
    const noSeed = await runCli(["explain", "leader-election-vote-twice"], { cwd: FIXTURE });
    expect(noSeed.code).toBe(2);
    expect(noSeed.stderr).toContain("--seed S is required");
    const fewCuts = await runCli(["explain", "leader-election-vote-twice", "--seed", "1", "--cuts", "4"], {
      cwd: FIXTURE,
    });
    expect(fewCuts.code).toBe(2);
    expect(fewCuts.stderr).toContain("--cuts '4': at least 8 cut points");
    const passing = await runCli(["explain", "leader-election", "--seed", "1", "--isolation", "shared"], {
      cwd: FIXTURE,
    });
    expect(passing.code).toBe(2);
    expect(passing.stderr).toContain("passes: there is no failure to explain");
  });
});
