/**
 * The timelines the CLI replays for its pages (`--reporter html`, `shrink --html`) run in a worker
 * thread, as campaign seeds do: a seed that calls `process.abort()` or `process.exit()` there
 * fails its page, never the command.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { replayTimeline, replayTimelineInWorker, type TimelineData } from "../../src/cli/reporters/html/index.ts";
import { WorkerPool } from "../../src/runner/pool/worker-pool.ts";
import { plantedRare } from "./fixtures-robustness/planted-rare.sim.ts";
import { readJson, runCli, tempDir } from "./helpers.ts";

const ROBUSTNESS = fileURLToPath(new URL("./fixtures-robustness/", import.meta.url));
const source = (file: string, name: string) => ({
  source: { module: pathToFileURL(path.join(ROBUSTNESS, file)).href, export: name },
  overrides: { explore: false },
});

describe("replays for reports run contained", () => {
  it("a failing seed that calls process.abort(): report.html is written with that seed's failure", async () => {
    const out = await tempDir("abort-html");
    const result = await runCli(
      [
        "run",
        "aborting",
        "--iterations",
        "6",
        "--base-seed",
        "1",
        "--workers",
        "2",
        "--reporter",
        "json,html",
        "--out",
        out,
      ],
      { cwd: ROBUSTNESS },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.signal).toBeNull();
    const report = await readJson(path.join(out, "report.json"));
    const failure = report.simulations[0].failures[0];
    expect(failure.message).toContain("process.abort() is not supported in workers");
    const page = await readFile(path.join(out, "report.html"), "utf8");
    expect(page).toContain("process.abort() is not supported in workers");
    expect(page).toContain(String(failure.seed));
    // The failing timeline got its page too: its replay failed the same way, in a worker.
    expect(await readdir(out)).toContain(`timeline-aborting-${failure.seed}.html`);
  });

  it("moonpool replay of a seed whose code ends the process: exit 1 saying so, not the code's own status", async () => {
    const exited = await runCli(["replay", "exiting", "--seed", "1", "--no-trace"], { cwd: ROBUSTNESS });
    expect(exited.code, exited.stderr).toBe(1);
    expect(exited.stderr).toContain("the replay's process exited with code 7 while the timeline ran");
    // Seed 469527774716190 (#0 of base seed 1) aborts; 5687651646905699 (#4) does not.
    const aborted = await runCli(["replay", "aborting", "--seed", "469527774716190", "--no-trace"], {
      cwd: ROBUSTNESS,
    });
    expect(aborted.code, aborted.stderr).toBe(1);
    expect(aborted.stderr).toContain("the replay's process was killed by SIGABRT while the timeline ran");
    const passing = await runCli(["replay", "aborting", "--seed", "5687651646905699", "--no-trace"], {
      cwd: ROBUSTNESS,
    });
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toMatch(/^PASSED aborting seed 5687651646905699/);
    expect(passing.stderr).not.toContain("the replay's process");
  });

  const pool = new WorkerPool(1);
  afterAll(() => pool.close());

  it("a replay whose worker dies loses its page, with the reason, and the pool goes on", async () => {
    const lost = await replayTimelineInWorker(pool, source("exiting.sim.ts", "exiting"), "exiting", 3, "", "", 60_000);
    expect(lost).toMatch(/^its replay crashed the worker \(the worker exited with code 7/);
    const next = await replayTimelineInWorker(
      pool,
      source("aborting.sim.ts", "aborting"),
      "aborting",
      3,
      "",
      "",
      60_000,
    );
    expect(typeof next).toBe("object");
  });

  it("a replay in a worker is the in-thread replay: same trace hash and events; two seeds differ", async () => {
    const inWorker = async (seed: number) =>
      (await replayTimelineInWorker(
        pool,
        source("planted-rare.sim.ts", "plantedRare"),
        "planted-rare",
        seed,
        "",
        "cmd",
        60_000,
      )) as TimelineData;
    const config = plantedRare.build().build();
    const [a, again, b] = [await inWorker(11), await inWorker(11), await inWorker(12)];
    const local = await replayTimeline(config, "planted-rare", 11, "", "cmd");
    expect(a.traceHash).toBe(local.traceHash);
    expect(again.traceHash).toBe(a.traceHash);
    expect(a.events).toEqual(local.events);
    expect(a.events.some((e) => e.level === "debug" || e.name === "checked")).toBe(true);
    expect(b.traceHash).not.toBe(a.traceHash);
  });
});
