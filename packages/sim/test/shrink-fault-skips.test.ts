/**
 * Draw-level overrides (runner/shrink/overrides.ts): `faults.skip` leaves single fault
 * occurrences out by ordinal, and `clock.off` switches clock fault families off. Shown on the
 * Paxos example with every chaos surface in random mode (it injects nearly every kind of fault) and
 * on the lease fixture (clock faults).
 */
import { describe, expect, it } from "vitest";
import { assertAlways, Chaos, shrinkTimeline, SimulationBuilder, type TraceQuery } from "../src/index.ts";
import {
  formatOverrides,
  MAX_SKIPPED_FAULTS,
  OverridesParseError,
  parseOverrides,
} from "../src/runner/shrink/overrides.ts";
import { failureProperty, isInjectedFault, measureRun } from "../src/runner/shrink/measure.ts";
import { SIM_FAULT_EVENT_NAME, SIM_FAULT_SKIPPED_EVENT_NAME, type TraceEvent } from "../src/world/trace-log.ts";
import { chaoticPaxos as paxos, runWithOverrides as run } from "./fixtures/override-runs.ts";
import { EchoClient, EchoServer } from "./fixtures/chaos-echo.ts";
import { leaseSimulation } from "./fixtures/lease.ts";

/** Everything a trace event says, to compare two runs event by event. */
const describeEvent = (e: TraceEvent) => `${e.timeMs} ${e.source} ${e.name} ${JSON.stringify(e.fields)}`;
const skippedEvents = (events: readonly TraceEvent[]) => events.filter((e) => e.name === SIM_FAULT_SKIPPED_EVENT_NAME);

describe("faults.skip and clock.off text", () => {
  it("formats what it parses: ordinals sorted, deduplicated and joined into ranges; families in a fixed order", () => {
    expect(formatOverrides(parseOverrides("faults.skip=9+3+4+5+7+4"))).toBe("faults.skip=3-5+7+9");
    expect(parseOverrides("faults.skip=2-4+0").skipFaults).toEqual([0, 2, 3, 4]);
    expect(formatOverrides(parseOverrides("clock.off=step+offset,injector=off"))).toBe(
      "injector=off,clock.off=offset+step",
    );
    expect(formatOverrides(parseOverrides("clock.off=rate+step+offset"))).toBe("clock.off=all");
    expect(parseOverrides("").skipFaults).toEqual([]);
    expect(parseOverrides("").clockOff).toEqual([]);
  });

  it.each([
    ["faults.skip=x", "invalid fault ordinal 'x'"],
    ["faults.skip=5-3", "a range N-M with M >= N"],
    ["faults.skip=1++2", "invalid fault ordinal ''"],
    ["faults.skip=-1", "invalid fault ordinal '-1'"],
    [`faults.skip=0-${MAX_SKIPPED_FAULTS}`, `at most ${MAX_SKIPPED_FAULTS}`],
    ["clock.off=offset+sparks", "unknown family 'sparks'"],
  ])("refuses %s with a message that says what to change", (text, message) => {
    expect(() => parseOverrides(text)).toThrow(OverridesParseError);
    expect(() => parseOverrides(text)).toThrow(message);
  });
});

describe("faults.skip", () => {
  it("leaves out exactly the named occurrence of every skippable kind: the run is identical up to it", async () => {
    const config = paxos();
    // The first occurrence of each skippable kind over a few seeds: kind -> [seed, ordinal].
    const firstOfKind = new Map<string, [number, number]>();
    for (let seed = 1; seed <= 8; seed++) {
      const base = await run(config, seed);
      expect(skippedEvents(base.events)).toEqual([]);
      const injected = base.events.filter(isInjectedFault);
      const measured = await measureRun(config, seed, "", parseOverrides(""));
      // Without skips the n-th injected fault has ordinal n.
      expect(measured.size.faults).toBe(injected.length);
      for (const n of measured.skippableFaults) {
        const kind = injected[n]!.str("kind")!;
        if (!firstOfKind.has(kind)) firstOfKind.set(kind, [seed, n]);
      }
    }
    const kinds = [...firstOfKind.keys()].sort();
    expect(kinds).toEqual(
      expect.arrayContaining([
        "clog",
        "connect_hang",
        "connect_refused",
        "partial_read",
        "partial_write",
        "partition_created",
        "process_crash",
        "process_graceful_shutdown",
        "sleep_delayed",
        // Seeds 1-8 meet a failed sync before a read fault: half the random seeds fail syncs at
        // 0.1-2 % (decisions.md D32).
        "storage_sync_fault",
      ]),
    );
    expect(kinds).not.toContain("storage_crash");
    for (const [kind, [seed, ordinal]] of firstOfKind) {
      const base = await run(config, seed);
      const skipped = await run(config, seed, `faults.skip=${ordinal}`);
      const marks = skippedEvents(skipped.events);
      expect(
        marks.map((e) => e.fields),
        kind,
      ).toEqual([{ kind, ordinal }]);
      // Every event before the skip is the base run's; the base has the fault where the skip is.
      const at = marks[0]!.seq;
      expect(skipped.events.slice(0, at).map(describeEvent), kind).toEqual(base.events.slice(0, at).map(describeEvent));
      expect(base.events[at]!.name).toBe(SIM_FAULT_EVENT_NAME);
      expect(base.events[at]!.str("kind")).toBe(kind);
      expect(skipped.result.traceHash).not.toBe(base.result.traceHash);
    }
  });

  it("absent or past the run's last fault, it changes nothing (same trace hash)", async () => {
    const config = paxos();
    const base = await run(config, 6);
    const faults = base.events.filter(isInjectedFault).length;
    const past = await run(config, 6, `faults.skip=${faults}-${faults + 50}`);
    expect(past.result.traceHash).toBe(base.result.traceHash);
    expect(skippedEvents(past.events)).toEqual([]);
  });

  it("counts skipped occurrences in the ordinals, so later ordinals name later occurrences", async () => {
    const config = paxos();
    const measured = await measureRun(config, 6, "", parseOverrides(""));
    const [a, b] = measured.skippableFaults.slice(-2);
    const both = await run(config, 6, `faults.skip=${a}+${b}`);
    const marks = skippedEvents(both.events).map((e) => e.num("ordinal"));
    // The second skip lands only if the run still reaches that ordinal after the first.
    expect(marks[0]).toBe(a);
    const after = await measureRun(config, 6, "", parseOverrides(`faults.skip=${a}+${b}`));
    expect(after.skippableFaults).not.toContain(a);
    expect(after.skippableFaults).not.toContain(b);
  });

  it("is deterministic: the same skips give the same trace hash twice; another seed another hash", async () => {
    const config = paxos();
    const text = "faults.skip=0-3+10+20-25";
    const a = await run(config, 5, text);
    const b = await run(config, 5, text);
    expect(b.result.traceHash).toBe(a.result.traceHash);
    expect(skippedEvents(a.events).length).toBeGreaterThan(0);
    expect(skippedEvents(b.events).map(describeEvent)).toEqual(skippedEvents(a.events).map(describeEvent));
    expect((await run(config, 6, text)).result.traceHash).not.toBe(a.result.traceHash);
    expect((await run(config, 5, "faults.skip=0-3")).result.traceHash).not.toBe(a.result.traceHash);
  });
});

