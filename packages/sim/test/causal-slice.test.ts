/**
 * The causal slice of a failure (runner/causal-slice.ts): program order, message and fault edges on
 * small traces, and on the README's split brain (`leader-election-vote-twice`) the slice of the
 * failing assertion holds the two conflicting votes and no heartbeat.
 */
import { describe, expect, it } from "vitest";
import { leaderElectionSimulation } from "../../../examples/leader-election/simulation.ts";
import { causalSlice, failureIndex, happensBefore } from "../src/runner/causal-slice.ts";
import { replayWithTrace } from "../src/runner/timeline-replay.ts";
import { TraceEvent } from "../src/index.ts";

type Fields = Record<string, string | number | boolean>;
const trace = (rows: readonly [number, string, string, Fields?][]) =>
  rows.map(([timeMs, source, name, fields], i) => new TraceEvent(i, timeMs, source, "info", name, fields ?? {}));

const A = "a@10.0.0.1";
const B = "b@10.0.0.2";
const C = "c@10.0.0.3";
const send = (to: string, from: string, id: number, offset: number, bytes: number): Fields => ({
  to,
  bytes,
  from,
  connectionId: id,
  offset,
});
const recv = (from: string, to: string, id: number, offset: number, bytes: number): Fields => ({
  from,
  bytes,
  to,
  connectionId: id,
  offset,
});

/** The README's split brain: node-1 votes for node-0 and then node-2 in term 1. */
const SPLIT_BRAIN_SEED = 6904382702678391;

describe("causal slice", () => {
  it("follows program order and the writes a read took, and leaves out what the failure never saw", () => {
    const events = trace([
      [0, A, "started"], // 0
      [0, C, "started"], // 1: never talks to anyone before the failure
      [1, A, "net_send", send("10.0.0.2:7", "10.0.0.1:40", 1, 0, 10)], // 2
      [1, A, "net_send", send("10.0.0.2:7", "10.0.0.1:40", 1, 10, 5)], // 3
      [2, C, "net_send", send("10.0.0.2:7", "10.0.0.3:40", 2, 0, 8)], // 4: read only after the failure
      [3, B, "net_recv", recv("10.0.0.1:40", "10.0.0.2:7", 1, 0, 12)], // 5: takes write 2 and part of 3
      [3, B, "decided"], // 6
      [3, "runner", "seed_failure", { kind: "assertion", message: "m" }], // 7
      [4, B, "net_recv", recv("10.0.0.3:40", "10.0.0.2:7", 2, 0, 8)], // 8
    ]);
    expect(happensBefore(events)[5]).toEqual([2, 3]);
    const slice = causalSlice(events, failureIndex(events), B)!;
    expect(slice.failureIndex).toBe(7);
    expect(slice.indexes).toEqual([0, 2, 3, 5, 6, 7]);
    expect(slice.causes.get(7)).toEqual([6]);
  });

  it("links a fault to the next event of each machine it names, and a restart to its crash", () => {
    const events = trace([
      [0, A, "started"], // 0
      [0, B, "started"], // 1
      [1, "sim", "sim_fault", { kind: "process_crash", ip: "10.0.0.2" }], // 2
      [2, "sim", "sim_fault", { kind: "process_restart", ip: "10.0.0.2" }], // 3
      [3, B, "process_started"], // 4
      [4, "sim", "sim_fault", { kind: "partition_created", from: "10.0.0.1", to: "10.0.0.3" }], // 5
      [5, A, "lost"], // 6
      [6, A, "failed_over"], // 7
      [6, "runner", "seed_failure", { kind: "assertion", message: "m" }], // 8
    ]);
    const causes = happensBefore(events);
    expect(causes[3]).toEqual([2]);
    expect(causes[2]).toEqual([1]);
    expect(causes[4]).toEqual([3]);
    expect(causes[6]).toEqual([0, 5]);
    expect(causalSlice(events, 8, "a")!.indexes).toEqual([0, 5, 6, 7, 8]);
  });

  it("a failure's slice includes every earlier event of its trigger's name (what an invariant read)", () => {
    const events = trace([
      [0, A, "leader_elected", { term: 1 }],
      [0, C, "noise"],
      [1, B, "leader_elected", { term: 1 }],
      [1, "runner", "seed_failure", { kind: "assertion", message: "m" }],
    ]);
    expect(causalSlice(events, 3, B)!.indexes).toEqual([0, 2, 3]);
  });

  it("no failure, no slice", () => {
    const events = trace([[0, A, "started"]]);
    expect(failureIndex(events)).toBe(-1);
    expect(causalSlice(events)).toBeNull();
  });

  it("leader-election-vote-twice: the two conflicting votes are in the slice, heartbeats are not", async () => {
    const config = leaderElectionSimulation({ bug: "vote-twice" }).build();
    const { result, events } = await replayWithTrace(config, SPLIT_BRAIN_SEED, "");
    expect(result.ok).toBe(false);
    const slice = causalSlice(events, failureIndex(events), result.failures[0]!.actor)!;
    const inSlice = new Set(slice.indexes);
    const named = (name: string) => [...events.entries()].filter(([, e]) => e.name === name).map(([i]) => i);

    // node-1 grants term 1 twice: both votes, both leaders, and the replies that carried the votes.
    const votes = named("vote_granted").filter((i) => events[i]!.num("term") === 1);
    expect(votes.map((i) => events[i]!.str("candidate"))).toEqual(["10.0.1.1", "10.0.1.3"]);
    for (const i of votes) expect(inSlice.has(i), events[i]!.format()).toBe(true);
    const replies = votes.map((v) =>
      events.findIndex((e, i) => i > v && e.source === events[v]!.source && e.name === "net_send"),
    );
    for (const i of replies) expect(inSlice.has(i), events[i]!.format()).toBe(true);
    const leaders = named("leader_elected").filter((i) => i < slice.failureIndex);
    expect(leaders.map((i) => events[i]!.str("leader"))).toEqual(["10.0.1.1", "10.0.1.3"]);
    for (const i of leaders) expect(inSlice.has(i)).toBe(true);
    // The vote requests the double voter served are the candidates' own sends.
    const served = named("transport_serve").filter((i) => inSlice.has(i));
    expect(served.map((i) => events[i]!.str("method"))).toEqual([
      "leader-election.vote",
      "leader-election.vote",
      "leader-election.vote",
    ]);

    // The run has heartbeats (of term 1 and later ones), none of them in the slice.
    const heartbeats = [...named("transport_call"), ...named("transport_serve")].filter(
      (i) => events[i]!.str("method") === "leader-election.heartbeat",
    );
    expect(heartbeats.length).toBeGreaterThan(100);
    expect(heartbeats.filter((i) => inSlice.has(i))).toEqual([]);
    // A handful out of thousands.
    expect(events.length).toBeGreaterThan(1000);
    expect(slice.indexes.length).toBeLessThan(50);

    // A function of the trace: the same seed gives the same slice.
    const again = await replayWithTrace(config, SPLIT_BRAIN_SEED, "");
    expect(causalSlice(again.events, failureIndex(again.events), again.result.failures[0]!.actor)!.indexes).toEqual(
      slice.indexes,
    );
  });
});
