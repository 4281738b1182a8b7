/**
 * `explainFailure`: the point of no return of a planted bug's failing timeline. On the leader
 * election's vote-twice bug and Paxos' adopt-first-reported-value, a curve over at least 8 cut
 * points, monotone within its confidence, a doomed window holding the bug's trigger, and the same
 * curve for the same budget. The interval and the verdict are checked on their own too.
 */
import { describe, expect, it } from "vitest";
import { leaderElectionSimulation } from "../../../examples/leader-election/simulation.ts";
import { paxosCampaign } from "../../../examples/paxos/simulation.ts";
import { explainFailure, ExplainError, type ExplainResult } from "../src/index.ts";
import { cutPoint, doomConflicts, doomCurve, monotoneWithinConfidence, wilsonInterval } from "../src/runner/doom.ts";
import { conflictLines } from "../src/cli/doom-text.ts";
import { ADOPT_FIRST_SEED, adoptedAccept, expectWellFormed, VOTE_TWICE_SEED } from "./support/explain-checks.ts";
import { doomOf } from "../src/runner/explain.ts";
import { renderTimelineHtml } from "../src/cli/reporters/html/index.ts";
import { buildTimelineData } from "../src/cli/reporters/html/timeline-data.ts";

/** The window's events between the last saved cut point and the failure (at least one). */
function windowNames(result: ExplainResult): string[] {
  expect(result.window.length).toBeGreaterThan(0);
  for (const e of result.window) {
    expect(e.atUs).toBeGreaterThanOrEqual(result.curve.savedUntilUs);
    expect(e.atUs).toBeLessThanOrEqual(result.failureUs);
  }
  return result.window.map((e) => e.name);
}

