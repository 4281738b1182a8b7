/**
 * Progress of a campaign on stderr. On a TTY (and not under CI) one live status line, redrawn in
 * place, with a bar once a run is long and its work is bounded; elsewhere plain lines: one when a
 * simulation starts, one every `PLAIN_PROGRESS_INTERVAL_MS`, and failures as they are found.
 * Either way failures are printed in full (with their replay command) as soon as they are absorbed.
 *
 * A time estimate only where the remaining work is bounded: the seeds of a fixed plan, or the cap
 * of a plan that runs until coverage is stable. It is an upper bound (a bail, a root ending at its
 * failure or a stable coverage can end sooner) from the rate measured so far, and shown only
 * once that rate rests on `RATE_MIN_SAMPLES` and `RATE_MIN_MS`. Until coverage is stable the
 * line says what the stop rule waits for instead.
 */
import { formatCount, formatDuration } from "../runner/report-format.ts";
import pc from "picocolors";
import type { Colors } from "./colors.ts";
import type { CampaignProgress } from "../runner/pool/pool-campaign.ts";
import type { StopRuleWait } from "../runner/coverage-stop-rule.ts";

const NO_COLORS = pc.createColors(false);

/** Redraw at most this often on a TTY (and at least this often while seeds are slow). */
export const LIVE_REDRAW_MS = 100;
/** A plain status line at most this often. */
export const PLAIN_PROGRESS_INTERVAL_MS = 5_000;
/** A rate predicts nothing before this many seeds (timelines when exploring)... */
export const RATE_MIN_SAMPLES = 3;
/** ...and this much time. */
export const RATE_MIN_MS = 1_000;
/** The live line draws a bar once a run has gone on this long. */
export const BAR_AFTER_MS = 1_000;
const BAR_WIDTH = 20;

export interface ProgressStart {
  readonly name: string;
  /** Seeds this machine will run (at most, for until-stable). */
  readonly plannedSeeds: number;
  readonly upperBound: boolean;
  /** One line: what runs, where. */
  readonly description: string;
  /** With exploration: each root seed's timeline budget (progress and the time bound then count timelines). */
  readonly timelinesPerSeed?: number | null;
  /** What `plannedSeeds` and `done` count: seeds (default), or an adaptive campaign's timelines. */
  readonly unit?: "seeds" | "timelines";
  /** Until coverage is stable: the rule's settings, what the line shows before the first seed. */
  readonly stopRule?: {
    readonly requiredQuietSeeds: number;
    readonly minSeeds: number;
    readonly maxSeeds: number;
  } | null;
}

export interface ProgressDisplay {
  start(info: ProgressStart): void;
  update(progress: CampaignProgress): void;
  /** Prints text above the live line. */
  print(text: string): void;
  /** Clears the live line (before the report is printed). */
  end(): void;
}

type Stream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** How long the remaining work takes at the measured rate, or null while that rate rests on too little. */
function upperBoundMs(remaining: number, samples: number, elapsedMs: number): number | null {
  if (remaining <= 0 || samples < RATE_MIN_SAMPLES || elapsedMs < RATE_MIN_MS) return null;
  return (remaining * elapsedMs) / samples;
}

/** What the coverage rule still waits for: only the conditions not yet met. */
export function waitText(wait: StopRuleWait, done: number): string {
  if (wait.noSignal) return `waiting for the cap of ${formatCount(wait.maxSeeds)} seeds (no coverage signal)`;
  const parts: string[] = [];
  if (done < wait.minSeeds) parts.push(`minimum ${formatCount(done)}/${formatCount(wait.minSeeds)} seeds`);
  if (wait.unreached > 0) parts.push(`${wait.unreached} sometimes unreached`);
  parts.push(`quiet ${wait.quietSeeds}/${wait.requiredQuietSeeds} seeds`);
  return `waiting for ${parts.join(", ")}`;
}

/**
 * The bounded share of the work done, for the bar: the seeds of a fixed plan; until coverage is
 * stable, the minimum while it is not spent, or the cap when there is no coverage signal.
 */
export function boundedFraction(info: ProgressStart, p: CampaignProgress): number | null {
  if (!info.upperBound) return info.plannedSeeds > 0 ? Math.min(1, p.done / info.plannedSeeds) : null;
  // Without a coverage signal only the cap ends the campaign: that is the work.
  if (p.stopRule?.noSignal === true) return Math.min(1, p.done / p.stopRule.maxSeeds);
  const minSeeds = p.stopRule?.minSeeds ?? info.stopRule?.minSeeds ?? 0;
  return minSeeds > 0 && p.done < minSeeds ? p.done / minSeeds : null;
}

export function progressBar(fraction: number): string {
  const filled = Math.round(fraction * BAR_WIDTH);
  return `${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)} ${Math.floor(fraction * 100)}%`;
}

/** The status line of a campaign `elapsedMs` after it started. */
export function statusText(info: ProgressStart, p: CampaignProgress, elapsedMs: number, c: Colors): string {
  if (info.timelinesPerSeed != null && p.timelines !== undefined)
    return explorationStatusText(info, info.timelinesPerSeed, p, p.timelines, elapsedMs, c);
  const rate = elapsedMs > 0 ? (1000 * p.done) / elapsedMs : 0;
  const unit = info.unit ?? "seeds";
  const parts = [
    `${formatCount(p.done)}/${info.upperBound ? "≤" : ""}${formatCount(info.plannedSeeds)} ${unit}`,
    p.failing > 0 ? c.red(`${p.failing} failing`) : "0 failing",
    `sometimes ${p.sometimesHit}/${p.sometimesTotal}`,
    p.bugs > 0 ? c.red(`bugs ${p.bugs}`) : "bugs 0",
    `${rate.toFixed(1)} ${unit}/s`,
  ];
  const boundMs = upperBoundMs(info.plannedSeeds - p.done, p.done, elapsedMs);
  if (boundMs !== null)
    parts.push(info.upperBound ? `≤ ${formatDuration(boundMs)} to the cap` : `≤ ${formatDuration(boundMs)} left`);
  // Last, as the longest part: a narrow terminal cuts it first.
  const rule = info.upperBound ? (p.stopRule ?? startWait(info)) : null;
  if (rule !== null) parts.push(waitText(rule, p.done));
  return `${info.name}  ${parts.join(" · ")}`;
}