describe("clock.off", () => {
  const kindsOf = (events: readonly TraceEvent[]) =>
    new Set(events.filter((e) => e.name === SIM_FAULT_EVENT_NAME).map((e) => e.str("kind")));

  it("switches clock fault families off after the draws; absent, the clocks keep their faults", async () => {
    const config = leaseSimulation("margin", [Chaos.clock("random")]).build();
    let seed = 1;
    let base = await run(config, seed);
    while (!(kindsOf(base.events).has("clock_step") && kindsOf(base.events).has("clock_skew")) && seed < 30)
      base = await run(config, ++seed);
    expect(kindsOf(base.events)).toContain("clock_step");
    expect(base.result.chaos.clock!.config.stepMaxUs).toBeGreaterThan(0);
    const noSteps = await run(config, seed, "clock.off=step");
    expect(kindsOf(noSteps.events)).not.toContain("clock_step");
    expect(kindsOf(noSteps.events)).toContain("clock_skew");
    expect(noSteps.result.chaos.clock!.config.stepMaxUs).toBe(0);
    expect(noSteps.result.chaos.clock!.config.offsetMaxUs).toBe(base.result.chaos.clock!.config.offsetMaxUs);
    const none = await run(config, seed, "clock.off=all");
    expect(kindsOf(none.events)).not.toContain("clock_step");
    expect(kindsOf(none.events)).not.toContain("clock_skew");
    // Same overrides twice: same hash; another seed: another hash.
    expect((await run(config, seed, "clock.off=step")).result.traceHash).toBe(noSteps.result.traceHash);
    expect((await run(config, seed + 1, "clock.off=step")).result.traceHash).not.toBe(noSteps.result.traceHash);
  });
});

/** Echo rounds under random network chaos; the property only cares about clogs during round 3. */
const CLOGGED_ROUND = 3;
const echoSimulation = () =>
  new SimulationBuilder()
    .enableChaos([Chaos.network("random")])
    .chaosDuration(2_000)
    .processes(1, () => new EchoServer())
    .workloadFactory(() => new EchoClient({ rounds: 12, pauseMs: 100, timeoutMs: 3_000 }))
    .invariantFn("round 3 clogs", (q: TraceQuery) => {
      const rounds = [...q.snapshot("echo_ok"), ...q.snapshot("echo_failed"), ...q.snapshot("echo_corrupt")];
      const round = rounds.find((e) => e.num("round") === CLOGGED_ROUND);
      if (round === undefined) return;
      const from = round.num("startMs")!;
      const clogged = q
        .snapshot(SIM_FAULT_EVENT_NAME)
        .some((e) => e.str("kind") === "clog" && e.timeMs >= from && e.timeMs <= round.timeMs);
      assertAlways(!clogged, `round ${CLOGGED_ROUND} sees no clog`);
    });

describe("the shrinker and faults.skip", () => {
  it("leaves single fault occurrences out, and the shrunk run replays to its hash, the same twice", async () => {
    const report = await echoSimulation().setBaseSeed(1).setIterations(40).run();
    const failing = report.seeds.filter((s) => !s.ok).map((s) => s.seed);
    expect(failing.length).toBeGreaterThan(1);
    const results = [];
    for (const seed of failing) results.push(await shrinkTimeline(echoSimulation(), { seed, maxRuns: 120 }));
    const skipping = results.filter((r) => r.overrides.includes("faults.skip="));
    expect(skipping.length).toBeGreaterThan(0);
    for (const r of skipping) {
      expect(r.property).toBe(`round ${CLOGGED_ROUND} sees no clog`);
      expect(r.after.faults).toBeLessThan(r.before.faults);
      const replay = await echoSimulation().replayTimeline(r.seed, r.recipe, r.overrides).run();
      expect(replay.seeds[0]!.traceHash).toBe(r.after.traceHash);
      expect(failureProperty(replay.seeds[0]!.failures[0]!)).toBe(r.property);
      // The same input gives the same shrunk run.
      const again = await shrinkTimeline(echoSimulation(), { seed: r.seed, maxRuns: 120 });
      expect(again.overrides).toBe(r.overrides);
      expect(again.after.traceHash).toBe(r.after.traceHash);
    }
  });
});
