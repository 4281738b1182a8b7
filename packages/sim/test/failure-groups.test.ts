/**
 * Failures are grouped by cause: kind, assertion or error class and code, and user code location,
 * with ids, uuids, hex, paths and numbers normalised out of messages. One bug met with different
 * data is one group; different assertions or different error classes are different groups.
 */
import { assertAlways } from "@moonpool/core";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../src/index.ts";
import { causeKey, errorClass, normaliseMessage } from "../src/runner/failure-cause.ts";
import { groupFailures } from "../src/runner/failure-groups.ts";
import type { SeedFailure } from "../src/runner/seed-result.ts";

function failure(kind: SeedFailure["kind"], message: string, extra: Partial<SeedFailure> = {}): SeedFailure {
  return { kind, message, timeMs: 0, ...extra };
}

describe("normaliseMessage", () => {
  it("replaces uuids, paths, hex, mixed ids, URL hosts and numbers", () => {
    expect(
      normaliseMessage(
        "doc 3f2b8c1e-9a4d-4e5f-8a7b-1c2d3e4f5a6b lost at /var/lib/app/docs/7Xk3pQ.json (C:\\data\\x.db, ./tmp/a) 0xdeadBEEF id=a1b2c3d4 http://10.0.1.1:8080/x after 12.5 ms",
      ),
    ).toBe("doc <uuid> lost at <path> (<path>, <path>) <hex> id=<id> http://<host><path> after # ms");
  });

  it("keeps ordinary words, a slash between words and error codes (digits inside words count as numbers)", () => {
    expect(normaliseMessage("read/write of utf8 record failed: ECONNRESET")).toBe(
      "read/write of utf# record failed: ECONNRESET",
    );
  });

  it("messages differing only in ids and paths give one key; different kinds, classes or codes do not", () => {
    const a = failure(
      "unhandledRejection",
      "unhandled promise rejection in simulated code: doc 4f1c2a9e missing in /srv/a/1.db",
    );
    const b = failure(
      "unhandledRejection",
      "unhandled promise rejection in simulated code: doc 77be01d3 missing in /srv/b/22.db",
    );
    expect(causeKey(a, null)).toBe(causeKey(b, null));
    expect(causeKey(failure("uncaughtException", a.message), null)).not.toBe(causeKey(a, null));
    const reset = failure("workload", "workload w run() rejected: IoError: ECONNRESET: reset by 10.0.1.1:4500", {
      stack: "IoError: ECONNRESET: reset\n    at x (/repo/src/a.ts:1:1)",
    });
    const timedOut = failure("workload", "workload w run() rejected: IoError: ETIMEDOUT: connect to 10.0.1.2:4500", {
      stack: "IoError: ETIMEDOUT: timed out\n    at x (/repo/src/a.ts:1:1)",
    });
    const location = { file: "/repo/src/a.ts", line: 1, column: 1 };
    expect(errorClass(reset)).toBe("IoError");
    expect(causeKey(reset, location)).not.toBe(causeKey(timedOut, location));
    expect(causeKey(reset, location)).toBe(
      causeKey(
        { ...reset, message: "workload w run() rejected: IoError: ECONNRESET: reset by 10.0.1.3:4600" },
        location,
      ),
    );
  });
});

describe("groupFailures on a campaign", () => {
  it("an assertion whose message names varying ids is one group; a second assertion is another", async () => {
    const report = await new SimulationBuilder()
      .workload({
        name: "store",
        async run(ctx: SimContext) {
          await ctx.time.sleep(1);
          const doc = `doc-${ctx.random.random().toString(16)}a`;
          assertAlways(false, `write to ${doc} at /data/${doc}/log.db is durable`);
          if (ctx.random.randomBool(0.5)) assertAlways(false, "the index matches the log");
        },
      })
      .setIterations(8)
      .setBaseSeed(3)
      .run();
    expect(report.failedRuns).toBe(8);
    const groups = groupFailures(report);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.timelines).toHaveLength(8);
    // The first failure of each seed keys it; the second assertion shows up as its own group when first.
    const second = await new SimulationBuilder()
      .workload({
        name: "store",
        async run(ctx: SimContext) {
          await ctx.time.sleep(1);
          if (ctx.random.randomBool(0.5)) assertAlways(false, "the index matches the log");
          else assertAlways(false, `write to doc-${ctx.random.random()}z is durable`);
        },
      })
      .setIterations(12)
      .setBaseSeed(3)
      .run();
    const titles = groupFailures(second).map((g) => g.title.replace(/doc-\d+z/, "doc-N"));
    expect(titles.sort()).toEqual(['"the index matches the log" violated', '"write to doc-N is durable" violated']);
  });

  it("a thrown non-Error (no stack, no location) with varying ids is one group", async () => {
    const report = await new SimulationBuilder()
      .workload({
        name: "w",
        async run(ctx: SimContext) {
          await ctx.time.sleep(1);
          throw `storage corrupt at /tmp/run-${ctx.random.random()}/segment-${ctx.random.randomRange(0, 999)}.log`;
        },
      })
      .setIterations(5)
      .setBaseSeed(9)
      .run();
    expect(report.failedRuns).toBe(5);
    expect(groupFailures(report)).toHaveLength(1);
    expect(report.toString()).toContain("1 distinct failure");
  });
});
