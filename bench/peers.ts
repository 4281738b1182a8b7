/**
 * Moonpool against the tools people would pick instead, side by side in this process: every ratio
 * is min / median / max over PAIRS interleaved pairs measured by CPU time (process.cpuUsage), with
 * its goal. A ratio above 1 means we did the same work in less CPU, except the scaling
 * ratios (cost per event at 100 nodes over 3 nodes, whole trace over cursor), where lower is
 * better, and `-j 2` over `-j 1`, a wall-time speedup. Workloads: bench/peers-*.ts.
 *
 * Environment: PEERS_PAIRS (default 5), PEERS_ONLY (a comma list of timers, ring, races, pingpong,
 * gossip, wholetrace, workers, checker), PEERS_J_SEEDS (seeds of each `moonpool run`, default
 * 120), MOONPOOL_PORCUPINE_KV (Porcupine's test_data/kv/c50-ok.txt; the checker row is skipped without).
 */
import { availableParallelism, loadavg } from "node:os";
import { checkerPair, moonpoolRunWallMs } from "./peers-campaign.ts";
import { pairedRatios, spread, type Spread } from "./peers-measure.ts";
import { fastCheckRace, moonpoolRace, RACES, RUNS } from "./peers-races.ts";
import { gossipMarginal, miniPingPong, moonpoolPingPong, wholeTrace } from "./peers-steps.ts";
import { fakeTimers, moonpoolTimers, SLEEPS, TASKS } from "./peers-timers.ts";

const PAIRS = Number(process.env.PEERS_PAIRS ?? 5);
const WARMUP = 1;

interface Row {
  readonly ratio: Spread;
  readonly goal: string;
  readonly met: boolean;
  readonly [extra: string]: unknown;
}

function row(
  values: number[],
  goal: string,
  met: (median: number) => boolean,
  extra: Record<string, unknown> = {},
): Row {
  const ratio = spread(values);
  const r = { ratio, goal, met: met(goal.startsWith("never") ? ratio.min : ratio.median), ...extra };
  console.error(`peers: ${JSON.stringify(r)}`);
  return r;
}

const theirsOverOurs = (ours: number, theirs: number) => theirs / ours;

export async function benchPeers(): Promise<Record<string, unknown>> {
  const only = process.env.PEERS_ONLY?.split(",");
  const want = (name: string) => only === undefined || only.includes(name);
  const rows: Record<string, Row | { readonly skipped: string }> = {};
  const atLeast = (goal: number) => (m: number) => m >= goal;
  const atMost = (goal: number) => (m: number) => m <= goal;

  if (want("timers")) {
    for (const drive of ["tickAsync", "runAllAsync"] as const) {
      const r = await pairedRatios(
        PAIRS,
        WARMUP,
        () => moonpoolTimers(false),
        () => fakeTimers(false, drive),
        theirsOverOurs,
      );
      rows[`timersVsFakeTimers_${drive}`] = row(r, ">= 5", atLeast(5), { tasks: TASKS, sleeps: SLEEPS });
    }
  }
  if (want("ring")) {
    const r = await pairedRatios(
      PAIRS,
      WARMUP,
      () => moonpoolTimers(true),
      () => fakeTimers(true, "tickAsync"),
      theirsOverOurs,
    );
    rows.ringVsFakeTimers = row(r, ">= 4", atLeast(4), { tasks: TASKS, sleeps: SLEEPS });
  }
  if (want("races")) {
    for (const race of RACES) {
      // Runs per CPU-second, ours over theirs: the same RUNS on each side, so the inverse CPU ratio.
      const r = await pairedRatios(
        PAIRS,
        WARMUP,
        () => moonpoolRace(race),
        () => fastCheckRace(race),
        theirsOverOurs,
      );
      rows[`racesVsFastCheck_${race.name}`] = row(r, ">= 1.0", atLeast(1), { runs: RUNS });
    }
  }
  if (want("pingpong")) {
    const r = await pairedRatios(PAIRS, WARMUP, moonpoolPingPong, miniPingPong, theirsOverOurs);
    rows.pingPongVsMiniEngine = row(r, ">= 0.85", atLeast(0.85));
  }
  if (want("gossip")) {
    // Steady state: the marginal cost per gossip event, the connection set-up cancelled out
    // (bench/peers-steps.ts); the set-up is in bench/scaling.ts.
    const events = 60_000;
    const perEvent = async (nodes: number) => {
      const g = await gossipMarginal(nodes, Infinity, events);
      return g.cpuMs / g.events;
    };
    const r = await pairedRatios(
      PAIRS,
      WARMUP,
      () => perEvent(100),
      () => perEvent(3),
      (big, small) => big / small,
    );
    rows.gossipPerEvent100vs3 = row(r, "<= 1.3", atMost(1.3), {
      targetEvents: events,
      measure: "marginal cost per event",
    });
  }
  if (want("wholetrace")) {
    const facts = 10_000;
    const r = await pairedRatios(
      PAIRS,
      WARMUP,
      async () => {
        const w = await wholeTrace(facts, "snapshot");
        return w.cpuMs / w.events;
      },
      async () => {
        const w = await wholeTrace(facts, "cursor");
        return w.cpuMs / w.events;
      },
      (whole, cursor) => whole / cursor,
    );
    rows.wholeTraceVsCursor = row(r, "documented (docs/invariants.md)", () => true, { facts });
  }
  if (want("workers")) {
    const seeds = Number(process.env.PEERS_J_SEEDS ?? 120);
    const r = await pairedRatios(
      PAIRS,
      0,
      () => moonpoolRunWallMs(2, seeds, "shared"),
      () => moonpoolRunWallMs(1, seeds, "shared"),
      theirsOverOurs,
    );
    rows.runJ2vsJ1 = row(r, "never below 1.0; >= 1.6 on two idle cores", (min) => min >= 1, {
      measuredBy: "wall time",
      seeds,
      isolation: "shared",
      cores: availableParallelism(),
      load1: Number(loadavg()[0]!.toFixed(1)),
    });
  }
  if (want("checker")) {
    const pair = checkerPair();
    if (pair === null)
      rows.kvModelVsStringModel = { skipped: "set MOONPOOL_PORCUPINE_KV to Porcupine's test_data/kv/c50-ok.txt" };
    else {
      const r = await pairedRatios(PAIRS, WARMUP, pair.kv, pair.string, (kv, str) => kv / str);
      rows.kvModelVsStringModel = row(r, "<= 1.5", atMost(1.5), {
        history: pair.source,
        operations: pair.operations,
        kvSteps: pair.kvSteps,
        stringSteps: pair.stringSteps,
      });
    }
  }
  return { pairs: PAIRS, measuredBy: "process.cpuUsage", ...rows };
}
