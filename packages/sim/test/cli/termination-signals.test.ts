/**
 * SIGTERM (CI cancellation, `timeout`, `docker stop`, Kubernetes) and SIGHUP (a closed terminal)
 * stop a campaign as SIGINT does: every seed finished so far is in each report, the report says
 * which signal stopped it, and the exit status is 128 + the signal's number, as a shell reports it.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { onTermination, signalExitCode, TERMINATION_SIGNALS } from "../../src/cli/termination.ts";
import { readJson, startSlowCampaign, tempDir } from "./helpers.ts";

describe("termination signals", () => {
  it("have the exit statuses a shell gives a process they killed", () => {
    expect(signalExitCode("SIGINT")).toBe(130);
    expect(signalExitCode("SIGTERM")).toBe(143);
    expect(signalExitCode("SIGHUP")).toBe(129);
  });

  it("the first signal aborts the work and is remembered, a second one exits at once; dispose stops listening", () => {
    const before = TERMINATION_SIGNALS.map((name) => process.listenerCount(name));
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const seen: string[] = [];
    const termination = onTermination((signal) => seen.push(signal));
    try {
      expect(termination.received()).toBeNull();
      expect(termination.signal.aborted).toBe(false);
      process.emit("SIGTERM");
      expect(seen).toEqual(["SIGTERM"]);
      expect(termination.signal.aborted).toBe(true);
      expect(termination.received()).toBe("SIGTERM");
      expect(exit).not.toHaveBeenCalled();
      process.emit("SIGHUP");
      expect(exit).toHaveBeenCalledWith(129);
      // The first signal is the one the command reports.
      expect(termination.received()).toBe("SIGTERM");
      expect(seen).toEqual(["SIGTERM"]);
    } finally {
      termination.dispose();
      exit.mockRestore();
    }
    expect(TERMINATION_SIGNALS.map((name) => process.listenerCount(name))).toEqual(before);
  });

  it.each([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)(
    "%s mid-campaign on 2 workers writes every finished seed to every reporter and exits %i",
    async (signal, status) => {
      const out = await tempDir(`signal-${signal}`);
      const { child, done, output, firstProgress } = startSlowCampaign("json,junit,html", out);
      // The first plain progress line says how many seeds have finished: wait for it, not for a time.
      const finished = await firstProgress();
      expect(finished, output().stderr).toBeGreaterThan(0);
      child.kill(signal);
      const result = await done;
      expect(result.code, result.stderr).toBe(status);
      expect(result.signal).toBeNull();
      expect(result.stderr).toContain(`interrupted by ${signal}: stopping`);
      expect(result.stdout).toContain(`1 interrupted (run stopped by ${signal})`);
      const report = await readJson(path.join(out, "report.json"));
      expect(report.interrupted).toBe(true);
      expect(report.interruptedBy).toBe(signal);
      const entry = report.simulations[0];
      expect(entry.stoppedBy).toBe("interrupted");
      // Every seed counted as finished before the signal is in the report, as a prefix of the campaign.
      expect(entry.report.iterations).toBeGreaterThanOrEqual(finished);
      expect(entry.report.iterations).toBeLessThan(100_000);
      expect(entry.report.seeds.map((s: { index: number }) => s.index)).toEqual(
        Array.from({ length: entry.report.iterations }, (_, i) => i),
      );
      expect(existsSync(path.join(out, "junit.xml"))).toBe(true);
      expect(existsSync(path.join(out, "report.html"))).toBe(true);
    },
  );
});
