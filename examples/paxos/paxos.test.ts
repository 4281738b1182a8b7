/**
 * The Paxos showcase, run the way a new system should be: a smoke seed, each chaos axis alone, the full
 * campaign on fixed seeds (network, storage and attrition swarmed, buggify knobs, crash-restart
 * cycles, the recovery tail), every planted bug found and replayed from its recipe on a fresh
 * builder while the correct protocol passes the same campaign, and a determinism check.
 *
 * Everything runs in this thread (`workers: 0` for exploration) and is deterministic: the seeds,
 * budgets and "found at" numbers below were measured, and a change of them means the code or the
 * engine changed.
 */
import { describe, expect, it } from "vitest";
import type { SimulationReport } from "@moonpool/sim";
import { BALLOT_REUSE_WORKLOAD, PAXOS_STAGES, paxosCampaign, type PaxosStage } from "./simulation.ts";
import type { PaxosBug } from "./node.ts";

/** The guidance signals of node.ts and workload.ts; the campaign must reach every one. */
export const SOMETIMES_SIGNALS = [
  "leader changed",
  "stale ballot rejected",
  "acceptor recovered persisted state",
  "promises reported conflicting values for a slot",
  "accept delayed after prepare",
  "accept sent to a bare quorum",
  "decided proposal reported as failed",
  "a retry found its proposal already decided",
  "an ambiguous proposal turned out to be decided",
  "an ambiguous proposal was resolved later",
  "an ambiguous proposal was retried to an answer",
  "failover made progress",
  "many slots decided",
  "repeated ballot changes",
  "deep client retry chain",
  "acceptor log rewritten after a disk error",
] as const;

const SAFETY = [
  "agreement: one chosen value per slot",
  "validity: a chosen value was proposed",
  "a chosen value was accepted by a majority",
  "one value per ballot and slot",
  "acceptor never accepts below its promise",
  "a promise survives a reboot",
  "an acceptor with a damaged log never votes",
  "a node learns one value per slot",
  "client: a slot never changes its value",
  "client: answers name proposed values",
  "the healed cluster decides new slots",
];

const EXPLORATION = { workers: 0, branchingFactor: 4, maxFrontier: 512, maxRecipeLen: 32 } as const;

/**
 * Each planted bug, the root seed explored, the timeline budget it is found within, and the
 * timeline of the first bug as measured (`firstAt`; 1 is the root's own timeline). The search is
 * deterministic; the budgets leave room, so that a change of the engine's scheduling does not need
 * new numbers at once. If one stops finding its bug, measure again:
 * `run.ts --bug <bug> --seed <root> --explore <budget>`. Measured again after the baseline gained
 * per-process clock offsets and rates and storage sync failures a percent scale (every trace
 * changed, so every root was checked again; decisions.md D30).
 */
const FINDABLE_BUGS: readonly {
  bug: PaxosBug;
  seed: number;
  budget: number;
  firstAt: number;
  /** The workload options of the simulation that runs this bug on the command line, if any. */
  workload?: typeof BALLOT_REUSE_WORKLOAD;
}[] = [
  // The root timeline of most seeds fails with these two: roots 1-16 with 10 timelines each find
  // no-promise-check on all 16 (14 on their own timeline), ignore-accepted-values on 14.
  { bug: "no-promise-check", seed: 10, budget: 10, firstAt: 1 },
  { bug: "ignore-accepted-values", seed: 15, budget: 10, firstAt: 2 },
  // Needs a sequence (a value accepted by one acceptor, another value chosen by a leader that
  // missed it, a third leader hearing both). Roots 1-12 with 40 timelines each find it on 4: root 6
  // at timeline 3, root 9 at 11, root 1 at 19, root 8 at 28.
  { bug: "adopt-first-reported-value", seed: 6, budget: 20, firstAt: 3 },
  // Needs a crash (or a graceful reboot) within 50 ms of a promise, before its lazy write: reboots,
  // by attrition and the crash-restart injector. Roots 1-16 with 24 timelines each find it on 9:
  // roots 1, 5 and 10 on their own timeline, root 8 at 2, 14 at 3, 12 at 5, 13 at 11, 16 at 18.
  { bug: "promise-before-persist", seed: 8, budget: 24, firstAt: 2 },
  // Deep: a leader whose own acceptor alone holds a slot at a ballot, a crash, a restart that
  // counts up to the old ballot before any other node takes over, and a prepare majority without
  // its own acceptor; the oracle that sees it is "one value per ballot and slot". With the
  // campaign's clients (they fail over at once) about one seed in 2,000 fails; with clients that
  // retry their leader first (`BALLOT_REUSE_WORKLOAD`, as `paxos-ballot-reuse-after-restart` on the
  // command line runs it) 7 of 2,000 seeds of base seed 1 fail, and the default budget finds it
  // from an unpinned base seed (decisions.md D52). This root is the first of those 7, whose own
  // timeline fails: it checks the recipe and the correct protocol's pass of the same search.
  {
    bug: "ballot-reuse-after-restart",
    seed: 4024630936656964,
    budget: 20,
    firstAt: 1,
    workload: BALLOT_REUSE_WORKLOAD,
  },
];

