/**
 * The data of a timeline page: one lane per actor (grouped by role, machine, zone when the trace
 * names them), each trace event placed on a lane and classified for drawing, and message arrows.
 *
 * An event is a message when its fields name a peer (`to`, an IP) and carry `bytes`, or when it is
 * a network fault with `from`/`to`. Sends and receives (event names containing `recv`, `receive`
 * or `deliver`) pair up first-in first-out per connection, so an arrow runs from the send's time
 * on the sender's lane to the receive's time on the receiver's lane.
 */
import type { TraceFields, TraceValue } from "@moonpool/core";
import { causalSlice, failureIndex } from "../../../runner/causal-slice.ts";
import type { DoomCurve } from "../../../runner/doom.ts";
import type { SeedFailure } from "../../../runner/seed-result.ts";
import { SIM_FAULT_EVENT_NAME, type TraceEvent } from "../../../world/trace-log.ts";

/** How the page draws an event (and the kinds its filter offers). */
export type TimelineCategory = "message" | "process" | "partition" | "fault" | "failure" | "fact" | "console";

export interface TimelineLane {
  readonly id: string;
  /** `node-1@10.0.1.2`, or the actor name when it has no IP. */
  readonly label: string;
  /** `role`, then `machine`/`zone` when the trace says so (lanes of one group are drawn together). */
  readonly group: string;
}

export interface TimelineEvent {
  readonly seq: number;
  readonly timeMs: number;
  readonly lane: number;
  readonly level: string;
  readonly name: string;
  /** For sim faults, their `kind` (`process_crash`, `partition_created`, ...); else the name. */
  readonly kind: string;
  readonly category: TimelineCategory;
  readonly fields: Readonly<Record<string, string | number | boolean>>;
}

export interface TimelineArrow {
  readonly fromLane: number;
  readonly toLane: number;
  readonly fromTimeMs: number;
  readonly toTimeMs: number;
  /** The send (or fault) event it was drawn from. */
  readonly seq: number;
  readonly label: string;
  /** Whether a matching receive was found (otherwise it is drawn at the send's instant). */
  readonly delivered: boolean;
}

/** The replayed timeline the page is about: what both the input and the page data carry. */
interface TimelineSeed {
  readonly simulation: string;
  readonly seed: number;
  readonly recipe: string;
  readonly ok: boolean;
  readonly simulatedTimeMs: number;
  readonly traceHash: string;
  readonly replayCommand: string;
  readonly failures: readonly SeedFailure[];
}

export interface TimelineData extends TimelineSeed {
  readonly lanes: readonly TimelineLane[];
  readonly events: readonly TimelineEvent[];
  readonly arrows: readonly TimelineArrow[];
  /** Where the first failure is drawn (lane -1: no lane named it). */
  readonly failure: { readonly timeMs: number; readonly lane: number; readonly message: string } | null;
  /** The `seq`s of the first failure's causal slice (runner/causal-slice.ts), ascending; null without a failure. */
  readonly slice: readonly number[] | null;
  /** The point of no return, when the page is written by `moonpool explain --html` (absent otherwise). */
  readonly doom?: DoomCurve;
}

export interface TimelineInput extends TimelineSeed {
  readonly events: readonly TraceEvent[];
}

const PROCESS_KINDS = new Set([
  "process_started",
  "process_crash",
  "process_restart",
  "process_force_kill",
  "process_graceful_shutdown",
  "storage_crash",
  "storage_wipe",
]);
const PARTITION_KIND = /partition/;
const RECEIVE_NAME = /recv|receive|deliver/i;
const IP = /^\d{1,3}(\.\d{1,3}){3}$/;

/** The IP of an `ip` or `ip:port` field, or null. */
function ipOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const ip = value.replace(/:\d+$/, "");
  return IP.test(ip) ? ip : null;
}

function plainValue(v: TraceValue): string | number | boolean {
  if (typeof v === "bigint") return v.toString();
  if (v === null || v === undefined) return String(v);
  return v as string | number | boolean;
}

function plainFields(fields: TraceFields): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = plainValue(v);
  return out;
}

function roleOf(name: string): string {
  return name.replace(/[-_]?\d+$/, "") || name;
}

class LaneTable {
  readonly lanes: { id: string; label: string; role: string; machine: string | null; zone: string | null }[] = [];
  private readonly byKey = new Map<string, number>();

