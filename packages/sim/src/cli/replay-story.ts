/**
 * What `moonpool replay` prints: the timeline as a story. Application events, process lifecycle
 * and partitions are shown; the high-volume injected faults (partial reads and writes, bit flips,
 * delayed sleeps, storage faults) are folded into one count line per run of them unless asked
 * for; the failure is marked and always shown (even with `--actor`); the story stops a moment
 * after the failure unless asked to go on. After it, the failure's causal slice: the events of its
 * happens-before past, at every level (messages included), the same events the timeline page's
 * story view draws.
 */
import { TRACE_LEVEL_ORDER, type TraceLevel } from "@moonpool/core";
import { PROCESS_FAULT_KINDS } from "../chaos/reboot-kinds.ts";
import { NETWORK_FAULT_KINDS } from "../world/network/config.ts";
import { STORAGE_FAULT_KINDS } from "../world/storage/faults.ts";
import { SIM_FAULT_EVENT_NAME, type TraceEvent } from "../world/trace-log.ts";
import { causalSlice, FAILURE_EVENT_NAME, failureIndex } from "../runner/causal-slice.ts";

/** The runner's event marking a seed failure (see seed-runner.ts). */
export const SEED_FAILURE_EVENT_NAME = FAILURE_EVENT_NAME;

/** Simulated time shown after the first failure when the story stops there. */
export const AFTER_FAILURE_MS = 100;

/** Faults that change who is up or who can talk: part of the story, never folded. */
const STORY_FAULT_KINDS: ReadonlySet<string> = new Set([
  ...Object.values(PROCESS_FAULT_KINDS),
  NETWORK_FAULT_KINDS.partitionCreated,
  NETWORK_FAULT_KINDS.partitionHealed,
  NETWORK_FAULT_KINDS.sendPartitionCreated,
  NETWORK_FAULT_KINDS.sendPartitionHealed,
  NETWORK_FAULT_KINDS.recvPartitionCreated,
  NETWORK_FAULT_KINDS.recvPartitionHealed,
  STORAGE_FAULT_KINDS.crash,
  STORAGE_FAULT_KINDS.wipe,
]);

export interface StoryOptions {
  readonly minLevel: TraceLevel;
  /** Actor filters (`node-1` or `node-1@10.0.1.1`); empty: every actor. */
  readonly actors: readonly string[];
  /** Print every injected fault instead of folding them. */
  readonly faults: boolean;
  /** Go on to the end of the run instead of stopping shortly after the first failure. */
  readonly full: boolean;
}

export type StoryLine =
  | { readonly kind: "event"; readonly event: TraceEvent; readonly failure: boolean }
  | { readonly kind: "folded"; readonly text: string };

export interface Story {
  readonly lines: readonly StoryLine[];
  /** Events printed (folded faults not counted). */
  readonly shown: number;
  readonly folded: number;
  /** Events after the point where the story stopped (0 with `full` or without a failure). */
  readonly cut: number;
}

/** `--actor node-1` matches `node-1@10.0.1.1` (the name before `@`) as well as the full actor. */
export function actorMatches(source: string, filters: readonly string[]): boolean {
  if (filters.length === 0) return true;
  const name = source.split("@")[0]!;
  return filters.some((f) => f === source || f === name);
}

function isFoldable(event: TraceEvent): boolean {
  return event.name === SIM_FAULT_EVENT_NAME && !STORY_FAULT_KINDS.has(event.str("kind") ?? "");
}

/** Whether a fault event concerns one of the filtered actors (its `ip`, `from` or `to`). */
function faultConcerns(event: TraceEvent, actors: readonly string[], ipsOfActors: ReadonlySet<string>): boolean {
  if (actors.length === 0) return true;
  return ["ip", "from", "to"].some((key) => {
    const ip = event.str(key);
    return ip !== undefined && ipsOfActors.has(ip);
  });
}

export function buildStory(events: readonly TraceEvent[], options: StoryOptions): Story {
  const failureAt = events.findIndex((e) => e.name === SEED_FAILURE_EVENT_NAME);
  let end = events.length;
  if (failureAt >= 0 && !options.full) {
    const untilMs = events[failureAt]!.timeMs + AFTER_FAILURE_MS;
    end = failureAt + 1;
    while (end < events.length && events[end]!.timeMs <= untilMs) end++;
  }
  // Actors are `name@ip`: faults name IPs, so `--actor` keeps the faults of the actor's IP.
  const ipsOfActors = new Set(
    events
      .filter((e) => options.actors.length > 0 && actorMatches(e.source, options.actors) && e.source.includes("@"))
      .map((e) => e.source.split("@")[1]!),
  );
  const lines: StoryLine[] = [];
  let shown = 0;
  let folded = 0;
  let pending = new Map<string, number>();
  const flush = () => {
    if (pending.size === 0) return;
    const total = [...pending.values()].reduce((a, b) => a + b, 0);
    const kinds = [...pending.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`);
    lines.push({
      kind: "folded",
      text: `… ${total} injected fault${total === 1 ? "" : "s"} (${kinds.join(", ")}; --faults shows them)`,
    });
    pending = new Map();
  };
  for (let i = 0; i < end; i++) {
    const event = events[i]!;
    const failure = event.name === SEED_FAILURE_EVENT_NAME;
    if (!failure) {
      if (TRACE_LEVEL_ORDER[event.level] < TRACE_LEVEL_ORDER[options.minLevel]) continue;
      const isFault = event.name === SIM_FAULT_EVENT_NAME;
      if (isFault ? !faultConcerns(event, options.actors, ipsOfActors) : !actorMatches(event.source, options.actors))
        continue;
      if (!options.faults && isFoldable(event)) {
        const kind = event.str("kind") ?? "fault";
        pending.set(kind, (pending.get(kind) ?? 0) + 1);
        folded++;
        continue;
      }
    }
    flush();
    lines.push({ kind: "event", event, failure });
    shown++;
  }
  flush();
  return { lines, shown, folded, cut: events.length - end };
}

export interface SliceStory {
  /** The events of the failure's causal slice, in trace order (the failure last). */
  readonly events: readonly TraceEvent[];
  /** How many events the trace has, every level counted. */
  readonly of: number;
}

/** The causal slice of the first failure of `events` (every captured level), or null without a failure. */
export function buildSliceStory(events: readonly TraceEvent[], failureActor: string | undefined): SliceStory | null {
  const slice = causalSlice(events, failureIndex(events), failureActor);
  if (slice === null) return null;
  return { events: slice.indexes.map((i) => events[i]!), of: events.length };
}
