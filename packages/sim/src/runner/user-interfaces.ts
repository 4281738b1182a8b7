/**
 * What users implement: processes (the system under test), workloads (the drivers) and
 * invariants (global safety over the trace timeline).
 */
import type { NodeContext } from "@moonpool/core";
import type { TraceQuery } from "../world/trace-log.ts";
import type { MetricQuery } from "../world/metrics/query.ts";
import type { Topology } from "./topology.ts";
import type { StateBoard } from "./state-board.ts";
import type { ChaosWindowView } from "./seed-chaos.ts";

/** Everything simulated code receives. Processes and workloads each get their own. */
export interface SimContext extends NodeContext {
  /** Index of this actor within its group (processes) or among the workloads. */
  readonly clientId: number;
  /** Size of this actor's group (processes) or number of workloads. */
  readonly clientCount: number;
  readonly topology: Topology;
  /** A key/value board shared by every actor of one seed. */
  readonly state: StateBoard;
  /** Reads back every process's metrics of this seed, on simulated time. */
  readonly metricQuery: MetricQuery;
  /**
   * Attaches a named block of text (a graph, a table) to this seed's result: it goes into the
   * JSON report, and the text report prints the first failing seed's (else the first seed's).
   */
  attach(name: string, text: string): void;
  /** The chaos window: await its cutoff, read the recovery tail left (see `ChaosWindowView`). */
  readonly chaosWindow: ChaosWindowView;
  /**
   * A size of this run (operations, clients, polls): returns `n`, or less when a shrunk run
   * lowers it (`moonpool shrink`). Ask for every size the shrinker may lower through it, by a
   * stable name; the seed's result reports the values used (`SeedResult.sizes`).
   */
  size(name: string, n: number): number;
  /**
   * Reads this seed's trace timeline, with the query API invariants use: a workload's `check()`
   * validates what every actor traced (and the `sim_fault` events) after the processes stopped.
   */
  readonly traceQuery: TraceQuery;
}

/**
 * The server code under test. A fresh instance is created for every boot (and reboot): only
 * simulated storage survives. `run` should serve until `ctx.shutdown` aborts.
 */
export interface Process {
  readonly name: string;
  run(ctx: SimContext): Promise<void>;
}

/**
 * The test driver: issues operations, keeps a reference model, and validates. A fresh instance per
 * seed when registered through a factory. The first workload whose `run` returns triggers
 * shutdown for everyone.
 */
export interface Workload {
  readonly name: string;
  /** Runs before any workload's `run` (all setups run concurrently, then a barrier). */
  setup?(ctx: SimContext): Promise<void>;
  run(ctx: SimContext): Promise<void>;
  /** Runs after processes stopped and the world settled; validate retained state here. */
  check?(ctx: SimContext): Promise<void>;
}

/**
 * Global safety, checked after every simulation step. Read new facts through a cursor
 * (`query.since(name, cursor)`), keep observe cheap and read-only, and clear state in `reset`.
 */
export interface Invariant {
  readonly name: string;
  observe(query: TraceQuery, simTimeMs: number): void;
  /** Called before every seed. */
  reset?(): void;
}

/** How many workload instances a seed runs. */
export class WorkloadCount {
  private constructor(
    readonly min: number,
    readonly maxExclusive: number,
  ) {}

  static fixed(count: number): WorkloadCount {
    return new WorkloadCount(count, count + 1);
  }

  /** A count drawn per seed from `[lo, hi)` on the sim stream. */
  static random(lo: number, hi: number): WorkloadCount {
    return new WorkloadCount(lo, hi);
  }

  get isFixed(): boolean {
    return this.maxExclusive === this.min + 1;
  }

  describe(): string {
    return this.isFixed ? `fixed(${this.min})` : `random(${this.min}, ${this.maxExclusive})`;
  }
}

/** A fixed count, or `[min, max]` inclusive drawn per seed. */
export type ProcessCount = number | readonly [min: number, max: number];
