/**
 * Shrink candidates in a worker under the hang limit (runner/shrink/isolated-runs.ts): a candidate
 * that spins in synchronous code (no engine step for the limit) is not kept and the search goes on; isolated runs measure what
 * in-thread runs measure; a simulation that does not load is an error that says so.
 */
import { describe, expect, it } from "vitest";
import { IsolatedRuns, shrinkTimeline } from "../src/index.ts";
import { hangWhenSmaller } from "./fixtures/hang-when-smaller.ts";

const SOURCE = { module: new URL("./fixtures/hang-when-smaller.ts", import.meta.url).href, export: "hangWhenSmaller" };
/** Far above what one step of the fixture takes, far below a test's time. */
const RUN_LIMIT_MS = 2_000;
/** What a candidate stuck inside one step reports. */
const HUNG = String.raw`the run hung: no engine step for 2\.00s \(last step #\d+ at simulated [\d.]+m?s\)`;

async function failingSeed(): Promise<number> {
  const report = await hangWhenSmaller().setBaseSeed(1).setIterations(40).run();
  const failing = report.seeds.find((s) => !s.ok);
  expect(failing).toBeDefined();
  return failing!.seed;
}

describe("shrink candidates in a worker", () => {
  it("a candidate spinning past the limit is not kept, and the search goes on", async () => {
    const seed = await failingSeed();
    const isolate = new IsolatedRuns(SOURCE, RUN_LIMIT_MS);
    const lost: string[] = [];
    try {
      const result = await shrinkTimeline(hangWhenSmaller(), {
        seed,
        maxRuns: 5,
        isolate,
        onProgress: (p) => void (p.lost !== undefined && lost.push(`${p.candidate}: ${p.lost}`)),
      });
      // The run first ends at its failure (it fails at its end: nothing to cut); then every
      // lowered size spins: none is kept, each is reported.
      expect(result.runs).toBe(5);
      expect(result.lostRuns).toBe(3);
      expect(lost).toEqual(
        [0, 1, 3].map((rounds) => expect.stringMatching(new RegExp(`^size rounds ${rounds}: ${HUNG}`))),
      );
      expect(result.after).toEqual(result.before);
      expect(result.property).toBe("the sum stays small");
    } finally {
      await isolate.close();
    }
  });

  it("measures what a run in this thread measures; without isolation nothing is lost", async () => {
    const seed = await failingSeed();
    const isolate = new IsolatedRuns(SOURCE, RUN_LIMIT_MS);
    try {
      const isolated = await shrinkTimeline(hangWhenSmaller(), { seed, maxRuns: 1, isolate });
      const inThread = await shrinkTimeline(hangWhenSmaller(), { seed, maxRuns: 1 });
      expect(isolated.before).toEqual(inThread.before);
      expect(inThread.lostRuns).toBe(0);
      const outcome = await isolate.run(seed, "", "");
      expect(outcome.kind).toBe("measured");
      if (outcome.kind === "measured") expect(outcome.run.size).toEqual(inThread.before);
    } finally {
      await isolate.close();
    }
  });

  it("a spinning run is stopped as hung and the next gets a fresh worker; a source that does not load is an error", async () => {
    const seed = await failingSeed();
    const isolate = new IsolatedRuns(SOURCE, RUN_LIMIT_MS);
    try {
      const spinning = await isolate.run(seed, "", "size.rounds=2");
      expect(spinning).toEqual({ kind: "hung", message: expect.stringMatching(new RegExp(`^${HUNG}`)) });
      // The next run gets a fresh worker.
      expect((await isolate.run(seed, "", "")).kind).toBe("measured");
    } finally {
      await isolate.close();
    }
    const missing = new IsolatedRuns({ ...SOURCE, export: "noSuchExport" }, RUN_LIMIT_MS);
    await expect(shrinkTimeline(hangWhenSmaller(), { seed, isolate: missing })).rejects.toThrow(
      /could not be run to its end: the simulation did not load: .*no export 'noSuchExport'/,
    );
  });
});
