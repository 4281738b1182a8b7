/**
 * `checkDeterminism()`: every seed runs twice, each sim draw recorded with who drew it, when and
 * at which step. The first draw where the runs disagree is the divergence; two more runs capture
 * the JavaScript stack of that draw in each, so the report shows the line of code that diverged.
 * When the draws agree but the traces do not, the first differing trace event is reported.
 * Given an earlier run's report, it first compares the Node and V8 versions that report was made
 * with, then each seed's trace hash with the recorded one.
 */
import { DeterminismViolation } from "@moonpool/core";
import type { TraceEvent } from "../world/trace-log.ts";
import { Campaign } from "./campaign.ts";
import type { SimulationConfig } from "./config.ts";
import type { RuntimeVersions } from "./report.ts";
import type { SeedSession } from "./seed-runner.ts";

/** Trace events shown on each side of a divergence. */
export const DIVERGENCE_CONTEXT_EVENTS = 5;

export interface DrawSite {
  readonly actor: string;
  readonly timeMs: number;
  readonly step: number;
  /** JavaScript stack of the draw (captured on the confirmation runs). */
  readonly stack?: string;
}

export interface SeedDivergence {
  readonly seed: number;
  /** Absolute index of the first diverging sim draw, or null when only the traces differ. */
  readonly drawIndex: number | null;
  readonly first: DrawSite | null;
  readonly second: DrawSite | null;
  readonly drawsFirst: number;
  readonly drawsSecond: number;
  readonly traceHashFirst: string;
  readonly traceHashSecond: string;
  /** Formatted trace events around the divergence, from each run. */
  readonly traceFirst: readonly string[];
  readonly traceSecond: readonly string[];
}

/** What `checkDeterminism({ against })` needs of an earlier run: a `SimulationReport` has it. */
export interface RecordedRun {
  readonly runtime: RuntimeVersions;
  readonly seeds: readonly { readonly seed: number; readonly traceHash: string }[];
}

export interface DeterminismOptions {
  /**
   * An earlier run to compare with (e.g. the report of `run()`, or `SimulationReport.fromJSON()`
   * of a JSON report's entry): its seeds are checked, and each must hash as it did then.
   */
  readonly against?: RecordedRun;
}

/** A seed whose trace hash differs from the one an earlier run recorded. */
export interface RecordedHashMismatch {
  readonly seed: number;
  readonly recordedHash: string;
  readonly traceHash: string;
}

export interface DeterminismReport {
  readonly seedsChecked: number;
  /** Both runs of every seed agree, and agree with the earlier run's hashes when one was given. */
  readonly deterministic: boolean;
  readonly divergences: readonly SeedDivergence[];
  readonly recordedMismatches: readonly RecordedHashMismatch[];
  /** E.g. the earlier run was made with another Node or V8 (also emitted as a process warning). */
  readonly warnings: readonly string[];
  /** The first divergence as a throwable error (null when deterministic). */
  readonly violation: DeterminismViolation | null;
}

interface Recording {
  readonly actors: string[];
  readonly times: number[];
  readonly steps: number[];
  trace: readonly TraceEvent[];
  traceHash: string;
  stackAt: string | undefined;
}

function cleanStack(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  // Drop the frames of the recorder and the random stream: the user's line is what matters.
  return stack
    .split("\n")
    .slice(1)
    .filter((line) => !/engine[\\/]rng\.ts|runner[\\/]determinism\.ts|world[\\/]random\.ts/.test(line))
    .join("\n");
}

async function record(config: SimulationConfig, seed: number, stackAtIndex: number | null): Promise<Recording> {
  const rec: Recording = { actors: [], times: [], steps: [], trace: [], traceHash: "", stackAt: undefined };
  let session: SeedSession | null = null;
  const report = await new Campaign({ ...config, exploration: null }).run({
    seeds: [seed],
    drawObserver: (s) => {
      session = s;
      const engine = s.world.engine;
      return () => {
        const index = rec.actors.length;
        if (index === stackAtIndex) rec.stackAt = cleanStack(new Error("draw").stack);
        rec.actors.push(engine.currentActor);
        rec.times.push(engine.nowUs);
        rec.steps.push(engine.steps);
      };
    },
  });
  rec.traceHash = report.seeds[0]!.traceHash;
  rec.trace = (session as SeedSession | null)?.world.trace.all ?? [];
  return rec;
}

function firstDrawDifference(a: Recording, b: Recording): number | null {
  const n = Math.min(a.actors.length, b.actors.length);
  for (let i = 0; i < n; i++) {
    if (a.actors[i] !== b.actors[i] || a.times[i] !== b.times[i] || a.steps[i] !== b.steps[i]) return i;
  }
  return a.actors.length !== b.actors.length ? n : null;
}

function firstTraceDifference(a: readonly TraceEvent[], b: readonly TraceEvent[]): number | null {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i]!.format() !== b[i]!.format()) return i;
  return a.length !== b.length ? n : null;
}

function around(trace: readonly TraceEvent[], centre: number): string[] {
  const from = Math.max(0, centre - DIVERGENCE_CONTEXT_EVENTS);
  return trace
    .slice(from, centre + DIVERGENCE_CONTEXT_EVENTS + 1)
    .map((e) => `${e.seq === centre ? ">" : " "} ${e.format()}`);
}

/** Index of the last trace event at or before `timeUs` (for context around a draw). */
function traceIndexAt(trace: readonly TraceEvent[], timeUs: number | undefined): number {
  if (timeUs === undefined) return trace.length - 1;
  let index = 0;
  for (const e of trace) if (e.timeMs * 1000 <= timeUs) index = e.seq;
  return index;
}