function startWait(info: ProgressStart): StopRuleWait | null {
  const rule = info.stopRule;
  if (rule == null) return null;
  return { ...rule, quietSeeds: 0, unreached: 0, noSignal: false };
}

/**
 * Exploration counts timelines: a root seed is up to its budget of them, and roots that end at
 * their first failure make the planned total an upper bound.
 */
function explorationStatusText(
  info: ProgressStart,
  perSeed: number,
  p: CampaignProgress,
  timelines: number,
  elapsedMs: number,
  c: Colors,
): string {
  const planned = info.plannedSeeds * perSeed;
  // Roots not yet absorbed run their full budget at most; absorbed ones are done.
  const remaining = Math.max(0, (info.plannedSeeds - p.done) * perSeed);
  const rate = elapsedMs > 0 ? (1000 * timelines) / elapsedMs : 0;
  const parts = [
    `${formatCount(p.done)}/${formatCount(info.plannedSeeds)} root seeds`,
    `${formatCount(timelines)}/≤${formatCount(planned)} timelines`,
    p.failing > 0 ? c.red(`${p.failing} failing`) : "0 failing",
    `sometimes ${p.sometimesHit}/${p.sometimesTotal}`,
    p.bugs > 0 ? c.red(`bugs ${p.bugs}`) : "bugs 0",
    `${rate.toFixed(1)} timelines/s`,
  ];
  const boundMs = upperBoundMs(remaining, timelines, elapsedMs);
  if (boundMs !== null) parts.push(`≤ ${formatDuration(boundMs)} left`);
  return `${info.name}  ${parts.join(" · ")}`;
}

/** Live single-line display for terminals. */
class LiveProgress implements ProgressDisplay {
  private info: ProgressStart | null = null;
  private last: CampaignProgress = { done: 0, failing: 0, sometimesHit: 0, sometimesTotal: 0, bugs: 0 };
  private startedMs = 0;
  private drawnMs = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly stream: Stream,
    private readonly c: Colors,
  ) {}

  start(info: ProgressStart): void {
    this.info = info;
    this.last = { done: 0, failing: 0, sometimesHit: 0, sometimesTotal: 0, bugs: 0 };
    this.startedMs = performance.now();
    this.stream.write(`${this.c.bold("▶")} ${info.name}: ${info.description}\n`);
    // Slow seeds (exploration) still get a moving rate and time bound.
    this.timer = setInterval(() => this.draw(), 5 * LIVE_REDRAW_MS);
    this.timer.unref();
    this.draw();
  }

  update(progress: CampaignProgress): void {
    this.last = progress;
    if (performance.now() - this.drawnMs >= LIVE_REDRAW_MS) this.draw();
  }

  print(text: string): void {
    this.clear();
    this.stream.write(text.endsWith("\n") ? text : `${text}\n`);
    this.draw();
  }

  end(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.clear();
    this.info = null;
  }

  private clear(): void {
    if (this.info !== null) this.stream.write("\r\x1b[2K");
  }

  private draw(): void {
    if (this.info === null) return;
    this.drawnMs = performance.now();
    const elapsedMs = this.drawnMs - this.startedMs;
    const columns = this.stream.columns ?? 0;
    const width = columns >= 20 ? columns : 120;
    const fraction = elapsedMs >= BAR_AFTER_MS ? boundedFraction(this.info, this.last) : null;
    const bar = fraction === null ? "" : `${progressBar(fraction)} `;
    let line = bar + statusText(this.info, this.last, elapsedMs, this.c);
    // Never wrap: a wrapped line cannot be redrawn in place. Measure and cut without colour codes.
    const plain = bar + statusText(this.info, this.last, elapsedMs, NO_COLORS);
    if (plain.length >= width) line = plain.slice(0, width - 2) + "…";
    this.stream.write(`\r\x1b[2K${line}`);
  }
}

/** Plain lines for logs and CI. */
class PlainProgress implements ProgressDisplay {
  private info: ProgressStart | null = null;
  private startedMs = 0;
  private printedMs = 0;

  constructor(
    private readonly stream: Stream,
    private readonly c: Colors,
  ) {}

  start(info: ProgressStart): void {
    this.info = info;
    this.startedMs = performance.now();
    this.printedMs = this.startedMs;
    this.stream.write(`▶ ${info.name}: ${info.description}\n`);
  }

  update(progress: CampaignProgress): void {
    const now = performance.now();
    if (this.info === null || now - this.printedMs < PLAIN_PROGRESS_INTERVAL_MS) return;
    this.printedMs = now;
    this.stream.write(`  ${statusText(this.info, progress, now - this.startedMs, this.c)}\n`);
  }

  print(text: string): void {
    this.stream.write(text.endsWith("\n") ? text : `${text}\n`);
  }

  end(): void {
    this.info = null;
  }
}

export function createProgress(stream: Stream, live: boolean, colors: Colors): ProgressDisplay {
  return live ? new LiveProgress(stream, colors) : new PlainProgress(stream, colors);
}
