/**
 * The data behind the HTML pages (no browser needed): lanes, message arrows from send/receive
 * pairs, fault and lifecycle categories, the failure's place, safe embedding, and pages that are a
 * function of the seed.
 */
import { describe, expect, it } from "vitest";
import {
  buildTimelineData,
  renderTimelineHtml,
  replayTimeline,
  unpackTimelineEvents,
} from "../src/cli/reporters/html/index.ts";
import { packTimelineEvents } from "../src/cli/reporters/html/timeline-data.ts";
import { embedJson } from "../src/cli/reporters/html/page.ts";
import { TraceEvent } from "../src/index.ts";
import { chatterSimulation } from "./fixtures/chatter.ts";

function ev(
  seq: number,
  timeMs: number,
  source: string,
  name: string,
  fields: Record<string, string | number | boolean | bigint> = {},
  level: "debug" | "info" | "error" = "info",
) {
  return new TraceEvent(seq, timeMs, source, level, name, fields);
}

const BASE = {
  simulation: "s",
  seed: 1,
  recipe: "",
  ok: false,
  simulatedTimeMs: 100,
  traceHash: "00000000",
  replayCommand: "npx moonpool replay s --seed 1",
};

describe("timeline data", () => {
  it("pairs sends with receives per connection into arrows between the two lanes", () => {
    const data = buildTimelineData({
      ...BASE,
      ok: true,
      failures: [],
      events: [
        ev(0, 0, "node-1@10.0.1.2", "process_started"),
        ev(1, 0, "node-0@10.0.1.1", "process_started"),
        ev(
          2,
          1,
          "node-0@10.0.1.1",
          "net_send",
          { from: "10.0.1.1", to: "10.0.1.2", bytes: 12, connection: 3 },
          "debug",
        ),
        ev(3, 2, "node-0@10.0.1.1", "net_send", { from: "10.0.1.1", to: "10.0.1.2", bytes: 5, connection: 3 }, "debug"),
        ev(
          4,
          4,
          "node-1@10.0.1.2",
          "net_recv",
          { from: "10.0.1.1", to: "10.0.1.2", bytes: 12, connection: 3 },
          "debug",
        ),
        ev(5, 6, "node-1@10.0.1.2", "net_recv", { from: "10.0.1.1", to: "10.0.1.2", bytes: 5, connection: 3 }, "debug"),
        ev(6, 7, "node-1@10.0.1.2", "net_send", { from: "10.0.1.2", to: "10.0.1.1", bytes: 1, connection: 4 }, "debug"),
      ],
    });
    expect(data.lanes.map((l) => l.label)).toEqual(["node-0@10.0.1.1", "node-1@10.0.1.2"]);
    expect(data.lanes.map((l) => l.group)).toEqual(["node", "node"]);
    expect(data.arrows).toEqual([
      { fromLane: 0, toLane: 1, fromTimeMs: 1, toTimeMs: 4, seq: 2, label: "net_send", delivered: true },
      { fromLane: 0, toLane: 1, fromTimeMs: 2, toTimeMs: 6, seq: 3, label: "net_send", delivered: true },
      // Not (yet) received: drawn at the send's instant.
      { fromLane: 1, toLane: 0, fromTimeMs: 7, toTimeMs: 7, seq: 6, label: "net_send", delivered: false },
    ]);
    expect(data.events.filter((e) => e.category === "message")).toHaveLength(5);
    expect(data.failure).toBeNull();
    // A passing timeline has no causal slice (the page then has no story view).
    expect(data.slice).toBeNull();
  });

  it("puts faults on the lane of their IP, classifies lifecycle, partitions and faults, places the failure", () => {
    const data = buildTimelineData({
      ...BASE,
      failures: [
        { kind: "assertion", message: 'assertAlways("x") failed', actor: "node-1@10.0.1.2", timeMs: 9, property: "x" },
      ],
      events: [
        ev(0, 0, "sim", "sim_fault", { kind: "process_crash", ip: "10.0.1.2", wipe: false }),
        ev(1, 1, "node-1@10.0.1.2", "process_started"),
        ev(2, 2, "sim", "sim_fault", { kind: "partition_created", from: "10.0.1.1", to: "10.0.1.2", durationMs: 5 }),
        ev(3, 3, "sim", "sim_fault", {
          kind: "partial_write",
          connectionId: 1,
          from: "10.0.1.2",
          to: "10.0.1.1",
          sentBytes: 3,
        }),
        ev(4, 4, "node-1@10.0.1.2", "value_chosen", { slot: 1, value: "a" }),
        ev(5, 9, "runner", "seed_failure", { kind: "assertion", message: "x" }, "error"),
      ],
    });
    const byKind = Object.fromEntries(data.events.map((e) => [e.kind, e]));
    expect(byKind.process_crash!.category).toBe("process");
    expect(byKind.process_started!.category).toBe("process");
    expect(byKind.partition_created!.category).toBe("partition");
    expect(byKind.partial_write!.category).toBe("fault");
    expect(byKind.value_chosen!.category).toBe("fact");
    expect(byKind.seed_failure!.category).toBe("failure");
    const lane = (label: string) => data.lanes.findIndex((l) => l.label === label);
    // The crash came before the actor showed up: its IP lane took the actor's name afterwards.
    expect(byKind.process_crash!.lane).toBe(lane("node-1@10.0.1.2"));
    expect(byKind.seed_failure!.lane).toBe(lane("node-1@10.0.1.2"));
    expect(data.failure).toEqual({
      timeMs: 9,
      lane: lane("node-1@10.0.1.2"),
      message: '[assertion] assertAlways("x") failed',
    });
    // The failure's causal slice: node-1's crash and start (its machine's program order), the
    // partition and the connection fault that reached its IP before its fact, the fact, the failure.
    expect(data.slice).toEqual([0, 1, 2, 3, 4, 5]);
    // A connection fault links its two ends.
    expect(data.arrows).toEqual([
      {
        fromLane: lane("node-1@10.0.1.2"),
        toLane: lane("10.0.1.1"),
        fromTimeMs: 3,
        toTimeMs: 3,
        seq: 3,
        label: "partial_write",
        delivered: false,
      },
    ]);
  });

  it("groups lanes by role, then zone and machine when the trace names them", () => {
    const data = buildTimelineData({
      ...BASE,
      ok: true,
      failures: [],
      events: [
        ev(0, 0, "client@10.0.0.1", "started"),
        ev(1, 0, "node-1@10.0.1.2", "process_started", { zone: "z1", machine: "m2" }),
        ev(2, 0, "node-0@10.0.1.1", "process_started", { zone: "z1", machine: "m1" }),
      ],
    });
    expect(data.lanes.map((l) => [l.label, l.group])).toEqual([
      ["client@10.0.0.1", "client"],
      ["node-1@10.0.1.2", "node · zone z1 · machine m2"],
      ["node-0@10.0.1.1", "node · zone z1 · machine m1"],
    ]);
  });

  it("packs events for the page and unpacks them unchanged", () => {
    const data = buildTimelineData({
      ...BASE,
      ok: true,
      failures: [],
      events: [
        ev(0, 0, "node-0@10.0.1.1", "process_started"),
        ev(1, 0.5, "sim", "sim_fault", { kind: "partial_write", from: "10.0.1.1", to: "10.0.1.2", sentBytes: 3 }),
        ev(2, 1, "node-0@10.0.1.1", "value_chosen", { slot: 1, value: "a", big: 2n ** 70n }, "debug"),
      ],
    });
    const packed = packTimelineEvents(data.events);
    expect(packed.rows).toHaveLength(3);
    expect(new Set(packed.strings).size).toBe(packed.strings.length);
    expect(unpackTimelineEvents(JSON.parse(embedJson(packed)))).toEqual(data.events);
  });

  it("embeds data that cannot end its script element", () => {
    const text = embedJson({ s: "</script><script>alert(1)</script><!--", big: 12n });
    expect(text).not.toContain("<");
    expect(JSON.parse(text)).toEqual({ s: "</script><script>alert(1)</script><!--", big: "12" });
  });

  it("a timeline page is a function of the seed: the same seed twice, the same page; two seeds differ", async () => {
    const config = chatterSimulation({ processes: 3, messages: 40, failAt: 20 }).build();
    const page = async (seed: number) =>
      renderTimelineHtml(
        await replayTimeline(config, "chatter", seed, "", `npx moonpool replay chatter --seed ${seed}`),
      );
    const [a, b, c] = [await page(5), await page(5), await page(6)];
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(a).toContain('"message_sent"');
  });

  it("keeps debug events aside: the page shows messages and its trace hash is the run's", async () => {
    const chatter = () => chatterSimulation({ processes: 3, messages: 40, failAt: 20 });
    const run = await chatter().setDebugSeeds([5]).run();
    const data = await replayTimeline(chatter().build(), "chatter", 5, "", "npx moonpool replay chatter --seed 5");
    expect(data.traceHash).toBe(run.seeds[0]!.traceHash);
    const sends = data.events.filter((e) => e.name === "net_send");
    expect(sends.length).toBeGreaterThan(0);
    expect(sends.every((e) => e.level === "debug")).toBe(true);
    // Numbered by place in the page's list, so every event and arrow has its own number.
    expect(data.events.map((e) => e.seq)).toEqual(data.events.map((_, i) => i));
    expect(data.arrows.length).toBeGreaterThan(0);
    // Captured at debug level instead, the same seed hashes differently: the page does not do that.
    const captured = await chatter().traceLevel("debug").setDebugSeeds([5]).run();
    expect(captured.seeds[0]!.traceHash).not.toBe(data.traceHash);
  });
});
