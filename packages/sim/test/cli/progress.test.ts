/**
 * The progress line says only what it knows: what the coverage rule waits for, a time estimate
 * only once the remaining work is bounded and the rate measured, labelled an upper bound; plain
 * lines off a terminal; no colour under NO_COLOR.
 */
import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import pc from "picocolors";
import { colorsFor } from "../../src/cli/colors.ts";
import {
  BAR_AFTER_MS,
  boundedFraction,
  createProgress,
  PLAIN_PROGRESS_INTERVAL_MS,
  RATE_MIN_MS,
  statusText,
  type ProgressStart,
} from "../../src/cli/progress.ts";
import type { CampaignProgress } from "../../src/runner/pool/pool-campaign.ts";
import { createShrinkDisplay } from "../../src/cli/shrink-progress.ts";
import type { RunSize } from "../../src/runner/shrink/measure.ts";
import { runCli } from "./helpers.ts";

const PLAIN = pc.createColors(false);
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is checked.
const ANY_ESCAPE = /\x1b/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour (SGR) sequences are what is checked.
const SGR = /\x1b\[[\d;]*m/;

/** A stop rule of 10 quiet seeds, a minimum of 500, a cap of 1,000. */
const UNTIL_STABLE: ProgressStart = {
  name: "sim",
  plannedSeeds: 1000,
  upperBound: true,
  description: "until stable",
  stopRule: { requiredQuietSeeds: 10, minSeeds: 500, maxSeeds: 1000 },
};
const FIXED: ProgressStart = { name: "sim", plannedSeeds: 200, upperBound: false, description: "200 seeds" };

function seeds(done: number, extra: Partial<CampaignProgress> = {}): CampaignProgress {
  return { done, failing: 0, sometimesHit: 2, sometimesTotal: 3, bugs: 0, ...extra };
}

function wait(quietSeeds: number, unreached = 0, minSeeds = 500) {
  return { quietSeeds, requiredQuietSeeds: 10, minSeeds, maxSeeds: 1000, unreached, noSignal: false };
}

class Capture extends Writable {
  text = "";
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the status line of a campaign run until coverage is stable", () => {
  it("counts an adaptive campaign's timelines against its budget", () => {
    const budget: ProgressStart = { ...FIXED, plannedSeeds: 1000, unit: "timelines", description: "budget" };
    const line = statusText(budget, seeds(40), 4_000, PLAIN);
    expect(line).toContain("sim  40/1,000 timelines · 0 failing");
    expect(line).toContain("10.0 timelines/s · ≤ 1m 36s left");
    expect(statusText(FIXED, seeds(40), 4_000, PLAIN)).toContain("40/200 seeds");
  });

  it("at seed 1 gives no time estimate: it says what the rule waits for", () => {
    const line = statusText(UNTIL_STABLE, seeds(1, { stopRule: wait(0, 1) }), 400, PLAIN);
    expect(line).toBe(
      "sim  1/≤1,000 seeds · 0 failing · sometimes 2/3 · bugs 0 · 2.5 seeds/s · waiting for minimum 1/500 seeds, 1 sometimes unreached, quiet 0/10 seeds",
    );
    expect(line).not.toMatch(/ETA|≤ \d.* to the cap/);
  });

  it("before the first seed, the rule's settings", () => {
    expect(statusText(UNTIL_STABLE, seeds(0), 0, PLAIN)).toContain("waiting for minimum 0/500 seeds, quiet 0/10 seeds");
  });

  it("once the rate is measured: an upper bound to the cap, labelled as such", () => {
    const line = statusText(UNTIL_STABLE, seeds(40, { stopRule: wait(4) }), 4_000, PLAIN);
    // 960 seeds left at 10 seeds/s.
    expect(line).toContain("· 10.0 seeds/s · ≤ 1m 36s to the cap · waiting for minimum 40/500 seeds, quiet 4/10 seeds");
  });

  it("past the minimum (or with --quick) it waits for quiet seeds only", () => {
    const quick = { ...UNTIL_STABLE, stopRule: { requiredQuietSeeds: 10, minSeeds: 0, maxSeeds: 1000 } };
    expect(statusText(quick, seeds(5, { stopRule: wait(4, 0, 0) }), 500, PLAIN)).toContain(
      "· waiting for quiet 4/10 seeds",
    );
  });

  it("without any coverage signal the cap is all it waits for", () => {
    const line = statusText(UNTIL_STABLE, seeds(20, { stopRule: { ...wait(0), noSignal: true } }), 2_000, PLAIN);
    expect(line).toContain("waiting for the cap of 1,000 seeds (no coverage signal)");
  });
});

describe("the bar's share of the work", () => {
  it("a fixed plan's seeds; until stable the minimum, or the cap without a coverage signal, else none", () => {
    expect(boundedFraction(FIXED, seeds(50))).toBe(0.25);
    expect(boundedFraction(UNTIL_STABLE, seeds(100, { stopRule: wait(3) }))).toBe(0.2);
    expect(boundedFraction(UNTIL_STABLE, seeds(600, { stopRule: wait(3) }))).toBeNull();
    expect(boundedFraction(UNTIL_STABLE, seeds(600, { stopRule: { ...wait(0), noSignal: true } }))).toBe(0.6);
  });
});

