/** `--hang-timeout`, its older name `--timeout`, and which hang limit applies (cli/hang-timeout.ts). */
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/errors.ts";
import { hangLimitMs, hangTimeoutFlag } from "../../src/cli/hang-timeout.ts";
import { DEFAULT_HANG_TIMEOUT_MS, formatHang } from "../../src/runner/pool/progress-watchdog.ts";

describe("the hang limit", () => {
  it("--hang-timeout and --timeout set the same limit; both at once is a usage error", () => {
    expect(hangTimeoutFlag({})).toBeNull();
    expect(hangTimeoutFlag({ hangTimeout: "2s" })).toBe(2_000);
    expect(hangTimeoutFlag({ timeout: "1m" })).toBe(60_000);
    expect(() => hangTimeoutFlag({ hangTimeout: "1s", timeout: "1s" })).toThrow(UsageError);
    expect(() => hangTimeoutFlag({ hangTimeout: "30" })).toThrow(/--hang-timeout '30': a duration needs a unit/);
  });

  it("the flag wins over the config file, which wins over the 60 s default", () => {
    expect(hangLimitMs(1_000, 5_000)).toBe(1_000);
    expect(hangLimitMs(null, 5_000)).toBe(5_000);
    expect(hangLimitMs(null, null)).toBe(DEFAULT_HANG_TIMEOUT_MS);
    expect(DEFAULT_HANG_TIMEOUT_MS).toBe(60_000);
  });

  it("the message names the silence and the last step started", () => {
    expect(formatHang({ silentMs: 1_000, lastStep: { step: 12, simulatedMs: 3_200 } })).toBe(
      "hung: no engine step for 1.00s (last step #12 at simulated 3.20s)",
    );
    expect(formatHang({ silentMs: 60_000, lastStep: null })).toMatch(/^hung: no engine step for 1m 00s \(no step/);
  });
});
