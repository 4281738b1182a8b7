/**
 * The story view's logic, free of the DOM (unit-tested from Node): a time scale that squeezes the
 * long quiet stretches between the causal slice's events, a label per event (its name and key
 * fields, messages named by the RPC method they carried), and periodic repeats (heartbeats) outside
 * the slice folded into one band per actor.
 */
import type { PageEvent, PageLane } from "./timeline-types.ts";

/** A compressed stretch of time, drawn as a break in the axis. */
export interface TimeBreak {
  readonly fromMs: number;
  readonly toMs: number;
  readonly fromU: number;
  readonly toU: number;
}

/** Simulated time `t` (ms) to drawing position `u` and back: monotone, slope 1 outside breaks. */
export interface TimeScale {
  readonly u: (t: number) => number;
  readonly t: (u: number) => number;
  readonly breaks: readonly TimeBreak[];
}

export const IDENTITY_SCALE: TimeScale = { u: (t) => t, t: (u) => u, breaks: [] };

/** Piecewise linear through knots (ascending in both coordinates). */
function piecewise(ts: readonly number[], us: readonly number[], breaks: readonly TimeBreak[]): TimeScale {
  const map = (from: readonly number[], to: readonly number[], x: number): number => {
    if (x <= from[0]!) return to[0]! + (x - from[0]!);
    const last = from.length - 1;
    if (x >= from[last]!) return to[last]! + (x - from[last]!);
    let lo = 0;
    let hi = last;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (from[mid]! <= x) lo = mid;
      else hi = mid;
    }
    const span = from[hi]! - from[lo]!;
    return span === 0 ? to[lo]! : to[lo]! + ((x - from[lo]!) / span) * (to[hi]! - to[lo]!);
  };
  return { u: (t) => map(ts, us, t), t: (u) => map(us, ts, u), breaks };
}

/**
 * A scale that keeps the stretches holding `times` (the slice's events) at full width and squeezes
 * each quiet gap (longer than a tenth of their spread and four usual steps) to a twelfth of the time
 * kept, from 0 to `endMs`.
 */
export function compressedScale(times: readonly number[], endMs: number): TimeScale {
  const sorted = [...new Set([0, ...times.filter((t) => t >= 0 && t <= endMs), endMs])].sort((a, b) => a - b);
  const inner = times.filter((t) => t >= 0);
  const spread = inner.length > 1 ? Math.max(...inner) - Math.min(...inner) : endMs;
  const steps = sorted
    .slice(1)
    .map((t, i) => t - sorted[i]!)
    .filter((g) => g > 0);
  // Quiet: long against the spread and against the usual step (evenly spaced events stay as they are).
  const quiet = Math.max(spread / 10, steps.length > 0 ? 4 * median(steps) : 0, 1e-3);
  let kept = 0;
  for (let i = 1; i < sorted.length; i++) {
    const gap = sorted[i]! - sorted[i - 1]!;
    if (gap <= quiet) kept += gap;
  }
  const squeezed = Math.max(kept / 12, 1e-3);
  const ts = [sorted[0]!];
  const us = [sorted[0]!];
  const breaks: TimeBreak[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const gap = sorted[i]! - sorted[i - 1]!;
    const width = gap > quiet && gap > squeezed ? squeezed : gap;
    const fromU = us[us.length - 1]!;
    ts.push(sorted[i]!);
    us.push(fromU + width);
    if (width < gap) breaks.push({ fromMs: sorted[i - 1]!, toMs: sorted[i]!, fromU, toU: fromU + width });
  }
  return piecewise(ts, us, breaks);
}

/** The drawing range (in `u`) that frames the story: its events and the failure, never before time 0. */
export function storyFrame(scale: TimeScale, times: readonly number[], failureMs: number | null): [number, number] {
  const all = failureMs === null ? [...times] : [...times, failureMs];
  if (all.length === 0) return [scale.u(0), scale.u(1)];
  const u0 = scale.u(Math.max(0, Math.min(...all)));
  const u1 = scale.u(Math.max(...all));
  const pad = Math.max((u1 - u0) * 0.04, 0.01);
  // More room on the right, for the labels of the last marks (the failure's among them).
  return [Math.max(scale.u(0), u0 - pad), u1 + pad * 6];
}

const IP = /^\d{1,3}(\.\d{1,3}){3}$/;
function ipOf(address: unknown): string | null {
  if (typeof address !== "string") return null;
  const ip = address.replace(/:\d+$/, "");
  return IP.test(ip) ? ip : null;
}

