/**
 * The timeline page's story view in a real browser (Debian's chromium through playwright-core), on
 * the README's split brain (`leader-election-vote-twice`): after "go to failure" the window holds
 * the two conflicting votes and the failing assertion, every mark is labelled, the axis starts at or
 * after 0, heartbeats are folded into bands; and the point of no return, when the page has one,
 * drawn as a shaded window and a curve. Saves the README's screenshot of the story view.
 * Skipped (with a message) when no browser is installed.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaderElectionSimulation } from "../../../../examples/leader-election/simulation.ts";
import { renderTimelineHtml, replayTimeline, type TimelineData } from "../../src/cli/reporters/html/index.ts";

const CHROMIUM = process.env.MOONPOOL_CHROMIUM ?? "/usr/bin/chromium";
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const REPORT_DIR = path.join(REPO, "moonpool-reports", "html-story-test");
/** The README's screenshot, rewritten by this test (MOONPOOL_README_SCREENSHOTS=1). */
const README_IMAGE = path.join(REPO, "docs", "images", "story-view.png");
const SEED = 6904382702678391;
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) console.warn(`skipping the story view browser tests: no browser at ${CHROMIUM}`);

interface Stats {
  story: boolean;
  fromMs: number;
  toMs: number;
  marks: number;
  marksDrawn: { seq: number; name: string; label: string; x: number }[];
  bands: { lane: number; fromMs: number; toMs: number; count: number; label: string }[];
}

