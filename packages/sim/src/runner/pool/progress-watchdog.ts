/**
 * Hang detection by progress, not by total duration (docs/decisions.md D25): a seed is hung when
 * no engine step started for the hang limit, read from the cells its engine publishes
 * (engine/progress.ts). A slow seed that keeps stepping never trips it, however long it runs
 * (an explored root is bounded by its timeline budget); a step that never returns, a synchronous
 * loop or an endless promise chain inside one step stops the step count, and trips it.
 */
import { readProgress, resetProgress, type ProgressCells, type ProgressSnapshot } from "../../engine/progress.ts";
import { formatDuration } from "../report-format.ts";

/** A generous hang limit: steps take microseconds to milliseconds; a minute without one is a hang. */
export const DEFAULT_HANG_TIMEOUT_MS = 60_000;

/** The watchdog looks this many times per limit (within the bounds below). */
const POLLS_PER_LIMIT = 10;
const MIN_POLL_MS = 5;
const MAX_POLL_MS = 1_000;

/** A task found hung: how long it went without a step, and the last step it started (if any). */
export interface Hang {
  /** The limit that applied: the hang limit, or the longer grace before the first step. */
  readonly silentMs: number;
  /** The last step started, or null when the task never started a step. */
  readonly lastStep: { readonly step: number; readonly simulatedMs: number } | null;
}

/** `hung: no engine step for 1.00s (last step #12 at simulated 3.20s)`. */
export function formatHang(hang: Hang): string {
  const last =
    hang.lastStep === null
      ? "no step started yet: stuck loading or building the simulation"
      : `last step #${hang.lastStep.step} at simulated ${formatDuration(hang.lastStep.simulatedMs)}`;
  return `hung: no engine step for ${formatDuration(hang.silentMs)} (${last})`;
}

const NOTHING_YET: ProgressSnapshot = { steps: 0, generation: 0, timeUs: 0 };

export class ProgressWatchdog {
  private readonly timer: NodeJS.Timeout;
  private last: ProgressSnapshot = NOTHING_YET;
  private lastChangeMs = performance.now();
  private stepped = false;
  private stopped = false;

  /**
   * Polls `read` until `stop()`; calls `onHung` once when no step started for `limitMs`. Before
   * the first step (worker start, module load on a loaded machine) it allows at least the default
   * limit, so a small limit cannot fail a seed that is still loading.
   */
  constructor(
    private readonly read: () => ProgressSnapshot,
    private readonly limitMs: number,
    private readonly onHung: (hang: Hang) => void,
  ) {
    if (!(limitMs > 0) || !Number.isFinite(limitMs))
      throw new RangeError(`the hang limit must be a positive number of milliseconds, got ${String(limitMs)}`);
    const pollMs = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, limitMs / POLLS_PER_LIMIT));
    this.timer = setInterval(() => this.poll(), pollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private poll(): void {
    if (this.stopped) return;
    const now = performance.now();
    const seen = this.read();
    // Any change is progress: the step count rises within an engine, the generation with each new one.
    if (seen.steps !== this.last.steps || seen.generation !== this.last.generation) {
      this.last = seen;
      this.lastChangeMs = now;
      if (seen.steps > 0) this.stepped = true;
      return;
    }
    const allowedMs = this.stepped ? this.limitMs : Math.max(this.limitMs, DEFAULT_HANG_TIMEOUT_MS);
    if (now - this.lastChangeMs < allowedMs) return;
    this.stop();
    this.onHung({
      silentMs: allowedMs,
      lastStep: this.last.steps > 0 ? { step: this.last.steps, simulatedMs: this.last.timeUs / 1000 } : null,
    });
  }
}

/**
 * Watches the task a worker starts next through the cells its engines write: the worker is idle
 * between tasks, so the cells are cleared first and the task's first step reads as progress.
 */
export function watchTask(cells: ProgressCells, limitMs: number, onHung: (hang: Hang) => void): ProgressWatchdog {
  resetProgress(cells);
  return new ProgressWatchdog(() => readProgress(cells), limitMs, onHung);
}