  /** The lane of an actor (`node-1@10.0.1.2` is keyed by its IP, so faults naming the IP land there). */
  forSource(source: string): number {
    const at = source.indexOf("@");
    if (at < 0) return this.lane(source, source, roleOf(source));
    const name = source.slice(0, at);
    const ip = source.slice(at + 1);
    const existing = this.byKey.get(ip);
    if (existing !== undefined) {
      const lane = this.lanes[existing]!;
      // A lane first seen through a fault's IP gets its actor name when the actor shows up.
      if (lane.label === ip) {
        lane.label = source;
        lane.role = roleOf(name);
      }
      return existing;
    }
    return this.lane(ip, source, roleOf(name));
  }

  forIp(ip: string): number {
    return this.byKey.get(ip) ?? this.lane(ip, ip, "other addresses");
  }

  private lane(key: string, label: string, role: string): number {
    const existing = this.byKey.get(key);
    if (existing !== undefined) return existing;
    this.lanes.push({ id: key, label, role, machine: null, zone: null });
    this.byKey.set(key, this.lanes.length - 1);
    return this.lanes.length - 1;
  }
}

function categorise(event: TraceEvent, kind: string, fields: Record<string, unknown>): TimelineCategory {
  if (event.name === "seed_failure" || event.level === "error") return "failure";
  if (PROCESS_KINDS.has(kind)) return "process";
  if (PARTITION_KIND.test(kind)) return "partition";
  if (event.name === SIM_FAULT_EVENT_NAME) return "fault";
  if (event.name === "console") return "console";
  if ((ipOf(fields.to) !== null || ipOf(fields.from) !== null) && fields.bytes !== undefined) return "message";
  return "fact";
}

/** Sorts lanes so each group's lanes are adjacent (groups in first-seen order, lanes by name); renumbers events. */
function groupLanes(table: LaneTable, events: TimelineEvent[], arrows: TimelineArrow[]) {
  const groupName = (l: LaneTable["lanes"][number]) =>
    [l.role, l.zone === null ? null : `zone ${l.zone}`, l.machine === null ? null : `machine ${l.machine}`]
      .filter((p) => p !== null)
      .join(" · ");
  const groups: string[] = [];
  for (const lane of table.lanes) if (!groups.includes(groupName(lane))) groups.push(groupName(lane));
  const order = table.lanes
    .map((lane, i) => ({ lane, i, g: groups.indexOf(groupName(lane)) }))
    .sort((a, b) => a.g - b.g || a.lane.label.localeCompare(b.lane.label, "en", { numeric: true }) || a.i - b.i);
  const renumber = new Map(order.map((o, newIndex) => [o.i, newIndex]));
  const lanes = order.map((o) => ({ id: o.lane.id, label: o.lane.label, group: groupName(o.lane) }));
  return {
    lanes,
    events: events.map((e) => ({ ...e, lane: renumber.get(e.lane)! })),
    arrows: arrows.map((a) => ({ ...a, fromLane: renumber.get(a.fromLane)!, toLane: renumber.get(a.toLane)! })),
  };
}

