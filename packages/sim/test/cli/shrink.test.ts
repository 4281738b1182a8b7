/**
 * `moonpool shrink` on the repository's leader-election planted bug: progress on stderr, the
 * before/after table and a replay command on stdout, and that command replays the shrunk run
 * (`moonpool replay --overrides`) to the printed trace hash; `--html` writes its timeline page.
 * A passing seed and bad flags are usage errors (exit 2).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { leaderElectionSimulation } from "../../../../examples/leader-election/simulation.ts";
import { runCli, tempDir } from "./helpers.ts";

const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));

describe("moonpool shrink", () => {
  it("prints the shrunk run and a replay command that reproduces it", async () => {
    const report = await leaderElectionSimulation({ bug: "vote-twice" }).setBaseSeed(1).setIterations(20).run();
    const seed = report.seeds.find((s) => !s.ok)!.seed;
    const out = await tempDir("shrink");
    const shrink = await runCli(
      // Shared realms: a fresh realm per candidate would be 40 worker starts; isolation is not the
      // subject here (seed-isolation.test.ts), and the replay below still checks the shrunk run alone.
      [
        "shrink",
        "leader-election-vote-twice",
        "--seed",
        String(seed),
        "--max-runs",
        "40",
        "--isolation",
        "shared",
        "--html",
        "--out",
        out,
      ],
      { cwd: REPOSITORY },
    );
    expect(shrink.code, shrink.stderr).toBe(0);
    expect(shrink.stderr).toContain("isolation 'shared': candidate runs reused realms");
    expect(shrink.stderr).toContain(`shrinking leader-election-vote-twice seed ${seed}`);
    expect(shrink.stderr).toMatch(/^kept .+: events \d+, faults \d+ \(run \d+\/40\)$/m);
    expect(shrink.stdout).toContain('still violates "one leader per term"');
    // Reaching half on its own draws, the search does not hunt other draw sequences.
    expect(shrink.stdout).not.toContain("hunting other draw sequences");
    for (const row of [
      "events",
      "simulated time",
      "faults injected",
      "processes",
      "workload polls",
      "recipe segments",
      "trace hash",
    ])
      expect(shrink.stdout).toContain(`  ${row}`);
    const hashes = /trace hash\s+([0-9a-f]{8})\s+([0-9a-f]{8})/.exec(shrink.stdout)!;
    const command = /^replay: npx moonpool (replay .+)$/m.exec(shrink.stdout)![1]!;
    expect(command).toContain("--overrides ");
    const html = await readFile(path.join(out, `timeline-leader-election-vote-twice-${seed}-shrunk.html`), "utf8");
    // The page is its own run at debug level (another hash); it carries the shrunk run's replay command.
    expect(html).toContain(`"replayCommand":"npx moonpool ${command}"`);

    const args = command.split(" ").filter((a) => a !== "");
    const replay = await runCli([...args, "--no-trace"], { cwd: REPOSITORY });
    expect(replay.code).toBe(1);
    expect(replay.stdout).toContain(`hash=${hashes[2]}`);
    expect(replay.stdout).toContain('assertAlways("one leader per term") failed');
  });

  it("a seed that passes, a missing seed and bad overrides are usage errors", async () => {
    const passing = await runCli(["shrink", "leader-election", "--seed", "1"], { cwd: REPOSITORY });
    expect(passing.code).toBe(2);
    expect(passing.stderr).toContain("passes: there is no failure to shrink");
    const noSeed = await runCli(["shrink", "leader-election"], { cwd: REPOSITORY });
    expect(noSeed.code).toBe(2);
    expect(noSeed.stderr).toContain("--seed S is required");
    const badOverrides = await runCli(
      ["replay", "leader-election", "--seed", "1", "--overrides", "window=soon", "--no-trace"],
      { cwd: REPOSITORY },
    );
    expect(badOverrides.code).toBe(2);
    expect(badOverrides.stderr).toContain("--overrides: invalid value 'soon'");
  });
});

describe("moonpool shrink's stall rule", () => {
  const FIXTURE = fileURLToPath(new URL("./fixtures-shrink/", import.meta.url));

  it("stops the hunt when no smaller failure came in the last K runs and says where the best was found", async () => {
    // Bounded by runs, not by the default 2-minute budget: candidates share a realm (isolation is
    // seed-isolation.test.ts's subject) and the time budget is far above what ~420 runs need.
    const args = ["shrink", "fixed-failure", "--seed", "1", "--isolation", "shared", "--time-budget", "30m"];
    const shrink = await runCli(args, { cwd: FIXTURE });
    expect(shrink.code, shrink.stderr).toBe(0);
    const stopped =
      /^stopped: no smaller failure in the last (\d+) runs; best found at run (\d+): 201 events, 0 faults$/m.exec(
        shrink.stderr,
      );
    expect(stopped, shrink.stderr).not.toBeNull();
    const [since, bestAt] = [Number(stopped![1]), Number(stopped![2])];
    expect(since).toBeGreaterThanOrEqual(300);
    expect(shrink.stdout).toContain(`shrunk fixed-failure seed 1: ${since + bestAt} runs in `);
    expect(shrink.stdout).toContain(`(the hunt stalled: no smaller failure in the last ${since} runs;`);
    // The plain progress lines show the current best, not a bare run count.
    expect(shrink.stderr).toMatch(
      /^run 200\/1,000 · best: 201 events, 0 faults \(run \d+\) · hunting until run \d+ without a smaller failure$/m,
    );
    expect(shrink.stderr).not.toMatch(/^run \d+\/\d+$/m);
  });
});
