/**
 * `restart.min` (runner/shrink/overrides.ts): chosen reboots, by fault ordinal, restart their
 * process after the shortest recovery delay of their range. The delay is still drawn, so the run
 * is the seed's own up to that restart. Shown on the Paxos example with crash-restart cycles and
 * attrition (recovery delays 50-600 ms and 200-1,500 ms).
 */
import { describe, expect, it } from "vitest";
import { OpenOptions } from "@moonpool/core";
import {
  assertAlways,
  SimulationBuilder,
  shrinkTimeline,
  type FaultContext,
  type FaultInjector,
  type Process,
  type SimContext,
  type Workload,
} from "../src/index.ts";
import { PAXOS_ATTRITION } from "../../../examples/paxos/simulation.ts";
import { CRASH_RECOVERY_MS } from "../../../examples/paxos/faults.ts";
import { formatOverrides, OverridesParseError, parseOverrides } from "../src/runner/shrink/overrides.ts";
import { isInjectedFault, measureRun } from "../src/runner/shrink/measure.ts";
import { SIM_FAULT_EVENT_NAME, SIM_FAULT_SKIPPED_EVENT_NAME, type TraceEvent } from "../src/world/trace-log.ts";
import { chaoticPaxos as paxos, runWithOverrides as run } from "./fixtures/override-runs.ts";

const describeEvent = (e: TraceEvent) => `${e.timeMs} ${e.source} ${e.name} ${JSON.stringify(e.fields)}`;
/** The shortest recovery delay of a reboot's range, by who asked for it. */
const minDelayMs = (cause: string) =>
  cause === "attrition" ? (PAXOS_ATTRITION.recoveryDelayMs as readonly [number, number])[0] : CRASH_RECOVERY_MS[0];

interface Reboot {
  readonly ordinal: number;
  readonly event: TraceEvent;
}

/** The crashes of a run with their fault ordinals. */
function crashes(events: readonly TraceEvent[]): Reboot[] {
  const out: Reboot[] = [];
  let ordinal = 0;
  for (const e of events) {
    if (isInjectedFault(e)) {
      if (e.str("kind") === "process_crash") out.push({ ordinal, event: e });
      ordinal++;
    } else if (e.name === SIM_FAULT_SKIPPED_EVENT_NAME) ordinal++;
  }
  return out;
}

/** Time of the first restart of `ip` after `afterMs`. */
function restartAt(events: readonly TraceEvent[], ip: string, afterMs: number): number | undefined {
  return events.find(
    (e) =>
      e.name === SIM_FAULT_EVENT_NAME &&
      e.str("kind") === "process_restart" &&
      e.str("ip") === ip &&
      e.timeMs > afterMs,
  )?.timeMs;
}

/** A seed of the chaotic Paxos configuration whose first crash drew more than its shortest delay. */
async function seedWithSlowRestart(): Promise<{ seed: number; crash: Reboot; events: readonly TraceEvent[] }> {
  const config = paxos();
  for (let seed = 1; seed <= 20; seed++) {
    const base = await run(config, seed);
    const crash = crashes(base.events)[0];
    if (crash === undefined) continue;
    const cause = crash.event.str("cause")!;
    if (crash.event.num("recoveryDelayMs")! > minDelayMs(cause)) return { seed, crash, events: base.events };
  }
  throw new Error("no seed of 1..20 crashes a process with a recovery delay above its range's shortest");
}

describe("restart.min text", () => {
  it("formats what it parses: ordinals sorted, deduplicated and joined into ranges; empty gives none", () => {
    expect(formatOverrides(parseOverrides("restart.min=9+3+4,stop=failure"))).toBe("restart.min=3-4+9,stop=failure");
    expect(parseOverrides("restart.min=2-4+0").quickRestarts).toEqual([0, 2, 3, 4]);
    expect(parseOverrides("").quickRestarts).toEqual([]);
  });

  it.each([
    ["restart.min=x", "invalid fault ordinal 'x'"],
    ["restart.min=7-2", "a range N-M with M >= N"],
  ])("refuses %s with a message that says what to change", (text, message) => {
    expect(() => parseOverrides(text)).toThrow(OverridesParseError);
    expect(() => parseOverrides(text)).toThrow(message);
  });
});