describe("the status line of a fixed plan", () => {
  it("no estimate from a rate that rests on too little, then an upper bound of the time left", () => {
    expect(statusText(FIXED, seeds(1), RATE_MIN_MS * 2, PLAIN)).not.toContain("left");
    expect(statusText(FIXED, seeds(50), RATE_MIN_MS / 2, PLAIN)).not.toContain("left");
    // 150 seeds left at 25 seeds/s.
    expect(statusText(FIXED, seeds(50), 2_000, PLAIN)).toBe(
      "sim  50/200 seeds · 0 failing · sometimes 2/3 · bugs 0 · 25.0 seeds/s · ≤ 6.00s left",
    );
  });
});

describe("the displays", () => {
  it("off a terminal: plain lines, no redraw, no escape", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const stream = new Capture(false);
    const progress = createProgress(stream, false, colorsFor(stream, {}));
    progress.start(FIXED);
    vi.advanceTimersByTime(PLAIN_PROGRESS_INTERVAL_MS);
    progress.update(seeds(50));
    progress.update(seeds(51)); // within the interval: not printed
    vi.advanceTimersByTime(PLAIN_PROGRESS_INTERVAL_MS);
    progress.update(seeds(120));
    progress.end();
    expect(stream.text.split("\n")).toEqual([
      "▶ sim: 200 seeds",
      "  sim  50/200 seeds · 0 failing · sometimes 2/3 · bugs 0 · 10.0 seeds/s · ≤ 15.00s left",
      "  sim  120/200 seeds · 0 failing · sometimes 2/3 · bugs 0 · 12.0 seeds/s · ≤ 6.67s left",
      "",
    ]);
  });

  it("on a terminal: one line redrawn in place, with a bar once the run is long", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const stream = new Capture(true);
    const progress = createProgress(stream, true, colorsFor(stream, { FORCE_COLOR: "1" }));
    progress.start(FIXED);
    vi.advanceTimersByTime(BAR_AFTER_MS * 2);
    progress.update(seeds(100, { failing: 1, bugs: 1 }));
    progress.end();
    expect(stream.text).toContain("\r\x1b[2K");
    expect(stream.text).toContain("██████████░░░░░░░░░░ 50% sim  100/200 seeds");
    expect(stream.text).toMatch(SGR);
    expect(stream.text.endsWith("\r\x1b[2K")).toBe(true);
  });

  it("NO_COLOR: no colour on a terminal, even with FORCE_COLOR", () => {
    const stream = new Capture(true);
    const colors = colorsFor(stream, { NO_COLOR: "1", FORCE_COLOR: "1" });
    const progress = createProgress(stream, true, colors);
    progress.start(FIXED);
    progress.update(seeds(100, { failing: 3, bugs: 3 }));
    progress.print(colors.red("✗ a failure"));
    progress.end();
    expect(stream.text).toContain("3 failing");
    expect(stream.text).not.toMatch(SGR);
  });

  it("NO_COLOR: a failing run's whole output has no escape sequence, FORCE_COLOR or not", async () => {
    const result = await runCli(["run", "planted-bug", "-x", "-n", "40", "--base-seed", "3"], {
      env: { NO_COLOR: "1", FORCE_COLOR: "1" },
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout + result.stderr).not.toMatch(ANY_ESCAPE);
    // FORCE_COLOR alone colours piped output.
    const forced = await runCli(["run", "planted-bug", "-x", "-n", "40", "--base-seed", "3"], {
      env: { NO_COLOR: "", FORCE_COLOR: "1" },
    });
    expect(forced.stdout).toMatch(SGR);
  });
});

describe("the shrink display", () => {
  const size = (events: number, faults: number) => ({ events, faults }) as RunSize;
  const report = (runs: number, kept: boolean) => ({
    runs,
    maxRuns: 1000,
    candidate: "stop at the first failure",
    kept,
    best: size(40, 2),
    smallest: size(40, 2),
    bestAtRun: 2,
    stallAtRun: runs > 10 ? 310 : null,
  });

  it("on a terminal: kept candidates as lines, the smallest failure on one line redrawn in place", () => {
    const stream = new Capture(true);
    const display = createShrinkDisplay(stream, true, colorsFor(stream, { NO_COLOR: "1" }));
    display.update(report(2, true));
    display.update(report(11, false));
    display.end();
    expect(stream.text).toBe(
      "kept stop at the first failure: events 40, faults 2 (run 2/1000)\n" +
        "\r\x1b[2Krun 2/1,000 · best: 40 events, 2 faults (run 2)" +
        "\r\x1b[2Krun 11/1,000 · best: 40 events, 2 faults (run 2) · hunting until run 310 without a smaller failure" +
        "\r\x1b[2K",
    );
  });

  it("off a terminal: kept candidates, and the status every 50 runs", () => {
    const stream = new Capture(false);
    const display = createShrinkDisplay(stream, false, colorsFor(stream, {}));
    for (let runs = 2; runs <= 100; runs++) display.update(report(runs, runs === 2));
    display.end();
    expect(stream.text.split("\n")).toEqual([
      "kept stop at the first failure: events 40, faults 2 (run 2/1000)",
      "run 50/1,000 · best: 40 events, 2 faults (run 2) · hunting until run 310 without a smaller failure",
      "run 100/1,000 · best: 40 events, 2 faults (run 2) · hunting until run 310 without a smaller failure",
      "",
    ]);
  });
});