describe("explainFailure", () => {
  // 8 cut points and 2 runs each (24 runs with the refinement): the smallest sweep the command
  // takes; from this seed it already brackets the two candidates of term 1 and the second vote.
  it("leader-election vote-twice: the doomed window holds the second vote of the split term", async () => {
    const simulation = leaderElectionSimulation({ bug: "vote-twice" });
    const result = await explainFailure(simulation, { seed: VOTE_TWICE_SEED, cuts: 8, budget: 24 });
    expect(result.property).toBe("one leader per term");
    expect(result.runs).toBe(24);
    expectWellFormed(result, 8);
    expect(result.doomedFromStart).toBe(false);
    windowNames(result);
    // The trigger: a node's vote in the failing term for the second leader of that term.
    const leaders = result.window.filter((e) => e.name === "leader_elected");
    const second = leaders[leaders.length - 1]!;
    const trigger = result.window.find(
      (e) =>
        e.name === "vote_granted" &&
        e.fields.term === second.fields.term &&
        e.fields.candidate === second.fields.leader &&
        e.atUs <= second.atUs,
    );
    expect(trigger, JSON.stringify(result.window)).toBeDefined();
    expect(trigger!.atUs).toBeGreaterThanOrEqual(result.curve.savedUntilUs);

    const again = await explainFailure(leaderElectionSimulation({ bug: "vote-twice" }), {
      seed: VOTE_TWICE_SEED,
      cuts: 8,
      budget: 24,
    });
    expect(again).toEqual(result);
  });

  it("paxos adopt-first-reported-value: the doomed window holds the lone accept of the value chosen second", async () => {
    const result = await explainFailure(paxosCampaign({ bug: "adopt-first-reported-value" }), {
      seed: ADOPT_FIRST_SEED,
      cuts: 8,
      budget: 24,
    });
    expect(result.property).toBe("agreement: one chosen value per slot");
    expectWellFormed(result, 8);
    expect(result.doomedFromStart).toBe(false);
    windowNames(result);
    // The value chosen second was accepted by one acceptor only; a later leader adopts it (the
    // first report it reads) although another value was chosen: that accept is in the window.
    const lone = adoptedAccept(result);
    expect(lone!.atUs).toBeLessThanOrEqual(result.failureUs);

    const again = await explainFailure(paxosCampaign({ bug: "adopt-first-reported-value" }), {
      seed: ADOPT_FIRST_SEED,
      cuts: 8,
      budget: 24,
    });
    expect(again).toEqual(result);
  });

  it("another failing seed gives another curve", async () => {
    // Seed index 4 of base seed 1 fails too (leader-election.test.ts).
    const report = await leaderElectionSimulation({ bug: "vote-twice" }).setBaseSeed(1).setIterations(5).run();
    const seeds = report.seeds.filter((s) => !s.ok).map((s) => s.seed);
    expect(seeds[0]).toBe(VOTE_TWICE_SEED);
    const other = await explainFailure(leaderElectionSimulation({ bug: "vote-twice" }), {
      seed: seeds[1]!,
      cuts: 8,
      budget: 24,
    });
    expectWellFormed(other, 8);
    expect(other.failureUs).not.toBe(249_432);
  });

  it("an explored timeline is cut inside its own recipe segments, in the recipe's form", async () => {
    // Both recipes fail the split-brain seed again after its 60th draw is reseeded (found by
    // trying childSeed(seed, [], "test", i) for i = 0, 1, ...; the first failing one).
    for (const recipe of ["sim+schedule:60@1337880674687585", "60@1337880674687585"]) {
      const result = await explainFailure(leaderElectionSimulation({ bug: "vote-twice" }), {
        seed: VOTE_TWICE_SEED,
        recipe,
        cuts: 8,
        budget: 24,
      });
      expect(result.recipe).toBe(recipe);
      expectWellFormed(result, 8);
      const segments = new Set(result.curve.cutPoints.map((p) => p.segment));
      // Cut points before the recipe's reseed cut its first segment, the later ones its second.
      expect([...segments].sort()).toEqual([0, 1]);
      for (const p of result.curve.cutPoints) expect(p.draws).toBeGreaterThanOrEqual(0);
    }
  });

  it("a passing seed, too few cut points and too small a budget are errors that say what to change", async () => {
    const passing = explainFailure(leaderElectionSimulation(), { seed: 1, cuts: 8, budget: 24 });
    await expect(passing).rejects.toThrow(ExplainError);
    await expect(passing).rejects.toThrow("passes: there is no failure to explain");
    const simulation = leaderElectionSimulation({ bug: "vote-twice" });
    await expect(explainFailure(simulation, { seed: VOTE_TWICE_SEED, cuts: 4 })).rejects.toThrow(
      "cuts must be an integer of at least 8",
    );
    await expect(explainFailure(simulation, { seed: VOTE_TWICE_SEED, cuts: 8, budget: 20 })).rejects.toThrow(
      "give at least 24 or fewer cut points",
    );
  });
});

