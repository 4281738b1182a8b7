/**
 * The HTML pages in a real browser: Debian's `chromium` driven by playwright-core (which downloads
 * nothing). Renders the campaign and timeline pages of `leader-election-vote-twice` and of a Paxos
 * planted bug, checks lanes, arrows, the failure marker and the coverage table, clicks a mark and
 * reads its tooltip, and saves screenshots in the report directory. Prints how long a timeline of
 * more than 10,000 events takes to open. Skipped (with a message) when no browser is installed.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderTimelineHtml, replayTimeline } from "../../src/cli/reporters/html/index.ts";
import { chatterSimulation } from "../fixtures/chatter.ts";
import { FIXTURES, runCli } from "./helpers.ts";

const CHROMIUM = process.env.MOONPOOL_CHROMIUM ?? "/usr/bin/chromium";
const BROWSER_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
/** The repository's report directory (git-ignored): the pages and screenshots stay there to look at. */
const REPORT_DIR = path.join(REPO, "moonpool-reports", "html-report-test");
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) {
  console.warn(
    `skipping the HTML report browser tests: no browser at ${CHROMIUM} ` +
      "(apt-get install -y chromium, as .ci/run does; or set MOONPOOL_CHROMIUM)",
  );
}

interface TimelineStats {
  lanes: number;
  marks: number;
  arrows: number;
  failure: boolean;
  events: number;
  firstRenderMs: number;
  drawnAtMs: number;
  lastDrawMs: number;
  story: boolean;
}

