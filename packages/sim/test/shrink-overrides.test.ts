/**
 * Timeline overrides (runner/shrink/overrides.ts): the text form, and each dimension shown
 * working on a run and absent without it. The Paxos example with every chaos surface in random
 * mode, node isolation and crash-restarts is the subject: it injects every kind of fault.
 */
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type Process, type SimContext, type Workload } from "../src/index.ts";
import { formatOverrides, NO_OVERRIDES, OverridesParseError, parseOverrides } from "../src/runner/shrink/overrides.ts";
import { isInjectedFault } from "../src/runner/shrink/measure.ts";
import type { TraceEvent } from "../src/world/trace-log.ts";
import { paxosSimulation } from "../../../examples/paxos/simulation.ts";
import { chaoticPaxos as paxos, runWithOverrides as run } from "./fixtures/override-runs.ts";

const count = (events: readonly TraceEvent[], name: string) => events.filter((e) => e.name === name).length;
const storageFaults = (kinds: Map<string, number>) =>
  [...kinds]
    .filter(
      ([k]) =>
        k.startsWith("storage_") && k !== "storage_crash" && k !== "storage_lost_write" && k !== "storage_torn_write",
    )
    .reduce((n, [, c]) => n + c, 0);

describe("overrides text", () => {
  it("formats what it parses, in a fixed order, and the empty text is no override", () => {
    const text =
      "size.polls=12,procs.node=2,disk.rate=0.25," +
      "disk.off=read+write+crash+misdirectRead+misdirectWrite+phantom+sync+stall+throttle," +
      "net.rate=0.5,net.off=partition+clog,window=750,attrition=off,injector=off";
    expect(formatOverrides(parseOverrides(text))).toBe(
      "injector=off,attrition=off,window=750,net.off=clog+partition,net.rate=0.5,disk.off=all,disk.rate=0.25," +
        "procs.node=2,size.polls=12",
    );
    expect(parseOverrides("  ")).toBe(NO_OVERRIDES);
    expect(formatOverrides(NO_OVERRIDES)).toBe("");
  });

  it.each([
    ["bogus=1", "unknown key 'bogus'"],
    ["window", "missing '='"],
    ["window=0", "a whole number >= 1"],
    ["net.off=clog+sparks", "unknown family 'sparks'"],
    ["net.rate=1.5", "between 0 and 1"],
    ["injector=on", "the only value is off"],
    ["size.polls=-1", "a whole number >= 0"],
  ])("refuses %s with a message that says what to change", (text, message) => {
    expect(() => parseOverrides(text)).toThrow(OverridesParseError);
    expect(() => parseOverrides(text)).toThrow(message);
  });

  it("replayTimeline takes the overrides as an object too; fields left out override nothing", async () => {
    const chaotic = () => paxosSimulation({ network: "random", storage: "random", attrition: "random", reboots: true });
    const hash = async (overrides: Parameters<SimulationBuilder["replayTimeline"]>[2]) =>
      (await chaotic().replayTimeline(7, "", overrides).run()).seeds[0]!.traceHash;
    const text = await hash("injector=off,net.off=clog");
    expect(await hash({ injectorOff: true, networkOff: ["clog"] })).toBe(text);
    expect(await hash({})).toBe(await hash(""));
    expect(text).not.toBe(await hash(""));
  });

  it("replayTimeline refuses bad overrides as a configuration error", () => {
    expect(() => new SimulationBuilder().replayTimeline(1, "", "window=x")).toThrow(OverridesParseError);
  });
});