describe("the doom curve", () => {
  it("Wilson 95 % intervals: inside [0, 1], never zero-width, symmetric around one half", () => {
    expect(wilsonInterval(0, 10)).toEqual({ low: 0, high: 0.277533 });
    expect(wilsonInterval(10, 10)).toEqual({ low: 0.722467, high: 1 });
    expect(wilsonInterval(5, 10)).toEqual({ low: 0.236593, high: 0.763407 });
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });

  it("saved until the last cut with a passing run, doomed from the first of the all-failing tail", () => {
    const curve = doomCurve([cutPoint(0, 4, 1), cutPoint(20, 4, 4), cutPoint(10, 4, 2), cutPoint(30, 4, 4)], 40);
    expect(curve.cutPoints.map((p) => p.atUs)).toEqual([0, 10, 20, 30]);
    expect(curve.savedUntilUs).toBe(10);
    expect(curve.doomedFromUs).toBe(20);
    // A cut point whose runs were all lost neither saves nor dooms.
    const lost = doomCurve([cutPoint(0, 4, 1), cutPoint(10, 0, 0), cutPoint(20, 4, 4)], 40);
    expect(lost.savedUntilUs).toBe(0);
    expect(lost.doomedFromUs).toBe(20);
    // Saved at every cut: doomed only at the failure itself.
    const never = doomCurve([cutPoint(0, 4, 1), cutPoint(10, 4, 3)], 40);
    expect(never).toMatchObject({ savedUntilUs: 10, doomedFromUs: 40 });
    // Doomed from the first cut: nothing saved.
    const start = doomCurve([cutPoint(0, 4, 4), cutPoint(10, 4, 4)], 40);
    expect(start).toMatchObject({ savedUntilUs: 0, doomedFromUs: 0 });
  });

  it("monotone within confidence: only an interval wholly above a later one breaks it", () => {
    expect(monotoneWithinConfidence([cutPoint(0, 10, 2), cutPoint(10, 10, 1), cutPoint(20, 10, 10)])).toBe(true);
    expect(monotoneWithinConfidence([cutPoint(0, 10, 10), cutPoint(10, 10, 0)])).toBe(false);
  });

  it("a fall beyond the confidence is a conflict, explained by the failures the original run escaped or not", () => {
    const timed = (atUs: number, runs: number, failureTimesUs: number[]) => ({
      ...cutPoint(atUs, runs, failureTimesUs.length),
      failureTimesUs,
    });
    // 7 of 10 fail at 1,000 µs, 6 of them before 2,000 µs, which the original run passed: the
    // other one alone (1/10) no longer lies above the later 0/10.
    const escaped = [timed(0, 10, [1]), timed(1_000, 10, [1_100, 1_200, 1_300, 1_400, 1_500, 1_600, 5_000])];
    const points = [...escaped, timed(2_000, 10, []), timed(3_000, 10, Array(10).fill(3_000))];
    expect(doomConflicts(points)).toEqual([
      { earlierUs: 1_000, laterUs: 2_000, escaped: 6, rest: cutPoint(1_000, 10, 1), explainedByEscape: true },
    ]);
    // The same 7 failures all after the later cut point: the fall is not the escape.
    const late = [timed(1_000, 10, [2_100, 2_200, 2_300, 2_400, 2_500, 2_600, 2_700]), timed(2_000, 10, [])];
    const [conflict] = doomConflicts(late);
    expect(conflict).toMatchObject({ escaped: 0, explainedByEscape: false });
    expect(doomConflicts([timed(0, 10, [1, 2]), timed(10, 10, [20, 30, 40])])).toEqual([]);

    const lines = conflictLines(points, doomConflicts(points));
    expect(lines[0]).toBe(
      "not monotone within its confidence at 1 pair of cut points: the chance of failing given the run so far can fall as well as rise along one run",
    );
    expect(lines[1]).toBe(
      "  1.000 ms (7/10) above 2.000 ms (0/10): 6 of its 7 failures came before 2.000 ms, which the original run reached without failing (it escaped them); without them 1/10 [0.02, 0.40], within 2.000 ms's interval",
    );
    expect(conflictLines(late, doomConflicts(late))[1]).toContain(
      "0 of its 7 failures came before 2.000 ms, which the original run reached without failing; without them 7/10 [0.40, 0.89], still above",
    );
    expect(conflictLines(points.slice(0, 1), [])).toEqual([]);
  });
});

describe("the timeline page's doom field", () => {
  const input = {
    simulation: "s",
    seed: 1,
    recipe: "",
    ok: false,
    simulatedTimeMs: 1,
    traceHash: "00000000",
    replayCommand: "npx moonpool replay s --seed 1",
    failures: [],
    events: [],
  };

  it("is absent from a page written without an explain result", () => {
    const data = buildTimelineData(input);
    expect("doom" in data).toBe(false);
    expect(renderTimelineHtml(data)).not.toContain('"doom":');
  });

  it("carries the curve in the page's shape when written with one", async () => {
    const result = await explainFailure(leaderElectionSimulation({ bug: "vote-twice" }), {
      seed: VOTE_TWICE_SEED,
      cuts: 8,
      budget: 24,
    });
    const doom = doomOf(result);
    expect(Object.keys(doom.cutPoints[0]!).sort()).toEqual(["atUs", "failures", "high", "low", "runs"]);
    const html = renderTimelineHtml({ ...buildTimelineData(input), doom });
    expect(html).toContain(`"doom":{"cutPoints":[{"atUs":0,`);
    expect(html).toContain(`"savedUntilUs":${result.curve.savedUntilUs},"doomedFromUs":${result.curve.doomedFromUs}`);
  });
});