function site(rec: Recording, i: number): DrawSite | null {
  if (i >= rec.actors.length) return null;
  return { actor: rec.actors[i]!, timeMs: rec.times[i]! / 1000, step: rec.steps[i]!, stack: rec.stackAt };
}

function describe(d: SeedDivergence): string {
  const side = (label: string, s: DrawSite | null) =>
    s === null
      ? `  ${label}: no draw (the run made fewer draws)`
      : `  ${label}: draw by ${s.actor} at ${s.timeMs.toFixed(3)} ms, step ${s.step}${
          s.stack
            ? `\n${s.stack
                .split("\n")
                .slice(0, 6)
                .map((l) => `      ${l.trim()}`)
                .join("\n")}`
            : ""
        }`;
  const head =
    d.drawIndex !== null
      ? `seed ${d.seed} is not deterministic: the runs diverge at sim draw #${d.drawIndex} (${d.drawsFirst} vs ${d.drawsSecond} draws in total)`
      : `seed ${d.seed} is not deterministic: the same draws but different traces (hash ${d.traceHashFirst} vs ${d.traceHashSecond})`;
  return [
    head,
    side("run 1", d.first),
    side("run 2", d.second),
    "  trace around it, run 1:",
    ...d.traceFirst.map((l) => `    ${l}`),
    "  trace around it, run 2:",
    ...d.traceSecond.map((l) => `    ${l}`),
    "Look for Math.random, Date, real timers or I/O, unordered iteration or state shared between seeds on that path.",
  ].join("\n");
}

/**
 * Seeds replay across Node versions only as far as V8 computes the same floating-point results:
 * library functions (Math.pow, Math.exp, ...) may differ in the last bit between releases.
 */
export function versionMismatchWarning(recorded: RuntimeVersions, what = "the report"): string | null {
  const { node, v8 } = recorded;
  const here = process.versions;
  if (node === here.node && v8 === here.v8) return null;
  return (
    `${what} was written by Node ${node} (V8 ${v8}), this is Node ${here.node} (V8 ${here.v8}). ` +
    "Simulations that compute with floating-point library functions (Math.pow, Math.exp, Math.sin, ...) " +
    "may take other decisions on another V8, and the replay may not reproduce the failure: " +
    `if it passes, replay with Node ${node}`
  );
}

function describeRecorded(m: RecordedHashMismatch, runtime: RuntimeVersions, warning: string | null): string {
  return [
    `seed ${m.seed} is not deterministic across runs: the earlier run (Node ${runtime.node}) recorded trace hash ` +
      `${m.recordedHash}, this run hashes ${m.traceHash} (twice).`,
    warning !== null
      ? `  The versions differ: ${warning}`
      : "  The same Node and V8: look for state that outlives a seed, module-load-time randomness, " +
        "or a changed simulation.",
  ].join("\n");
}

export async function checkDeterminism(
  config: SimulationConfig,
  seeds: readonly number[],
  options: DeterminismOptions = {},
): Promise<DeterminismReport> {
  const against = options.against;
  const warnings: string[] = [];
  // Versions first: a hash that differs on another V8 may be floating point, not the simulation.
  const warning = against === undefined ? null : versionMismatchWarning(against.runtime, "the earlier run");
  if (warning !== null) {
    warnings.push(warning);
    process.emitWarning(warning, { type: "MoonpoolWarning", code: "MOONPOOL_RUNTIME_MISMATCH" });
  }
  const recorded = new Map(against?.seeds.map((s) => [s.seed, s.traceHash]));
  const checked = against === undefined ? seeds : [...recorded.keys()];
  const divergences: SeedDivergence[] = [];
  const recordedMismatches: RecordedHashMismatch[] = [];
  for (const seed of checked) {
    const a = await record(config, seed, null);
    const b = await record(config, seed, null);
    const recordedHash = recorded.get(seed);
    if (recordedHash !== undefined && a.traceHash === b.traceHash && a.traceHash !== recordedHash) {
      recordedMismatches.push({ seed, recordedHash, traceHash: a.traceHash });
    }
    const drawIndex = firstDrawDifference(a, b);
    if (drawIndex === null && a.traceHash === b.traceHash) continue;
    let first: DrawSite | null = null;
    let second: DrawSite | null = null;
    let traceFirst: string[];
    let traceSecond: string[];
    if (drawIndex !== null) {
      // Two more runs, capturing the stack of the diverging draw in each.
      const c = await record(config, seed, drawIndex);
      const d = await record(config, seed, drawIndex);
      first = site({ ...a, stackAt: c.stackAt }, drawIndex);
      second = site({ ...b, stackAt: d.stackAt }, drawIndex);
      traceFirst = around(a.trace, traceIndexAt(a.trace, a.times[drawIndex]));
      traceSecond = around(b.trace, traceIndexAt(b.trace, b.times[drawIndex]));
    } else {
      const at = firstTraceDifference(a.trace, b.trace) ?? 0;
      traceFirst = around(a.trace, at);
      traceSecond = around(b.trace, at);
    }
    divergences.push({
      seed,
      drawIndex,
      first,
      second,
      drawsFirst: a.actors.length,
      drawsSecond: b.actors.length,
      traceHashFirst: a.traceHash,
      traceHashSecond: b.traceHash,
      traceFirst,
      traceSecond,
    });
  }
  const mismatch = recordedMismatches[0];
  const violation =
    divergences.length > 0
      ? new DeterminismViolation(describe(divergences[0]!), divergences[0])
      : mismatch !== undefined
        ? new DeterminismViolation(describeRecorded(mismatch, against!.runtime, warning), mismatch)
        : null;
  return {
    seedsChecked: checked.length,
    deterministic: violation === null,
    divergences,
    recordedMismatches,
    warnings,
    violation,
  };
}
