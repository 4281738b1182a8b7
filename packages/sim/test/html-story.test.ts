/**
 * The story view's logic without a browser (cli/reporters/html/browser/story.ts): the squeezed
 * time scale, the labels, message methods from the transport's events, and periodic repeats folded
 * into bands.
 */
import { describe, expect, it } from "vitest";
import {
  compressedScale,
  eventLabel,
  foldRepeats,
  messageMethods,
  peerNames,
  storyFrame,
} from "../src/cli/reporters/html/browser/story.ts";
import type { PageEvent } from "../src/cli/reporters/html/browser/timeline-types.ts";

function ev(timeMs: number, lane: number, name: string, fields: PageEvent["fields"] = {}, level = "info"): PageEvent {
  return { seq: 0, timeMs, lane, level, name, kind: name, category: "fact", fields };
}

describe("story view", () => {
  it("squeezes quiet gaps into breaks and keeps the slice's stretch at full width", () => {
    const scale = compressedScale([0, 170, 171, 175, 177.5], 15_000);
    expect(scale.breaks.map((b) => [b.fromMs, b.toMs])).toEqual([
      [0, 170],
      [177.5, 15_000],
    ]);
    // Full width (slope 1) between 170 and 177.5, the 170 ms before squeezed to far less.
    expect(scale.u(177.5) - scale.u(170)).toBeCloseTo(7.5);
    expect(scale.u(170) - scale.u(0)).toBeLessThan(1);
    for (const t of [0, 50, 170, 172.25, 177.5, 9_000, 15_000]) expect(scale.t(scale.u(t))).toBeCloseTo(t);
    const ts = [0, 1, 100, 170, 171, 176, 177.5, 500, 15_000];
    const us = ts.map(scale.u);
    expect(us).toEqual([...us].sort((a, b) => a - b));
    // The frame holds the story and the failure, never time before 0.
    const [u0, u1] = storyFrame(scale, [0, 170, 177.5], 177.5);
    expect(scale.t(u0)).toBeGreaterThanOrEqual(0);
    expect(scale.t(u1)).toBeGreaterThan(177.5);
  });

  it("without quiet gaps nothing is squeezed", () => {
    expect(compressedScale([0, 1, 2, 3], 4).breaks).toEqual([]);
  });

  it("labels marks with their name and key fields, messages with the method they carried", () => {
    const peer = peerNames([
      { id: "10.0.1.1", label: "node-0@10.0.1.1", group: "node" },
      { id: "10.0.1.2", label: "node-1@10.0.1.2", group: "node" },
    ]);
    const conn = { connectionId: 1, offset: 0 };
    const events = [
      ev(1, 0, "transport_call", { peer: "10.0.1.2:7100", method: "election.vote", requestId: 1 }, "debug"),
      ev(2, 0, "net_send", { to: "10.0.1.2:7100", bytes: 66, from: "10.0.1.1:40000", ...conn }, "debug"),
      ev(3, 1, "net_recv", { from: "10.0.1.1:40000", bytes: 66, to: "10.0.1.2:7100", ...conn }, "debug"),
      ev(3, 1, "transport_serve", { peer: "10.0.1.1:40000", method: "election.vote", requestId: 1 }, "debug"),
      ev(3, 1, "vote_granted", { term: 1, candidate: "10.0.1.1" }),
      ev(3, 1, "net_send", { to: "10.0.1.1:40000", bytes: 54, from: "10.0.1.2:7100", ...conn }, "debug"),
      ev(4, 0, "net_recv", { from: "10.0.1.2:7100", bytes: 54, to: "10.0.1.1:40000", ...conn }, "debug"),
    ];
    const methods = messageMethods(events);
    expect([...methods.entries()]).toEqual([
      [1, "vote"],
      [2, "vote"],
      [5, "vote reply"],
      [6, "vote reply"],
    ]);
    expect(events.map((e, i) => eventLabel(e, methods.get(i), peer))).toEqual([
      "call vote → node-1",
      "vote → node-1 (66 B)",
      "vote ← node-0",
      "serve vote from node-0",
      "vote_granted term=1 candidate=10.0.1.1",
      "vote reply → node-0 (54 B)",
      "vote reply ← node-1",
    ]);
    const failure = { ...ev(5, 1, "seed_failure", { kind: "assertion", message: "one leader per term" }) };
    expect(eventLabel(failure, undefined, peer)).toBe("✗ one leader per term");
  });

  it("folds periodic repeats outside the slice into one band per lane, and leaves irregular events alone", () => {
    const beats = Array.from({ length: 20 }, (_, k) => [
      ev(100 + 50 * k, 0, "transport_call", { peer: "10.0.1.2:7100", method: "election.heartbeat" }, "debug"),
      ev(100 + 50 * k, 0, "transport_call", { peer: "10.0.1.3:7100", method: "election.heartbeat" }, "debug"),
    ]).flat();
    const irregular = [1, 2, 40, 41, 300].map((t) => ev(t, 1, "lonely"));
    const events = [...beats, ...irregular].sort((a, b) => a.timeMs - b.timeMs);
    const bands = foldRepeats(events, () => true, new Map());
    expect(bands).toHaveLength(1);
    expect(bands[0]).toMatchObject({ lane: 0, fromMs: 100, toMs: 1050, count: 40, periodMs: 50 });
    expect(bands[0]!.label).toBe("heartbeat: 40 events, every ~50 ms");
    // Events kept out of folding (the slice's) are never in a band.
    expect(foldRepeats(events, (i) => events[i]!.lane !== 0, new Map())).toEqual([]);
  });

  it("cuts a repeat where it stops for a while", () => {
    const times = [0, 10, 20, 30, 40, 1000, 1010, 1020, 1030];
    const bands = foldRepeats(
      times.map((t) => ev(t, 0, "tick")),
      () => true,
      new Map(),
    );
    expect(bands.map((b) => [b.fromMs, b.toMs, b.count])).toEqual([
      [0, 40, 5],
      [1000, 1030, 4],
    ]);
  });
});