export function buildTimelineData(input: TimelineInput): TimelineData {
  const table = new LaneTable();
  const events: TimelineEvent[] = [];
  const arrows: TimelineArrow[] = [];
  // Sends waiting for their receive, per connection and direction.
  const inFlight = new Map<string, { arrow: number }[]>();
  // Events are numbered by their place in this list: events kept below the simulation's trace level
  // (debug messages in a replay) have no place in the hashed trace.
  for (const [seq, event] of input.events.entries()) {
    const fields = plainFields(event.fields);
    const kind = event.name === SIM_FAULT_EVENT_NAME && typeof fields.kind === "string" ? fields.kind : event.name;
    const category = categorise(event, kind, fields);
    const from = ipOf(fields.from);
    const to = ipOf(fields.to);
    let lane: number;
    if (event.source === "sim") lane = table.forIp(typeof fields.ip === "string" ? fields.ip : (from ?? "sim"));
    else if (event.source === "runner" && category === "failure") {
      const actor = input.failures[0]?.actor;
      lane = actor !== undefined ? table.forSource(actor) : table.forSource("runner");
    } else lane = table.forSource(event.source);
    const laneInfo = table.lanes[lane]!;
    if (typeof fields.machine === "string") laneInfo.machine = fields.machine;
    if (typeof fields.zone === "string") laneInfo.zone = fields.zone;
    if (typeof fields.role === "string") laneInfo.role = fields.role;
    events.push({
      seq,
      timeMs: event.timeMs,
      lane,
      level: event.level,
      name: event.name,
      kind,
      category,
      fields,
    });

    if (category === "message" && (to !== null || from !== null)) {
      // A send names its peer in `to`, a receive in `from` (the simulator's net_send / net_recv).
      const sender = from ?? table.lanes[lane]!.id;
      const receiver = to ?? table.lanes[lane]!.id;
      const key = `${String(fields.connection ?? fields.connectionId ?? "")}|${sender}>${receiver}`;
      if (RECEIVE_NAME.test(event.name)) {
        // The receive event is on the receiver's lane; its send (if seen) becomes a delivered arrow.
        const pending = inFlight.get(key);
        const match = pending?.shift();
        if (match !== undefined)
          arrows[match.arrow] = { ...arrows[match.arrow]!, toTimeMs: event.timeMs, delivered: true };
        else
          arrows.push({
            fromLane: table.forIp(sender),
            toLane: lane,
            fromTimeMs: event.timeMs,
            toTimeMs: event.timeMs,
            seq,
            label: event.name,
            delivered: true,
          });
      } else {
        arrows.push({
          fromLane: lane,
          toLane: table.forIp(receiver),
          fromTimeMs: event.timeMs,
          toTimeMs: event.timeMs,
          seq,
          label: event.name,
          delivered: false,
        });
        let list = inFlight.get(key);
        if (list === undefined) inFlight.set(key, (list = []));
        list.push({ arrow: arrows.length - 1 });
      }
    } else if (category === "fault" && from !== null && to !== null && from !== to) {
      // Faults on a connection (partial write, bit flip, close, clog) touch both ends.
      arrows.push({
        fromLane: table.forIp(from),
        toLane: table.forIp(to),
        fromTimeMs: event.timeMs,
        toTimeMs: event.timeMs,
        seq,
        label: kind,
        delivered: false,
      });
    }
  }
  const grouped = groupLanes(table, events, arrows);
  const first = input.failures[0];
  let failure: TimelineData["failure"] = null;
  if (first !== undefined) {
    const failureEvent = grouped.events.find((e) => e.category === "failure");
    const lane =
      failureEvent?.lane ?? (first.actor !== undefined ? grouped.lanes.findIndex((l) => l.label === first.actor) : -1);
    failure = { timeMs: first.timeMs, lane, message: `[${first.kind}] ${first.message}` };
  }
  // Page seqs are indexes into the input events, as the slice's are.
  const slice = causalSlice(input.events, failureIndex(input.events), first?.actor);
  return {
    simulation: input.simulation,
    seed: input.seed,
    recipe: input.recipe,
    ok: input.ok,
    simulatedTimeMs: input.simulatedTimeMs,
    traceHash: input.traceHash,
    replayCommand: input.replayCommand,
    failures: input.failures.map((f) => ({ ...f })),
    lanes: grouped.lanes,
    events: grouped.events,
    arrows: grouped.arrows,
    failure,
    slice: slice === null ? null : slice.indexes,
  };
}

/**
 * The page's form of the events: repeated strings (levels, names, kinds, categories) as indexes
 * into tables and each event as a row, about a third smaller than objects for a large timeline.
 * `unpackTimelineEvents` (and the page's script) turn it back.
 */
export interface PackedEvents {
  readonly strings: readonly string[];
  /** `[seq, timeMs, lane, level, name, kind, category, fields]`, the strings as indexes into `strings`. */
  readonly rows: readonly (readonly [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    TimelineEvent["fields"],
  ])[];
}

export function packTimelineEvents(events: readonly TimelineEvent[]): PackedEvents {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const id = (text: string) => {
    let i = index.get(text);
    if (i === undefined) {
      i = strings.push(text) - 1;
      index.set(text, i);
    }
    return i;
  };
  const rows = events.map(
    (e) => [e.seq, e.timeMs, e.lane, id(e.level), id(e.name), id(e.kind), id(e.category), e.fields] as const,
  );
  return { strings, rows };
}

export function unpackTimelineEvents(packed: PackedEvents): TimelineEvent[] {
  const s = packed.strings;
  return packed.rows.map(([seq, timeMs, lane, level, name, kind, category, fields]) => ({
    seq,
    timeMs,
    lane,
    level: s[level]!,
    name: s[name]!,
    kind: s[kind]!,
    category: s[category]! as TimelineCategory,
    fields,
  }));
}
