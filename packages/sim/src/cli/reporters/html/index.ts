/**
 * `--reporter html` and `moonpool replay --html`: self-contained HTML pages of a campaign and of
 * single timelines. The campaign page links to a timeline page of the first failing timeline of
 * each violated property (replayed in a worker thread with debug-level trace events, so messages show).
 */
import path from "node:path";
import type { SimulationConfig } from "../../../runner/config.ts";
import { LOST_SEED_KINDS, type SeedFailureKind, type SeedResult } from "../../../runner/seed-result.ts";
import type { TaskOutcome } from "../../../runner/pool/messages.ts";
import { formatHang } from "../../../runner/pool/progress-watchdog.ts";
import { WorkerPool } from "../../../runner/pool/worker-pool.ts";
import { replayWithTrace } from "../../../runner/timeline-replay.ts";
import type { BuildOverrides, SimulationSource } from "../../../runner/simulation-source.ts";
import { TraceEvent } from "../../../world/trace-log.ts";
import { ensureDir, writeReportFile } from "../../report-files.ts";
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
 * events are kept aside, so the page's trace hash is the run's. For `moonpool replay` (itself a
 * child process under a wall-clock limit) and tests; the reporters use `replayTimelineInWorker`.
 */
export async function replayTimeline(
  config: SimulationConfig,
  simulation: string,
  seed: number,
  recipe: string,
  replayCommand: string,
): Promise<TimelineData> {
  const { result, events } = await replayWithTrace(config, seed, recipe);
  return timelineOf(simulation, seed, recipe, replayCommand, result, events);
}

/** The page data of a replayed timeline: its outcome and trace. */
function timelineOf(
  simulation: string,
  seed: number,
  recipe: string,
  replayCommand: string,
  result: Pick<SeedResult, "ok" | "simulatedTimeMs" | "traceHash" | "failures">,
  events: readonly TraceEvent[],
): TimelineData {
  const { ok, simulatedTimeMs, traceHash, failures } = result;
  return buildTimelineData({
    simulation,
    seed,
    recipe,
    ok,
    simulatedTimeMs,
    traceHash,
    replayCommand,
    failures,
    events,
  });
}

export function timelineFileName(simulation: string, seed: number, recipe: string): string {
  const suffix = recipe === "" ? "" : `-r${recipe.split("->").length}`;
  return `timeline-${simulation.replace(/[^A-Za-z0-9_.-]/g, "_")}-${seed}${suffix}.html`;
}

/** Where a worker rebuilds a simulation to replay one of its timelines. */
export interface TimelineSource {
  readonly source: SimulationSource;
  readonly overrides: BuildOverrides;
  /** A shrunk run's overrides (`formatOverrides` text); absent: none. */
  readonly timelineOverrides?: string;
}

/** Why a timeline replayed in a worker gave no page. */
function lostReplay(outcome: Exclude<TaskOutcome<unknown>, { kind: "done" }>): string {
  switch (outcome.kind) {
    case "crashed":
      return `its replay crashed the worker (${outcome.cause})`;
    case "hung":
      return `its replay ${formatHang(outcome.hang)}`;
    case "error":
      return `its replay could not run (${outcome.name}: ${outcome.message})`;
    case "cancelled":
      return "its replay was cancelled";
  }
}

/**
 * `replayTimeline` in a worker of `pool`, with the containment of a campaign seed: a timeline that
 * aborts, exits, runs out of memory or hangs (no step for `hangTimeoutMs`) loses its page (the reason is
 * returned as a string) and never the command drawing it.
 */
export async function replayTimelineInWorker(
  pool: WorkerPool,
  from: TimelineSource,
  simulation: string,
  seed: number,
  recipe: string,
  replayCommand: string,
  hangTimeoutMs: number | null,
): Promise<TimelineData | string> {
  const outcome = await pool.run(
    {
      kind: "timeline",
      source: from.source,
      overrides: from.overrides,
      seed,
      recipe,
      timelineOverrides: from.timelineOverrides ?? "",
    },
    { hangTimeoutMs },
  );
  if (outcome.kind !== "done") return lostReplay(outcome);
  const { result, events } = outcome.outcome;
  // Structured clone dropped the events' class.
  const traceEvents = events.map((e) => new TraceEvent(e.seq, e.timeMs, e.source, e.level, e.name, e.fields));
  return timelineOf(simulation, seed, recipe, replayCommand, result, traceEvents);
}

/** How `writeHtmlReport` replays the failing timelines it draws. */
export interface HtmlReplays {
  /** Each simulation's source, by name (a simulation absent here gets no timeline pages). */
  readonly sources: ReadonlyMap<string, TimelineSource>;
  /** Wall-clock limit of one replay (the campaign's per-seed limit), or null. */
  /** Hang limit of a page's replay (progress-watchdog.ts), or null for none. */
  readonly hangTimeoutMs: number | null;
  /** Told about each timeline that got no page, and why. */
  readonly warn: (line: string) => void;
}

/**
 * Writes `report.html` (named `fileName`) and the timeline pages of the first failing timeline of
 * each property into `outDir`; returns the paths written, the campaign page first. The timelines
 * are replayed in a worker thread of their own (`replayTimelineInWorker`).
 */
export async function writeHtmlReport(
  file: RunReportFile,
  replays: HtmlReplays,
  outDir: string,
  fileName: string,
): Promise<string[]> {
  await ensureDir(outDir);
  const links: TimelineLink[] = [];
  const written: string[] = [];
  let pool: WorkerPool | null = null;
  try {
    for (const entry of file.simulations) {
      const from = replays.sources.get(entry.name);
      if (from === undefined) continue;
      // A seed whose worker was lost (hung, or the thread died) would only lose its
      // worker again: it gets no timeline page. Such groups are named by failure kind.
      const firsts = failureGroups(entry, [])
        .filter((g) => !LOST_SEED_KINDS.has(g.property as SeedFailureKind))
        .map((g) => g.timelines[0]!)
        .slice(0, HTML_TIMELINES_PER_SIMULATION);
      for (const t of firsts) {
        pool ??= new WorkerPool(1);
        const data = await replayTimelineInWorker(
          pool,
          from,
          entry.name,
          t.seed,
          t.recipe,
          t.replayCommand,
          replays.hangTimeoutMs,
        );
        if (typeof data === "string") {
          replays.warn(
            `html: no timeline page for ${entry.name} seed ${t.seed}${t.recipe === "" ? "" : ` recipe "${t.recipe}"`}: ${data}`,
          );
          continue;
        }
        const name = timelineFileName(entry.name, t.seed, t.recipe);
        const target = path.join(outDir, name);
        await writeReportFile(target, renderTimelineHtml(data));
        links.push({ simulation: entry.name, seed: t.seed, recipe: t.recipe, href: name });
        written.push(target);
      }
    }
  } finally {
    await pool?.close();
  }
  const target = path.join(outDir, fileName);
  await writeReportFile(target, renderCampaignHtml(file, links));
  return [target, ...written];
}
