/**
 * `--reporter html` and `moonpool replay --html`: self-contained HTML pages of a campaign and of
 * single timelines. The campaign page links to a timeline page of the first failing timeline of
 * each violated property (replayed in this thread with debug-level trace events, so messages show).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseRecipe } from "../../../engine/recipe.ts";
import { Campaign } from "../../../runner/campaign.ts";
import type { SimulationConfig } from "../../../runner/config.ts";
import type { TraceEvent } from "../../../world/trace-log.ts";
import type { RunReportFile } from "../../run-report.ts";
import { buildCampaignData, failureGroups, type TimelineLink } from "./campaign-data.ts";
import { renderPage } from "./page.ts";
import { buildTimelineData, packTimelineEvents, type TimelineData } from "./timeline-data.ts";

export { buildCampaignData, type CampaignData } from "./campaign-data.ts";
export {
  buildTimelineData,
  unpackTimelineEvents,
  type PackedEvents,
  type TimelineData,
  type TimelineInput,
} from "./timeline-data.ts";

/** Timeline pages written per simulation by `--reporter html` (one per violated property). */
export const HTML_TIMELINES_PER_SIMULATION = 5;

export function renderCampaignHtml(file: RunReportFile, links: readonly TimelineLink[] = []): string {
  const failed = file.simulations.filter((s) => s.status === "failed").length;
  const title = `moonpool: ${file.simulations.length - failed} passed, ${failed} failed`;
  return renderPage("campaign", title, buildCampaignData(file, links));
}

export function renderTimelineHtml(data: TimelineData): string {
  const recipe = data.recipe === "" ? "" : ` (${data.recipe})`;
  const title = `${data.simulation} seed ${data.seed}${recipe}: ${data.ok ? "passed" : "failed"}`;
  const { events, ...rest } = data;
  return renderPage("timeline", title, { ...rest, packedEvents: packTimelineEvents(events) });
}

/**
 * Runs one timeline again in this thread and keeps its trace events from `debug` up; the debug
 * events are kept aside, so the page's trace hash is the run's.
 */
export async function replayTimeline(
  config: SimulationConfig,
  simulation: string,
  seed: number,
  recipe: string,
  replayCommand: string,
): Promise<TimelineData> {
  let events: readonly TraceEvent[] = [];
  const campaign = new Campaign(config);
  const { result } = await campaign.runSingleSeed(seed, {
    breakpoints: parseRecipe(recipe),
    explore: false,
    keepLevel: "debug",
    onTrace: (all) => (events = all),
  });
  return buildTimelineData({
    simulation,
    seed,
    recipe,
    ok: result.ok,
    simulatedTimeMs: result.simulatedTimeMs,
    traceHash: result.traceHash,
    replayCommand,
    failures: result.failures,
    events,
  });
}

export function timelineFileName(simulation: string, seed: number, recipe: string): string {
  const suffix = recipe === "" ? "" : `-r${recipe.split("->").length}`;
  return `timeline-${simulation.replace(/[^A-Za-z0-9_.-]/g, "_")}-${seed}${suffix}.html`;
}

/**
 * Writes `report.html` (named `fileName`) and the timeline pages of the first failing timeline of
 * each property into `outDir`; returns the paths written, the campaign page first.
 */
export async function writeHtmlReport(
  file: RunReportFile,
  configs: ReadonlyMap<string, SimulationConfig>,
  outDir: string,
  fileName: string,
): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const links: TimelineLink[] = [];
  const written: string[] = [];
  for (const entry of file.simulations) {
    const config = configs.get(entry.name);
    if (config === undefined) continue;
    // A seed whose worker was lost (past --timeout, or the thread died) would hang or kill this
    // process when replayed here: it gets no timeline page. Such groups are named by failure kind.
    const firsts = failureGroups(entry, [])
      .filter((g) => g.property !== "timeout" && g.property !== "workerCrash")
      .map((g) => g.timelines[0]!)
      .slice(0, HTML_TIMELINES_PER_SIMULATION);
    for (const t of firsts) {
      const data = await replayTimeline(config, entry.name, t.seed, t.recipe, t.replayCommand);
      const name = timelineFileName(entry.name, t.seed, t.recipe);
      const target = path.join(outDir, name);
      await writeFile(target, renderTimelineHtml(data));
      links.push({ simulation: entry.name, seed: t.seed, recipe: t.recipe, href: name });
      written.push(target);
    }
  }
  const target = path.join(outDir, fileName);
  await writeFile(target, renderCampaignHtml(file, links));
  return [target, ...written];
}