describe.skipIf(!hasBrowser)("the story view in headless Chromium", () => {
  let context: BrowserContext;
  let page: Page;
  let userDataDir: string;
  let data: TimelineData;

  beforeAll(async () => {
    await mkdir(REPORT_DIR, { recursive: true });
    const config = leaderElectionSimulation({ bug: "vote-twice" }).build();
    data = await replayTimeline(
      config,
      "leader-election-vote-twice",
      SEED,
      "",
      `npx moonpool replay leader-election-vote-twice --seed ${SEED}`,
    );
    userDataDir = await mkdtemp(path.join(os.tmpdir(), "moonpool-chromium-"));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      viewport: { width: 1400, height: 640 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => {
      throw error;
    });
  });

  afterAll(async () => {
    await context?.close();
    if (userDataDir !== undefined) await rm(userDataDir, { recursive: true, force: true });
  });

  async function open(name: string, timeline: TimelineData): Promise<void> {
    const file = path.join(REPORT_DIR, name);
    await writeFile(file, renderTimelineHtml(timeline));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-ready=true]");
  }
  const stats = () => page.evaluate(() => (globalThis as any).moonpoolTimeline.stats() as Stats);

  it("go to failure frames the two conflicting votes and the failing assertion, every mark labelled", async () => {
    await open("timeline-story.html", data);
    // A failing timeline opens on its story; "all events" and back, then "go to failure".
    expect((await stats()).story).toBe(true);
    await page.locator('button[data-action="story"]').click();
    expect((await stats()).story).toBe(false);
    await page.locator('button[data-action="story"]').click();
    await page.locator('button[data-action="failure"]').click();
    const s = await stats();
    expect(s.story).toBe(true);
    expect(s.fromMs).toBeGreaterThanOrEqual(0);
    const width = await page.locator("canvas").evaluate((c) => (c as unknown as { clientWidth: number }).clientWidth);
    const visible = s.marksDrawn.filter((m) => m.x >= 0 && m.x <= width);
    const seen = new Set(visible.map((m) => m.seq));
    const votes = data.events.filter((e) => e.name === "vote_granted" && e.fields.term === 1);
    expect(votes.map((e) => e.fields.candidate)).toEqual(["10.0.1.1", "10.0.1.3"]);
    for (const v of votes) expect(seen.has(v.seq), `vote ${v.fields.candidate} on screen`).toBe(true);
    const failure = data.events.find((e) => e.name === "seed_failure")!;
    expect(seen.has(failure.seq)).toBe(true);
    // Every mark on screen has a label naming its event; the votes' and the failure's say what they are.
    expect(visible.length).toBe(s.marks);
    for (const m of visible) expect(m.label, `mark of seq ${m.seq} (${m.name})`).not.toBe("");
    for (const v of votes)
      expect(visible.find((m) => m.seq === v.seq)!.label).toContain(
        `vote_granted term=1 candidate=${v.fields.candidate}`,
      );
    expect(visible.find((m) => m.seq === failure.seq)!.label).toContain('assertAlways("one leader per term") failed');
    // Only the slice is drawn: no heartbeat is a mark; the heartbeats are folded into labelled bands.
    const heartbeats = new Set(
      data.events.filter((e) => String(e.fields.method ?? "").endsWith(".heartbeat")).map((e) => e.seq),
    );
    expect(heartbeats.size).toBeGreaterThan(100);
    expect(s.marksDrawn.filter((m) => heartbeats.has(m.seq))).toEqual([]);
    const slice = new Set(data.slice);
    expect(s.marksDrawn.every((m) => slice.has(m.seq))).toBe(true);
    await page.locator('button[data-action="fit"]').click();
    const fitted = await stats();
    expect(fitted.fromMs).toBeGreaterThanOrEqual(0);
    const beatBands = fitted.bands.filter((b) => b.label.includes("heartbeat"));
    expect(beatBands.length).toBeGreaterThanOrEqual(3);
    expect(beatBands.reduce((n, b) => n + b.count, 0)).toBeGreaterThan(heartbeats.size);
    // The vote messages of the slice are drawn as arrows; a screenshot of the story for the README.
    await page.locator('button[data-action="failure"]').click();
    const shot = path.join(REPORT_DIR, "story-view.png");
    await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1400, height: 640 } });
    if (process.env.MOONPOOL_README_SCREENSHOTS === "1") {
      await mkdir(path.dirname(README_IMAGE), { recursive: true });
      await page.screenshot({ path: README_IMAGE, clip: { x: 0, y: 0, width: 1400, height: 640 } });
    }
    console.log(`screenshot: ${shot}`);
  });

  it("every event view never draws time before 0, on fit and on go to failure", async () => {
    await open("timeline-story.html", data);
    await page.evaluate(() => (globalThis as any).moonpoolTimeline.setMode("all"));
    await page.locator('button[data-action="fit"]').click();
    expect((await stats()).fromMs).toBeGreaterThanOrEqual(0);
    await page.locator('button[data-action="failure"]').click();
    const s = await stats();
    expect(s.story).toBe(false);
    expect(s.fromMs).toBeGreaterThanOrEqual(0);
    expect(s.toMs).toBeGreaterThan(data.failure!.timeMs);
    // Zooming out and panning left stop at time 0 too.
    await page.locator('button[data-action="zoom-out"]').click();
    await page.mouse.move(500, 400);
    await page.mouse.down();
    await page.mouse.move(1300, 400, { steps: 4 });
    await page.mouse.up();
    expect((await stats()).fromMs).toBeGreaterThanOrEqual(0);
  });

  it("the point of no return: a shaded window on the timeline and the probability curve, only when present", async () => {
    const failureUs = Math.round(data.failure!.timeMs * 1000);
    const cutPoints = Array.from({ length: 8 }, (_, k) => {
      const atUs = Math.round((failureUs * k) / 8);
      const failures = k < 6 ? 2 + k : 20;
      return {
        atUs,
        runs: 20,
        failures,
        low: Math.max(0, failures / 20 - 0.15),
        high: Math.min(1, failures / 20 + 0.15),
      };
    });
    const doom = { cutPoints, savedUntilUs: cutPoints[5]!.atUs, doomedFromUs: cutPoints[6]!.atUs };
    await open("timeline-doom.html", { ...data, doom });
    const chart = page.locator('svg.chart[data-chart="doom"]');
    expect(await chart.count()).toBe(1);
    expect(await chart.locator("circle.cut-point").count()).toBe(8);
    expect(await chart.locator("rect.doom-window").count()).toBe(1);
    await expect(page.locator(".doom .note").textContent()).resolves.toContain("point of no return");
    // The window is inside the story's frame.
    const s = await stats();
    expect(s.fromMs).toBeLessThanOrEqual(doom.savedUntilUs / 1000);
    expect(s.toMs).toBeGreaterThanOrEqual(doom.doomedFromUs / 1000);
    await page.screenshot({ path: path.join(REPORT_DIR, "doom.png") });

    await open("timeline-story.html", data);
    expect(await page.locator('svg.chart[data-chart="doom"]').count()).toBe(0);
  });
});