describe.skipIf(!hasBrowser)("HTML report in headless Chromium", () => {
  let context: BrowserContext;
  let page: Page;
  let userDataDir: string;

  beforeAll(async () => {
    await mkdir(REPORT_DIR, { recursive: true });
    userDataDir = await mkdtemp(path.join(os.tmpdir(), "moonpool-chromium-"));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: BROWSER_ARGS,
      viewport: { width: 1400, height: 760 },
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

  async function open(file: string): Promise<void> {
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-ready=true]");
  }

  const stats = () => page.evaluate(() => (globalThis as any).moonpoolTimeline.stats() as TimelineStats);

  /** The campaign page: outcome, coverage table, failures with replay commands; returns the first timeline page. */
  async function checkCampaign(dir: string, simulation: string, property: string): Promise<string> {
    await open(path.join(dir, "report.html"));
    const section = page.locator(`section.sim[data-simulation="${simulation}"]`);
    // Planted bugs declare expectFailure: the simulation passes because its seeds fail.
    await expect(section.locator(".badge").first().textContent()).resolves.toBe("failed as expected");
    const rows = section.locator("table.coverage-table tbody tr");
    expect(await rows.count()).toBeGreaterThan(0);
    const failed = section.locator('table.coverage-table tbody tr[data-status="FAIL"]', { hasText: property });
    expect(await failed.count()).toBe(1);
    expect(await failed.locator(".bar > span.bad").count()).toBe(1);
    await expect(section.locator(".failure-group .prop").first().textContent()).resolves.toContain(property);
    await expect(section.locator(".failure-group .cmd code").first().textContent()).resolves.toMatch(
      new RegExp(`^npx moonpool replay ${simulation} --seed \\d+`),
    );
    expect(await section.locator('svg.chart[data-chart="seeds"] rect').count()).toBeGreaterThan(0);
    // Run without --coverage: no code coverage section.
    expect(await section.locator(".code-coverage").count()).toBe(0);
    // Coverage over seeds: one dot per sometimes signal reached.
    const reached = await page.evaluate(
      (name) =>
        JSON.parse((globalThis as any).document.getElementById("moonpool-data").textContent).simulations.find(
          (s: { name: string }) => s.name === name,
        ).sometimesFirstReached.length as number,
      simulation,
    );
    expect(reached).toBeGreaterThan(0);
    expect(await section.locator('svg.chart[data-chart="coverage"] circle').count()).toBe(reached);
    await page.screenshot({ path: path.join(dir, "campaign.png"), fullPage: true });
    const href = await section.locator("a.timeline-link").first().getAttribute("href");
    expect(href).toMatch(/^timeline-.*\.html$/);
    return path.join(dir, href!);
  }

  /** The timeline page: lanes, arrows and the failure drawn; a click on the failure's mark shows its fields. */
  async function checkTimeline(file: string, property: string, screenshot: string): Promise<void> {
    await open(file);
    // A failing timeline opens on its story (html-story-browser.test.ts); these checks are of every event.
    expect((await stats()).story).toBe(true);
    await page.locator('button[data-action="story"]').click();
    const drawn = await stats();
    expect(drawn.story).toBe(false);
    expect(drawn.lanes).toBeGreaterThanOrEqual(3);
    expect(await page.locator(".lane-label").count()).toBe(drawn.lanes);
    expect(drawn.arrows).toBeGreaterThan(0);
    expect(drawn.marks).toBeGreaterThan(0);
    expect(drawn.failure).toBe(true);
    expect(await page.locator("#failure-marker").isVisible()).toBe(true);

    const failureSeq = await page.evaluate(() => {
      const data = (globalThis as any).moonpoolTimeline.data();
      return data.events.find((e: { category: string }) => e.category === "failure").seq as number;
    });
    const at = await page.evaluate(
      (seq) => (globalThis as any).moonpoolTimeline.locate(seq) as { x: number; y: number },
      failureSeq,
    );
    await page.mouse.click(at.x, at.y);
    const tooltip = page.locator("#tooltip");
    expect(await tooltip.isVisible()).toBe(true);
    const text = (await tooltip.textContent())!;
    expect(text).toContain("seed_failure");
    expect(text).toContain(property);
    await page.screenshot({ path: screenshot });

    // Filtering a kind away removes its marks; search counts what matches.
    await page.mouse.click(5, 5);
    const before = await stats();
    await page.locator('input[data-category="fault"]').uncheck();
    const after = await stats();
    expect(after.marks).toBeLessThan(before.marks);
    await page.locator('input[data-category="fault"]').check();
    const failures = await page.evaluate(
      () =>
        JSON.parse((globalThis as any).document.getElementById("moonpool-data").textContent).failures.length as number,
    );
    await page.locator("input[type=search]").fill("seed_failure");
    await expect(page.locator(".toolbar .note").textContent()).resolves.toBe(
      failures === 1 ? "1 match" : `${failures} matches`,
    );
    // Zooming in shows a shorter stretch of time.
    const range = await page.locator(".statusline").textContent();
    await page.locator('button[data-action="zoom-in"]').click();
    expect(await page.locator(".statusline").textContent()).not.toBe(range);
  }

  it("code coverage on the campaign page: figures, lowest-covered files, link to the coverage view", async () => {
    const dir = path.join(REPORT_DIR, "coverage");
    await rm(dir, { recursive: true, force: true });
    const project = fileURLToPath(new URL("./fixtures-coverage/", import.meta.url));
    const result = await runCli(
      ["run", "planted", "-n", "4", "--base-seed", "3", "--coverage", "-r", "html", "-o", dir],
      {
        cwd: project,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    await open(path.join(dir, "report.html"));
    const section = page.locator('section.sim[data-simulation="planted"] .code-coverage');
    expect(await section.locator(".card .k").allTextContents()).toEqual(["lines", "branches", "functions", "blocks"]);
    for (const value of await section.locator(".card .v").allTextContents()) expect(value).toMatch(/^\d+\.\d%$/);
    const rows = section.locator("table.code-coverage-table tbody tr");
    expect(await rows.count()).toBe(2);
    await expect(rows.first().locator("td").first().textContent()).resolves.toBe("system.ts");
    const href = await section.locator("a.coverage-link").getAttribute("href");
    expect(href).toBe("coverage/html/index.html");
    expect(existsSync(path.join(dir, href!))).toBe(true);
    await page.screenshot({ path: path.join(dir, "campaign.png"), fullPage: true });
  });

  it("leader-election-vote-twice: the campaign page and the timeline of its split brain", async () => {
    const dir = path.join(REPORT_DIR, "leader-election-vote-twice");
    await rm(dir, { recursive: true, force: true });
    const result = await runCli(
      ["run", "leader-election-vote-twice", "--seed", "6904382702678391", "--reporter", "html", "--out", dir],
      { cwd: REPO },
    );
    // A planted bug declares expectFailure: the seed fails, the run passes.
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("failed as expected (expectFailure)");
    expect(result.stderr).toMatch(/^wrote .*leader-election-vote-twice[/\\]report\.html$/m);
    const timeline = await checkCampaign(dir, "leader-election-vote-twice", "one leader per term");
    await checkTimeline(timeline, "one leader per term", path.join(dir, "timeline.png"));
    console.log(`screenshots: ${path.join(dir, "campaign.png")}, ${path.join(dir, "timeline.png")}`);
  });

  it("paxos-no-promise-check: the campaign page and the timeline of a planted Paxos bug", async () => {
    const dir = path.join(REPORT_DIR, "paxos-no-promise-check");
    await rm(dir, { recursive: true, force: true });
    const result = await runCli(["run", "paxos-no-promise-check", "--seed", "1", "--reporter", "html", "--out", dir], {
      cwd: REPO,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("failed as expected (expectFailure)");
    const property = "acceptor never accepts below its promise";
    const timeline = await checkCampaign(dir, "paxos-no-promise-check", property);
    await checkTimeline(timeline, property, path.join(dir, "timeline.png"));
    console.log(`screenshots: ${path.join(dir, "campaign.png")}, ${path.join(dir, "timeline.png")}`);
  });

  it("an explored campaign: timelines and frontier charts, discoveries by kind, recipe tree to each bug", async () => {
    const dir = path.join(REPORT_DIR, "gated-explore");
    await rm(dir, { recursive: true, force: true });
    const result = await runCli(
      ["run", "gated", "--iterations", "4", "--base-seed", "1", "--reporter", "html,json", "--out", dir],
      { cwd: FIXTURES },
    );
    const json = JSON.parse(await readFile(path.join(dir, "report.json"), "utf8"));
    const bugs = json.simulations[0].report.exploration.bugRecipes as { recipe: string }[];
    expect(bugs.length, result.stderr).toBeGreaterThan(0);
    await open(path.join(dir, "report.html"));
    const section = page.locator('section.sim[data-simulation="gated"]');
    expect(await section.locator('svg.chart[data-chart="timelines"] path').count()).toBe(1);
    expect(await section.locator('svg.chart[data-chart="frontier"] path').count()).toBe(1);
    expect(await section.locator("table.discoveries tbody tr").count()).toBe(
      Object.keys(json.simulations[0].report.exploration.discoveriesByKind).length,
    );
    expect(await section.locator(".recipe-tree .badge").count()).toBe(bugs.length);
    // Every reseed point of the first bug's recipe is a node of the tree.
    for (const step of bugs[0]!.recipe.split(" -> "))
      expect(await section.locator(".recipe-tree code", { hasText: step }).count()).toBeGreaterThan(0);
    // No sometimes assertion in this simulation: no coverage-over-seeds chart.
    expect(await section.locator('svg.chart[data-chart="coverage"]').count()).toBe(0);
    await page.screenshot({ path: path.join(dir, "campaign.png"), fullPage: true });
  });

  it("opens the timeline of a seed with more than 10,000 events (render time printed)", async () => {
    const config = chatterSimulation({ processes: 5, messages: 1000, failAt: 500 }).build();
    const data = await replayTimeline(config, "chatter", 7, "", "npx moonpool replay chatter --seed 7");
    expect(data.events.length).toBeGreaterThanOrEqual(10_000);
    const file = path.join(REPORT_DIR, "timeline-10k.html");
    const html = renderTimelineHtml(data);
    await writeFile(file, html);
    const startMs = performance.now();
    await open(file);
    const openMs = performance.now() - startMs;
    const drawn = await stats();
    expect(drawn.events).toBe(data.events.length);
    await page.evaluate(() => (globalThis as any).moonpoolTimeline.setMode("all"));
    expect((await stats()).arrows).toBeGreaterThan(0);
    expect(drawn.failure).toBe(true);
    // A pan redraws only what is on screen.
    const before = (await stats()).marks;
    await page.mouse.move(700, 400);
    await page.mouse.down();
    await page.mouse.move(300, 400, { steps: 5 });
    await page.mouse.up();
    await page.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(resolve)));
    const panned = await stats();
    expect(panned.marks).not.toBe(before);
    const redrawMs = await page.evaluate(() => {
      const startMs = performance.now();
      (globalThis as any).moonpoolTimeline.showRange(0, 30_000);
      return performance.now() - startMs;
    });
    await page.screenshot({ path: path.join(REPORT_DIR, "timeline-10k.png") });
    console.log(
      `timeline of ${data.events.length} events, ${data.arrows.length} arrows ` +
        `(${Math.round(html.length / 1024)} KiB): ` +
        `drawn ${Math.round(drawn.drawnAtMs)} ms after navigation started ` +
        `(page script ${Math.round(drawn.firstRenderMs)} ms; ` +
        `goto to ready as seen by the test ${Math.round(openMs)} ms), ` +
        `a full redraw ${Math.round(redrawMs)} ms; target: under 2000 ms`,
    );
  });
});