describe("override dimensions", () => {
  it("network families off: clogs and partial writes stop, only the named family when one is named", async () => {
    const config = paxos();
    // Seed 1: clogs and partial writes, and partial writes still without the clogs (seed 6 lost
    // them once the baseline clocks changed its timing).
    const base = await run(config, 1);
    expect(base.kinds.get("clog") ?? 0).toBeGreaterThan(0);
    expect(base.kinds.get("partial_write") ?? 0).toBeGreaterThan(0);
    const clogOff = await run(config, 1, "net.off=clog");
    expect(clogOff.kinds.get("clog") ?? 0).toBe(0);
    expect(clogOff.kinds.get("partial_write") ?? 0).toBeGreaterThan(0);
    const allOff = await run(config, 1, "net.off=all");
    for (const kind of [
      "clog",
      "partial_write",
      "partial_read",
      "bit_flip",
      "random_close",
      "connect_refused",
      "sleep_delayed",
    ])
      expect(allOff.kinds.get(kind) ?? 0, kind).toBe(0);
    // The injector's isolations are not a network family: they stay.
    expect(count(allOff.events, "node_isolated")).toBeGreaterThan(0);
  });

  it("lower network rates inject fewer faults", async () => {
    const config = paxos();
    const base = await run(config, 6);
    const low = await run(config, 6, "net.rate=0.1");
    expect(low.kinds.get("clog") ?? 0).toBeLessThan(base.kinds.get("clog")!);
  });

  it("storage families off: no storage fault is injected", async () => {
    const config = paxos();
    let seed = 1;
    let base = await run(config, seed);
    while (storageFaults(base.kinds) === 0 && seed < 20) base = await run(config, ++seed);
    expect(storageFaults(base.kinds)).toBeGreaterThan(0);
    expect(storageFaults((await run(config, seed, "disk.off=all")).kinds)).toBe(0);
    expect(storageFaults((await run(config, seed, "disk.rate=0.5")).kinds)).toBeLessThanOrEqual(
      storageFaults(base.kinds),
    );
  });

  it("injector off: no isolation and no crash-restart; attrition off: the seed records no attrition", async () => {
    const config = paxos();
    const base = await run(config, 6);
    expect(count(base.events, "node_isolated")).toBeGreaterThan(0);
    expect(base.result.chaos.faultInjector).not.toBeNull();
    expect(base.result.chaos.attrition.length).toBe(1);
    const noInjector = await run(config, 6, "injector=off");
    expect(count(noInjector.events, "node_isolated")).toBe(0);
    expect(count(noInjector.events, "node_rebooted")).toBe(0);
    expect(noInjector.result.chaos.faultInjector).toBeNull();
    expect((await run(config, 6, "attrition=off")).result.chaos.attrition).toEqual([]);
  });

  it("a shorter chaos window ends chaos earlier; a longer one changes nothing", async () => {
    const config = paxos();
    const ended = (r: { events: readonly TraceEvent[] }) => r.events.find((e) => e.name === "chaos_ended")!.timeMs;
    const base = await run(config, 6);
    const short = await run(config, 6, "window=500");
    expect(ended(short)).toBeLessThan(ended(base) - 2_000);
    expect((await run(config, 6, "window=99999")).result.traceHash).toBe(base.result.traceHash);
  });

  it("ctx.size: the default without overrides, lowered (never raised) with them, reported in the result", async () => {
    const config = paxos();
    const base = await run(config, 6);
    expect(base.result.sizes).toEqual({ clients: 2, opsPerClient: 30, tailProposals: 3 });
    const lowered = await run(config, 6, "size.opsPerClient=2,size.clients=5");
    expect(lowered.result.sizes).toEqual({ clients: 2, opsPerClient: 2, tailProposals: 3 });
    expect(lowered.result.eventsProcessed).toBeLessThan(base.result.eventsProcessed);
  });

  it("procs caps a ranged group after its draw, and leaves a fixed group alone; sizes are absent when nobody asks", async () => {
    class Idle implements Process {
      constructor(readonly name: string) {}
      async run(ctx: SimContext): Promise<void> {
        await ctx.time.sleep(10);
      }
    }
    const quick: Workload = { name: "w", run: async (ctx) => void (await ctx.time.sleep(20)) };
    const config = new SimulationBuilder()
      .processes([3, 5], () => new Idle("ranged"))
      .processes(2, () => new Idle("fixed"))
      .workloadFactory(() => quick)
      .networkFaults("none")
      .build();
    const started = (r: { events: readonly TraceEvent[] }, group: string) =>
      new Set(r.events.filter((e) => e.name === "process_started" && e.source.startsWith(group)).map((e) => e.source))
        .size;
    const base = await run(config, 7);
    expect(started(base, "ranged")).toBeGreaterThanOrEqual(3);
    expect(base.result.sizes).toBeUndefined();
    const capped = await run(config, 7, "procs.ranged=1,procs.fixed=1");
    expect(started(capped, "ranged")).toBe(3); // never below the range's minimum
    expect(started(capped, "fixed")).toBe(2);
    let seed = 1;
    while (started(await run(config, seed), "ranged") === 3) seed++;
    expect(started(await run(config, seed, "procs.ranged=4"), "ranged")).toBe(4);
  });

  it("is deterministic: the same overrides give the same trace hash twice, other overrides another", async () => {
    const config = paxos();
    const text = "injector=off,window=1000,net.off=clog,size.opsPerClient=5";
    const a = await run(config, 5, text);
    const b = await run(config, 5, text);
    expect(b.result.traceHash).toBe(a.result.traceHash);
    expect(b.events.filter(isInjectedFault).length).toBe(a.events.filter(isInjectedFault).length);
    expect((await run(config, 5, "injector=off,window=1000")).result.traceHash).not.toBe(a.result.traceHash);
    expect((await run(config, 6, text)).result.traceHash).not.toBe(a.result.traceHash);
  });
});
