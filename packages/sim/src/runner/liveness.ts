/**
 * Liveness as its own verdict: "after the chaos window the system converges within T". A
 * property's `converged` predicate is checked after every step from the chaos window's end on;
 * once it holds, the property is met (a `liveness_converged` event says after how long). If it
 * has not held T ms after the window's end, the seed fails with kind "liveness", not as a safety
 * violation, and the failure carries how long it waited. A run phase that ends before the
 * deadline judges the property then, with the time it did wait.
 */
import { InvalidConfiguration } from "@moonpool/core";
import { msToUs } from "../engine/engine.ts";
import type { TraceQuery } from "../world/trace-log.ts";
import { EventTag, type World } from "../world/world.ts";
import type { SeedFailureKind } from "./seed-result.ts";

export interface LivenessProperty {
  /** Its identity in reports, like an assertion's message. */
  readonly name: string;
  /** Simulated ms after the chaos window's end within which `converged` must hold. */
  readonly withinMs: number;
  /** True once the system has converged; called after every step from the chaos window's end until it is. */
  converged(query: TraceQuery, simTimeMs: number): boolean;
  /** Called before every seed: clear per-seed state (a trace cursor) here. */
  reset?(): void;
}

export const LIVENESS_CONVERGED_EVENT = "liveness_converged";
export const LIVENESS_FAILURE_KIND: SeedFailureKind = "liveness";

/** Checks a property given to `builder.liveness(...)`; the message says what to give instead. */
export function checkLivenessProperty(property: unknown): LivenessProperty {
  const p = property as Partial<LivenessProperty> | null;
  const form = "liveness({ name, withinMs, converged(query, simTimeMs) })";
  if (p === null || typeof p !== "object") throw new InvalidConfiguration(`${form}: give an object, got ${String(p)}`);
  if (typeof p.name !== "string" || p.name.trim() === "")
    throw new InvalidConfiguration(`${form}: name must be a non-empty string (the property's identity in reports)`);
  if (typeof p.withinMs !== "number" || !(p.withinMs > 0) || !Number.isFinite(p.withinMs))
    throw new InvalidConfiguration(
      `${form}: withinMs of '${p.name}' must be a positive number of simulated ms after the chaos window's end, got ${String(p.withinMs)}`,
    );
  if (typeof p.converged !== "function")
    throw new InvalidConfiguration(
      `${form}: converged of '${p.name}' must be a function returning true once converged`,
    );
  if (p.reset !== undefined && typeof p.reset !== "function")
    throw new InvalidConfiguration(`${form}: reset of '${p.name}', when given, must be a function`);
  return p as LivenessProperty;
}

type Fail = (
  kind: SeedFailureKind,
  message: string,
  extra: { stack?: string; property?: string; waitedMs?: number },
) => void;

/** The liveness properties of one seed: started at the run phase, judged by the deadline or the run's end. */
export class LivenessWatch {
  private readonly pending: LivenessProperty[];
  private chaosEndUs: number | null = null;
  /** Owner of the deadline events: dead once the run phase is over. */
  private readonly owner = { actor: "runner", alive: true };

  constructor(
    private readonly world: World,
    properties: readonly LivenessProperty[],
    private readonly fail: Fail,
  ) {
    this.pending = properties.slice();
    for (const p of properties) p.reset?.();
  }

  /** The run phase starts; the chaos window ends `chaosDurationMs` later, and each deadline `withinMs` after that. */
  start(chaosDurationMs: number): void {
    const engine = this.world.engine;
    this.chaosEndUs = engine.nowUs + msToUs(chaosDurationMs);
    for (const p of this.pending) {
      const deadline = () => this.deadline(p);
      engine.schedule(msToUs(chaosDurationMs + p.withinMs), deadline, null, EventTag.runner, this.owner);
    }
  }

  /** After every step: a pending property whose predicate holds is met. */
  observe(query: TraceQuery, nowMs: number): void {
    if (this.pending.length === 0 || this.chaosEndUs === null || this.world.engine.nowUs < this.chaosEndUs) return;
    for (const p of this.pending.slice()) {
      let converged: boolean;
      try {
        converged = p.converged(query, nowMs) === true;
      } catch (error) {
        this.drop(p);
        const e = error instanceof Error ? error : new Error(String(error));
        this.fail("invariant", `liveness '${p.name}': converged() threw: ${e.message}`, {
          ...(e.stack !== undefined ? { stack: e.stack } : {}),
        });
        continue;
      }
      if (!converged) continue;
      this.drop(p);
      this.world.emit("runner", "info", LIVENESS_CONVERGED_EVENT, { property: p.name, waitedMs: this.waitedMs() });
    }
  }

  /** The run phase is over: a property still pending is judged on the time it had (when `judge`). */
  end(judge: boolean): void {
    this.owner.alive = false;
    // Nothing is judged after the run phase: settling and checks run with the processes stopped.
    const pending = this.pending.splice(0);
    if (!judge || this.chaosEndUs === null) return;
    for (const p of pending) {
      const waited = this.waitedMs();
      const before =
        this.world.engine.nowUs < this.chaosEndUs
          ? "the run phase ended before the chaos window did"
          : `the run phase ended ${waited} ms after the chaos window`;
      this.fail(
        LIVENESS_FAILURE_KIND,
        `liveness '${p.name}' did not converge: ${before} (of the ${p.withinMs} ms allowed). ` +
          `If the system needs longer, keep a workload running until the chaos window's end + ${p.withinMs} ms`,
        { property: p.name, waitedMs: waited },
      );
    }
  }

  private deadline(p: LivenessProperty): void {
    // A last look at the state the deadline's instant reached.
    this.observe(this.world.trace, this.world.nowMs);
    if (!this.pending.includes(p)) return;
    this.drop(p);
    this.fail(
      LIVENESS_FAILURE_KIND,
      `liveness '${p.name}' did not converge: waited ${p.withinMs} ms after the chaos window ended at ${(this.chaosEndUs ?? 0) / 1000} ms`,
      { property: p.name, waitedMs: p.withinMs },
    );
  }

  private waitedMs(): number {
    return Math.max(0, this.world.engine.nowUs - (this.chaosEndUs ?? 0)) / 1000;
  }

  private drop(p: LivenessProperty): void {
    this.pending.splice(this.pending.indexOf(p), 1);
  }
}