function statuses(report: SimulationReport): Record<string, string> {
  return Object.fromEntries(report.assertionDetails.map((d) => [d.message, d.status]));
}

function rebootsOf(report: SimulationReport): number {
  return report.seeds.reduce(
    (n, s) =>
      n +
      (s.chaos.reboots === null ? 0 : s.chaos.reboots.graceful + s.chaos.reboots.crash + s.chaos.reboots.crashAndWipe),
    0,
  );
}

describe("paxos example", () => {
  it("smoke: one seed in a quiet world agrees with the reference model and replays to the same trace", async () => {
    const report = await PAXOS_STAGES.smoke().setDebugSeeds([1]).setIterations(1).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    const status = statuses(report);
    for (const message of SAFETY) expect(status[message], message).toBe("PASS");
    // The quiet seed decides a good number of slots (20 measured).
    expect(report.assertionResults["agreement: one chosen value per slot"]!.totalChecks).toBeGreaterThanOrEqual(15);
    const replay = await PAXOS_STAGES.smoke().setDebugSeeds([1]).setIterations(1).run();
    expect(replay.seeds[0]!.traceHash).toBe(report.seeds[0]!.traceHash);
  });

  it.each(Object.keys(PAXOS_STAGES).filter((s) => s !== "smoke") as PaxosStage[])(
    "chaos axis '%s' passes 12 seeds on its own",
    async (stage) => {
      const report = await PAXOS_STAGES[stage]().setBaseSeed(100).setIterations(12).run();
      expect(report.failedRuns, report.toString()).toBe(0);
      expect(report.assertionViolations).toEqual([]);
      const reboots = rebootsOf(report);
      if (stage === "attrition") {
        // Attrition alone acts every 1-5 s: about one seed in two sees a reboot in the 3 s window.
        expect(reboots).toBeGreaterThan(0);
        expect(
          report.bucketSummaries.find((b) => b.message === "attrition_reboot_kind")?.bucketsDiscovered,
        ).toBeGreaterThan(0);
      } else if (stage === "reboots" || stage === "campaign") {
        expect(reboots).toBeGreaterThan(12 * 2); // several crash-restart cycles per seed (3 seeds in 4)
      } else {
        expect(reboots).toBe(0);
      }
    },
  );

  it("the correct protocol passes 100 fixed seeds of the full campaign and reaches every sometimes signal", async () => {
    const report = await paxosCampaign().setBaseSeed(1).setIterations(100).run();
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(report.assertionViolations).toEqual([]);
    const status = statuses(report);
    for (const message of [...SAFETY, ...SOMETIMES_SIGNALS]) expect(status[message], message).toBe("PASS");
    // Process reboots happened, by attrition (swarmed: some seeds) and by the crash-restart injector.
    expect(report.bucketSummaries.find((b) => b.message === "attrition_reboot_kind")?.bucketsDiscovered).toBe(2); // graceful and crash
    expect(status["reboot: graceful path"]).toBe("PASS");
    expect(status["reboot: crash path"]).toBe("PASS");
    expect(status["reboot: crash and wipe path"]).not.toBe("PASS"); // probWipe 0: Paxos forbids losing an acceptor's disk
    expect(rebootsOf(report)).toBeGreaterThan(100);
    // Coarse identity keys: a handful of (phase, fault regime) buckets, not one per ballot or slot.
    const transitions = report.bucketSummaries.find((s) => s.message === "paxos transition")!;
    expect(transitions.bucketsDiscovered).toBeGreaterThanOrEqual(6);
    expect(transitions.bucketsDiscovered).toBeLessThanOrEqual(18);
    expect(report.tableOverflow).toMatchObject({ droppedSiteCalls: 0, droppedBucketCalls: 0 });
  });

  it.each(FINDABLE_BUGS)(
    "exploration finds planted bug $bug from root seed $seed within $budget timelines (first at $firstAt), its recipe replays, and the correct protocol passes the same search",
    async ({ bug, seed, budget, firstAt, workload }) => {
      const campaign = (options: { bug?: PaxosBug } = {}) =>
        paxosCampaign(workload === undefined ? options : { ...options, workload });
      const report = await campaign({ bug })
        .enableExploration({ ...EXPLORATION, maxRunsPerSeed: budget })
        .setDebugSeeds([seed])
        .setIterations(1)
        .run();
      const exploration = report.exploration!;
      const first = exploration.perSeed[0]!.firstBugAtTimeline;
      expect(first, `measured: timeline ${firstAt} of ${budget}`).not.toBeNull();
      expect(first!).toBeLessThanOrEqual(budget);
      expect(report.failedRuns).toBe(1);
      const recipe = exploration.bugRecipes[0]!;
      // A continuation's recipe, or the empty recipe when the root's own timeline failed.
      expect(recipe.recipe).toMatch(/^(sim\+schedule:\d+@\d+( -> sim\+schedule:\d+@\d+)*)?$/);

      // A fresh builder reproduces the failing timeline: same failure, same trace.
      const replay = await campaign({ bug }).replayTimeline(recipe.seed, recipe.recipe).run();
      expect(replay.failedRuns).toBe(1);
      expect(replay.seeds[0]!.traceHash).toBe(recipe.traceHash);
      expect(replay.assertionViolations.join("\n")).toContain(recipe.property);

      // The correct protocol passes the same exploration of the same root.
      const correct = await campaign()
        .enableExploration({ ...EXPLORATION, maxRunsPerSeed: budget })
        .setDebugSeeds([seed])
        .setIterations(1)
        .run();
      expect(correct.exploration!.timelines).toBe(budget);
      expect(correct.exploration!.bugsFound).toBe(0);
      expect(correct.failedRuns).toBe(0);
    },
  );

  it("clients that retry their leader first (the ballot-reuse workload) are deterministic, and seeds differ", async () => {
    const determinism = await paxosCampaign({ workload: BALLOT_REUSE_WORKLOAD })
      .setBaseSeed(7)
      .setIterations(3)
      .checkDeterminism();
    expect(determinism.violation).toBeNull();
    expect(determinism.deterministic).toBe(true);
    const report = await paxosCampaign({ workload: BALLOT_REUSE_WORKLOAD }).setBaseSeed(7).setIterations(3).run();
    expect(report.failedRuns).toBe(0);
    expect(new Set(report.seeds.map((s) => s.traceHash)).size).toBe(3);
  });

  it("the campaign is deterministic under full chaos: every draw of five seeds matches across two runs", async () => {
    const determinism = await paxosCampaign().setBaseSeed(5).setIterations(5).checkDeterminism();
    expect(determinism.violation).toBeNull();
    expect(determinism.deterministic).toBe(true);
    expect(determinism.seedsChecked).toBe(5);
  });
});