/** `leader-election.vote` -> `vote` */
function shortMethod(method: string): string {
  return method.slice(method.lastIndexOf(".") + 1);
}

/**
 * The RPC method each `net_send` / `net_recv` carried (by page index), from the transport's debug
 * events: a write carries the calls queued to its peer before it, or the reply to a request served
 * at the same instant; a read carries what the writes of its stream range carried.
 */
export function messageMethods(events: readonly PageEvent[]): Map<number, string> {
  const methods = new Map<number, string>();
  const queued = new Map<string, string[]>();
  const served = new Map<string, { method: string; timeMs: number }>();
  const lastRecv = new Map<number, number>();
  const writes = new Map<string, [number, number, string][]>();
  for (const [i, e] of events.entries()) {
    const f = e.fields;
    if (e.name === "transport_call" && typeof f.method === "string") {
      const key = `${e.lane}>${ipOf(f.peer)}`;
      let list = queued.get(key);
      if (list === undefined) queued.set(key, (list = []));
      list.push(shortMethod(f.method));
    } else if (e.name === "transport_serve" && typeof f.method === "string") {
      served.set(`${e.lane}>${String(f.peer)}`, { method: shortMethod(f.method), timeMs: e.timeMs });
      const recv = lastRecv.get(e.lane);
      if (recv !== undefined && events[recv]!.fields.from === f.peer && !methods.has(recv))
        methods.set(recv, shortMethod(f.method));
    } else if (e.name === "net_send") {
      const key = `${e.lane}>${ipOf(f.to)}`;
      const reply = served.get(`${e.lane}>${String(f.to)}`);
      let method: string | undefined;
      if (reply !== undefined && reply.timeMs === e.timeMs) {
        method = `${reply.method} reply`;
        served.delete(`${e.lane}>${String(f.to)}`);
      } else {
        const calls = queued.get(key);
        if (calls !== undefined && calls.length > 0) {
          method = [...new Set(calls)].join("+");
          queued.delete(key);
        }
      }
      if (method !== undefined) {
        methods.set(i, method);
        const stream = `${String(f.connectionId)}>${String(f.to)}`;
        const start = typeof f.offset === "number" ? f.offset : 0;
        let list = writes.get(stream);
        if (list === undefined) writes.set(stream, (list = []));
        list.push([start, start + (typeof f.bytes === "number" ? f.bytes : 0), method]);
      }
    } else if (e.name === "net_recv") {
      lastRecv.set(e.lane, i);
      const start = typeof f.offset === "number" ? f.offset : 0;
      const end = start + (typeof f.bytes === "number" ? f.bytes : 0);
      const carried = (writes.get(`${String(f.connectionId)}>${String(f.to)}`) ?? [])
        .filter(([s, w]) => s < end && w > start)
        .map(([, , m]) => m);
      if (carried.length > 0) methods.set(i, [...new Set(carried)].join("+"));
    }
  }
  return methods;
}

/** The short name of the actor at an address: `node-1` for `10.0.1.2:7100`. */
export function peerNames(lanes: readonly PageLane[]): (address: unknown) => string {
  const byIp = new Map<string, string>();
  for (const lane of lanes) {
    const at = lane.label.indexOf("@");
    if (at >= 0) byIp.set(lane.label.slice(at + 1), lane.label.slice(0, at));
  }
  return (address) => {
    const ip = ipOf(address);
    return ip === null ? String(address) : (byIp.get(ip) ?? ip);
  };
}

function fieldText(fields: PageEvent["fields"], skip: readonly string[], max: number): string {
  return Object.entries(fields)
    .filter(([k]) => !skip.includes(k))
    .slice(0, max)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");
}

/** A mark's label: the event's name and key fields (`vote_granted term=1 candidate=10.0.1.3`, `vote → node-1`). */
export function eventLabel(e: PageEvent, method: string | undefined, peer: (address: unknown) => string): string {
  const f = e.fields;
  switch (e.name) {
    case "net_send":
      return `${method ?? "net_send"} → ${peer(f.to)} (${String(f.bytes)} B)`;
    case "net_recv":
      return `${method ?? "net_recv"} ← ${peer(f.from)}`;
    case "transport_call":
      return `call ${shortMethod(String(f.method))} → ${peer(f.peer)}`;
    case "transport_serve":
      return `serve ${shortMethod(String(f.method))} from ${peer(f.peer)}`;
    case "transport_connected":
      return `connected ${f.incoming === 1 ? "from" : "to"} ${peer(f.peer)}`;
    case "seed_failure": {
      const message = String(f.message ?? "failure");
      return `✗ ${message.length > 90 ? message.slice(0, 89) + "…" : message}`;
    }
    case "sim_fault": {
      const where = f.ip !== undefined ? peer(f.ip) : f.from !== undefined ? `${peer(f.from)}→${peer(f.to)}` : "";
      return `${e.kind} ${where}`.trim();
    }
    default: {
      const rest = fieldText(f, ["ip"], 3);
      return rest === "" ? e.name : `${e.name} ${rest}`;
    }
  }
}