describe("restart.min", () => {
  it("restarts the named reboot's process after the shortest delay of its range; the run is the same up to it", async () => {
    const { seed, crash, events } = await seedWithSlowRestart();
    const ip = crash.event.str("ip")!;
    const crashMs = crash.event.timeMs;
    const shortest = minDelayMs(crash.event.str("cause")!);
    // Off: the drawn delay.
    expect(restartAt(events, ip, crashMs)).toBe(crashMs + crash.event.num("recoveryDelayMs")!);
    const quick = await run(paxos(), seed, `restart.min=${crash.ordinal}`);
    const quickCrash = crashes(quick.events)[0]!;
    expect(quickCrash.ordinal).toBe(crash.ordinal);
    expect(quickCrash.event.num("recoveryDelayMs")).toBe(shortest);
    expect(restartAt(quick.events, ip, crashMs)).toBe(crashMs + shortest);
    // Everything before that restart is the seed's own run.
    const before = (all: readonly TraceEvent[]) =>
      all
        .filter((e) => e.timeMs < crashMs + shortest && e !== crash.event && e !== quickCrash.event)
        .map(describeEvent);
    expect(before(quick.events)).toEqual(before(events));
    expect(quick.result.traceHash).not.toBe((await run(paxos(), seed)).result.traceHash);
  });

  it("changes nothing when the ordinal is not a reboot (same trace hash)", async () => {
    const { seed, events } = await seedWithSlowRestart();
    const base = await run(paxos(), seed);
    const reboots = new Set(crashes(events).map((c) => c.ordinal));
    let notReboot = 0;
    while (reboots.has(notReboot)) notReboot++;
    expect((await run(paxos(), seed, `restart.min=${notReboot}`)).result.traceHash).toBe(base.result.traceHash);
  });

  it("is deterministic: the same seed twice gives the same hash; another seed or another reboot another", async () => {
    const { seed, crash, events } = await seedWithSlowRestart();
    const text = `restart.min=${crash.ordinal}`;
    const a = await run(paxos(), seed, text);
    const b = await run(paxos(), seed, text);
    expect(b.result.traceHash).toBe(a.result.traceHash);
    expect(b.events.map(describeEvent)).toEqual(a.events.map(describeEvent));
    expect((await run(paxos(), seed + 1, text)).result.traceHash).not.toBe(a.result.traceHash);
    const second = crashes(events)[1];
    if (second !== undefined)
      expect((await run(paxos(), seed, `restart.min=${second.ordinal}`)).result.traceHash).not.toBe(a.result.traceHash);
  });

  it("lists the run's reboots for the shrinker, by ordinal", async () => {
    const { seed, events } = await seedWithSlowRestart();
    const measured = await measureRun(paxos(), seed, "", parseOverrides(""));
    const graceful: number[] = [];
    let ordinal = 0;
    for (const e of events) {
      if (!isInjectedFault(e)) continue;
      if (e.str("kind") === "process_graceful_shutdown") graceful.push(ordinal);
      ordinal++;
    }
    const expected = [...crashes(events).map((c) => c.ordinal), ...graceful].sort((x, y) => x - y);
    expect(measured.reboots).toEqual(expected);
    expect(measured.reboots.length).toBeGreaterThan(0);
  });
});

/** Ticks every 10 ms; a second boot (its marker file survives the crash) violates a property. */
class BootsOnce implements Process {
  readonly name = "node";

  async run(ctx: SimContext): Promise<void> {
    assertAlways(!(await ctx.storage.exists("booted")), "the node boots once");
    const marker = await ctx.storage.open("booted", OpenOptions.readWriteCreate);
    await marker.sync();
    for (;;) await ctx.time.sleep(10);
  }
}

/** Crashes the node once, early; it comes back after 20 ms to 3 s. */
class CrashOnce implements FaultInjector {
  readonly name = "crash-once";

  async inject(ctx: FaultContext): Promise<void> {
    await ctx.time.sleep(30);
    ctx.rebootWithDelays(ctx.processIps()[0]!, "crash", [20, 3_000]);
  }
}

/** Ticks every 10 ms for 4 s of simulated time. */
class Ticker implements Workload {
  readonly name = "ticker";

  async run(ctx: SimContext): Promise<void> {
    for (let i = 0; i < 400; i++) await ctx.time.sleep(10);
  }
}

const bootsOnce = () =>
  new SimulationBuilder()
    .networkFaults("none")
    .processes(1, () => new BootsOnce())
    .workloadFactory(() => new Ticker())
    .chaosDuration(5_000)
    .faultFactory(() => new CrashOnce());

describe("shrinking with restart.min", () => {
  it("keeps a reboot that restarts sooner when the failure comes with the restart: fewer events, same property", async () => {
    const result = await shrinkTimeline(bootsOnce(), { seed: 11, maxRuns: 40 });
    expect(result.property).toBe("the node boots once");
    expect(result.overrides).toMatch(/restart\.min=\d+/);
    expect(result.after.events).toBeLessThan(result.before.events);
    expect(result.after.simulatedTimeMs).toBeLessThan(result.before.simulatedTimeMs);
    const replay = await bootsOnce().replayTimeline(result.seed, result.recipe, result.overrides).run();
    expect(replay.seeds[0]!.traceHash).toBe(result.after.traceHash);
    expect(replay.seeds[0]!.failures[0]!.property).toBe("the node boots once");
    // Without the override the same run restarts at its drawn delay.
    const without = result.overrides.replace(/,?restart\.min=[^,]+/, "").replace(/^,/, "");
    const slow = await bootsOnce().replayTimeline(result.seed, result.recipe, without).run();
    expect(slow.seeds[0]!.failures[0]!.timeMs).toBeGreaterThan(replay.seeds[0]!.failures[0]!.timeMs);
  });
});
