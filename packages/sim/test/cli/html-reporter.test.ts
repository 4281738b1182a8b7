/**
 * `--reporter html` and `replay --html` through the real binary (no browser needed): which files
 * are written, that their paths are printed, that they are self-contained, and that without the
 * flag no HTML is written.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unpackTimelineEvents } from "../../src/cli/reporters/html/index.ts";
import { runCli, tempDir } from "./helpers.ts";

function pageData(html: string): any {
  const match = /<script type="application\/json" id="moonpool-data">(.*?)<\/script>/s.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!);
}

describe("html reporter", () => {
  it("writes the campaign page and one timeline page per violated property, and prints their paths", async () => {
    const out = await tempDir("html");
    const result = await runCli([
      "run",
      "planted-bug",
      "--base-seed",
      "3",
      "--workers",
      "1",
      "--reporter",
      "html",
      "--out",
      out,
    ]);
    expect(result.code, result.stderr).toBe(1);
    const files = (await readdir(out)).sort();
    expect(files.filter((f) => f.endsWith(".html"))).toHaveLength(2);
    expect(files).toContain("report.html");
    const timelineFile = files.find((f) => f.startsWith("timeline-planted-bug-"))!;
    expect(result.stderr).toContain(`wrote ${path.join(out, "report.html")}`);
    expect(result.stderr).toContain(`wrote ${path.join(out, timelineFile)}`);

    const campaign = await readFile(path.join(out, "report.html"), "utf8");
    // Self-contained: no external script, stylesheet or image.
    expect(campaign).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    const data = pageData(campaign);
    const sim = data.simulations[0];
    expect(sim.name).toBe("planted-bug");
    // A fixed number of seeds: no adaptive budget to describe.
    expect(sim.campaign).toBeNull();
    expect(sim.failureGroups).toHaveLength(1);
    expect(sim.failureGroups[0].property).toBe("writes are never corrupt");
    expect(sim.failureGroups[0].timelines[0].timelineHref).toBe(timelineFile);
    expect(sim.failureGroups[0].timelines[0].replayCommand).toMatch(/^npx moonpool replay planted-bug --seed \d+$/);
    expect(sim.assertionDetails.map((d: { message: string }) => d.message).sort()).toEqual([
      "a clean write",
      "writes are never corrupt",
    ]);

    const timeline = pageData(await readFile(path.join(out, timelineFile), "utf8"));
    expect(timeline.ok).toBe(false);
    expect(timeline.seed).toBe(sim.failureGroups[0].timelines[0].seed);
    expect(timeline.failure.message).toContain("writes are never corrupt");
    expect(unpackTimelineEvents(timeline.packedEvents).some((e) => e.name === "wrote")).toBe(true);
  });

  it("carries an adaptive campaign's split of its budget into the campaign page's data", async () => {
    const out = await tempDir("html-budget");
    const args = ["run", "counter", "--budget", "16", "--base-seed", "3", "--isolation", "shared"];
    const result = await runCli([...args, "--workers", "1", "--reporter", "html", "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    const page = await readFile(path.join(out, "report.html"), "utf8");
    const campaign = pageData(page).simulations[0].campaign;
    expect(campaign).toMatchObject({ kind: "adaptive", budgetTimelines: 16, timelines: 16, stoppedBy: "budget" });
    expect(campaign.arms.fresh.timelines + campaign.arms.continuation.timelines).toBe(16);
  });

  it("writes no HTML without --reporter html; the JSON says which seed first reached each signal", async () => {
    const out = await tempDir("nohtml");
    const result = await runCli([
      "run",
      "planted-bug",
      "--base-seed",
      "3",
      "--workers",
      "2",
      "--reporter",
      "json",
      "--out",
      out,
    ]);
    expect(result.code).toBe(1);
    expect(await readdir(out)).toEqual(["report.json"]);
    expect(result.stderr).not.toContain(".html");
    const entry = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")).simulations[0];
    // "a clean write" passes exactly in the seeds that pass: the first passing seed reached it.
    const firstPassing = entry.report.seeds.find((s: { ok: boolean }) => s.ok).index;
    expect(entry.sometimesFirstReached).toEqual([
      { message: "a clean write", kind: "sometimes", seedIndex: firstPassing },
    ]);
  });

  it("records no first-reached entries for a simulation without sometimes assertions", async () => {
    const out = await tempDir("noreached");
    const result = await runCli([
      "run",
      "gated",
      "--iterations",
      "3",
      "--base-seed",
      "1",
      "--workers",
      "1",
      "--reporter",
      "json",
      "--out",
      out,
    ]);
    // (Its exploration may find the gated bug: the exit status is not the point here.)
    const entry = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")).simulations[0];
    expect(entry.report.assertionDetails.length, result.stderr).toBeGreaterThan(0);
    expect(entry.sometimesFirstReached).toEqual([]);
  });

  it("replay --html writes the timeline page of one seed into the report directory", async () => {
    const out = await tempDir("replay-html");
    const run = await runCli([
      "run",
      "planted-bug",
      "--base-seed",
      "3",
      "--workers",
      "1",
      "--reporter",
      "json",
      "--out",
      out,
    ]);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")).simulations[0];
    const seed = report.failures[0].seed as number;
    expect(run.code).toBe(1);
    const result = await runCli([
      "replay",
      "planted-bug",
      "--seed",
      String(seed),
      "--html",
      "--no-trace",
      "--out",
      out,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`wrote ${path.join(out, `timeline-planted-bug-${seed}.html`)}`);
    const timeline = pageData(await readFile(path.join(out, `timeline-planted-bug-${seed}.html`), "utf8"));
    expect(timeline.seed).toBe(seed);
    expect(timeline.replayCommand).toBe(`npx moonpool replay planted-bug --seed ${seed}`);
    // The page shows the debug events the run did not capture, and still the run's trace hash.
    expect(unpackTimelineEvents(timeline.packedEvents).some((e) => e.name === "waiting")).toBe(true);
    expect(timeline.traceHash).toBe(report.report.seeds.find((s: { seed: number }) => s.seed === seed).traceHash);
  });
});