/** Periodic repeats folded into one band of a lane: how many, how often, of what. */
export interface Band {
  readonly lane: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly count: number;
  readonly periodMs: number;
  readonly label: string;
  /** The page indexes of the events it folds. */
  readonly members: readonly number[];
}

/** At least this many events in a row, at a steady interval, make a periodic repeat. */
const MIN_REPEATS = 4;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The periodic repeats among the events `fold` selects: events of one lane with the same name,
 * method and peer, at a steady interval (most within half to twice the median), cut where a gap
 * exceeds four intervals; the repeats of one lane that overlap in time become one band.
 */
export function foldRepeats(
  events: readonly PageEvent[],
  fold: (index: number) => boolean,
  methods: ReadonlyMap<number, string>,
): Band[] {
  const series = new Map<string, number[]>();
  for (const [i, e] of events.entries()) {
    if (!fold(i) || e.category === "failure") continue;
    const method = methods.get(i) ?? (typeof e.fields.method === "string" ? shortMethod(e.fields.method) : "");
    const key = `${e.lane}|${e.name}|${method}|${ipOf(e.fields.to ?? e.fields.from ?? e.fields.peer)}`;
    let list = series.get(key);
    if (list === undefined) series.set(key, (list = []));
    list.push(i);
  }
  interface Run {
    lane: number;
    fromMs: number;
    toMs: number;
    periodMs: number;
    what: string;
    members: number[];
  }
  const runs: Run[] = [];
  for (const members of series.values()) {
    if (members.length < MIN_REPEATS) continue;
    const times = members.map((i) => events[i]!.timeMs);
    const gaps = times.slice(1).map((t, k) => t - times[k]!);
    const period = median(gaps);
    if (period <= 0) continue;
    const steady = gaps.filter((g) => g >= period / 2 && g <= period * 2).length;
    if (steady < gaps.length * 0.6) continue;
    const first = events[members[0]!]!;
    // Named for the RPC method it carried when known, else for the event.
    const method =
      methods.get(members[0]!) ?? (typeof first.fields.method === "string" ? shortMethod(first.fields.method) : "");
    const what = method === "" ? first.name : method;
    let start = 0;
    for (let k = 1; k <= members.length; k++) {
      if (k < members.length && gaps[k - 1]! <= period * 4) continue;
      if (k - start >= MIN_REPEATS)
        runs.push({
          lane: first.lane,
          fromMs: times[start]!,
          toMs: times[k - 1]!,
          periodMs: period,
          what,
          members: members.slice(start, k),
        });
      start = k;
    }
  }
  runs.sort((a, b) => a.lane - b.lane || a.fromMs - b.fromMs);
  const bands: Band[] = [];
  let open: Run | null = null;
  let whats: Map<string, number> = new Map();
  const close = () => {
    if (open === null) return;
    const names = [...whats.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
    const shown = names.slice(0, 3).join(", ") + (names.length > 3 ? ", …" : "");
    const count = open.members.length;
    bands.push({
      lane: open.lane,
      fromMs: open.fromMs,
      toMs: open.toMs,
      count,
      periodMs: open.periodMs,
      label: `${shown}: ${count.toLocaleString("en")} events, every ~${formatPeriod(open.periodMs)}`,
      members: open.members.sort((a, b) => a - b),
    });
  };
  for (const run of runs) {
    if (open !== null && open.lane === run.lane && run.fromMs <= open.toMs) {
      open.toMs = Math.max(open.toMs, run.toMs);
      open.periodMs = Math.min(open.periodMs, run.periodMs);
      open.members.push(...run.members);
    } else {
      close();
      open = { ...run, members: [...run.members] };
      whats = new Map();
    }
    whats.set(run.what, (whats.get(run.what) ?? 0) + run.members.length);
  }
  close();
  return bands;
}

function formatPeriod(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`;
}
