/**
 * Progress of `moonpool shrink` on stderr: every kept candidate, hunt hit and lost run as a line,
 * and the smallest failure so far. On a TTY (not under CI) that is one status line redrawn in
 * place; elsewhere a plain line every `SHRINK_PLAIN_EVERY_RUNS` runs.
 */
import { formatCount } from "../runner/report-format.ts";
import type { ShrinkProgress } from "../runner/shrink/shrinker.ts";
import type { Colors } from "./colors.ts";

/** Off a terminal, a status line every this many runs. */
export const SHRINK_PLAIN_EVERY_RUNS = 50;

type Stream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** The status: runs, the smallest failure and where it was found, and when a hunt gives up. */
export function shrinkStatusText(p: ShrinkProgress): string {
  const parts = [
    `run ${formatCount(p.runs)}/${formatCount(p.maxRuns)}`,
    `best: ${formatCount(p.smallest.events)} events, ${formatCount(p.smallest.faults)} faults (run ${formatCount(p.bestAtRun)})`,
  ];
  if (p.stallAtRun !== null && p.stallAtRun < p.maxRuns)
    parts.push(`hunting until run ${formatCount(p.stallAtRun)} without a smaller failure`);
  return parts.join(" · ");
}

export interface ShrinkDisplay {
  update(p: ShrinkProgress): void;
  /** Clears the live line. */
  end(): void;
}

export function createShrinkDisplay(stream: Stream, live: boolean, c: Colors): ShrinkDisplay {
  let drawn = false;
  const clear = () => {
    if (drawn) stream.write("\r\x1b[2K");
    drawn = false;
  };
  const line = (text: string) => {
    clear();
    stream.write(`${text}\n`);
  };
  return {
    update(p) {
      if (p.kept)
        line(
          `${c.green("kept")} ${p.candidate}: events ${p.best.events}, faults ${p.best.faults} (run ${p.runs}/${p.maxRuns})`,
        );
      else if (p.hunted === true) line(`${c.cyan("hunt")} ${p.candidate} (run ${p.runs}/${p.maxRuns})`);
      else if (p.lost !== undefined) line(c.yellow(`not kept: ${p.candidate}: ${p.lost} (run ${p.runs}/${p.maxRuns})`));
      const status = shrinkStatusText(p);
      if (live) {
        const width = (stream.columns ?? 0) >= 20 ? stream.columns! : 120;
        stream.write(`\r\x1b[2K${status.length >= width ? `${status.slice(0, width - 2)}…` : status}`);
        drawn = true;
      } else if (p.runs % SHRINK_PLAIN_EVERY_RUNS === 0) line(c.dim(status));
    },
    end: clear,
  };
}
