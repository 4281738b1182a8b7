/**
 * The timeline page's data as the browser reads it: what timeline-data.ts writes (events packed
 * into rows by `packTimelineEvents`), declared here so the browser code needs no Node types.
 */

export type Category = "message" | "process" | "partition" | "fault" | "failure" | "fact" | "console";
export type FieldValue = string | number | boolean;

export interface PageEvent {
  readonly seq: number;
  readonly timeMs: number;
  readonly lane: number;
  readonly level: string;
  readonly name: string;
  readonly kind: string;
  readonly category: Category;
  readonly fields: Readonly<Record<string, FieldValue>>;
}

export interface PageLane {
  readonly id: string;
  readonly label: string;
  readonly group: string;
}

export interface PageArrow {
  readonly fromLane: number;
  readonly toLane: number;
  readonly fromTimeMs: number;
  readonly toTimeMs: number;
  readonly seq: number;
  readonly label: string;
  readonly delivered: boolean;
}

export interface PageFailure {
  readonly kind: string;
  readonly message: string;
  readonly actor?: string;
  readonly timeMs: number;
}

export interface DoomCutPoint {
  readonly atUs: number;
  readonly runs: number;
  readonly failures: number;
  readonly low: number;
  readonly high: number;
}

export interface PageDoom {
  readonly cutPoints: readonly DoomCutPoint[];
  readonly savedUntilUs: number;
  readonly doomedFromUs: number;
}

type PackedRow = readonly [number, number, number, number, number, number, number, PageEvent["fields"]];

export interface PageData {
  readonly simulation: string;
  readonly seed: number;
  readonly recipe: string;
  readonly ok: boolean;
  readonly simulatedTimeMs: number;
  readonly traceHash: string;
  readonly replayCommand: string;
  readonly failures: readonly PageFailure[];
  readonly lanes: readonly PageLane[];
  readonly arrows: readonly PageArrow[];
  readonly failure: { readonly timeMs: number; readonly lane: number; readonly message: string } | null;
  readonly slice?: readonly number[] | null;
  readonly doom?: PageDoom;
  readonly packedEvents: { readonly strings: readonly string[]; readonly rows: readonly PackedRow[] };
}

/** The events of the page, unpacked (the inverse of `packTimelineEvents`). */
export function unpackEvents(data: PageData): PageEvent[] {
  const s = data.packedEvents.strings;
  return data.packedEvents.rows.map(([seq, timeMs, lane, level, name, kind, category, fields]) => ({
    seq,
    timeMs,
    lane,
    level: s[level]!,
    name: s[name]!,
    kind: s[kind]!,
    category: s[category]! as Category,
    fields,
  }));
}
