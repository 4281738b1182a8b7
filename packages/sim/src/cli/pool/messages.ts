/** What the main thread and the seed workers say to each other (structured-clone-safe data). */
import type { AssertionTableState } from "../../chaos/assertions.ts";
import type { SingleSeedOutcome } from "../../runner/campaign.ts";
import type { BuildOverrides } from "../build-simulation.ts";

/** Run one root seed of one simulation, in a table starting from `baseTable`. */
export interface SeedTask {
  /** Absolute path of the simulation file; the worker imports it (closures cannot cross threads). */
  readonly file: string;
  readonly name: string;
  readonly overrides: BuildOverrides;
  readonly seed: number;
  /** Null: an empty table (plain seeds); exploration rounds pass the table merged so far. */
  readonly baseTable: AssertionTableState | null;
}

export interface SeedTaskMessage extends SeedTask {
  readonly id: number;
}

export type WorkerReply =
  /** Sent once, when the worker has loaded the engine and listens for tasks (timeouts start after it). */
  | { readonly kind: "ready" }
  | { readonly id: number; readonly kind: "done"; readonly outcome: SingleSeedOutcome }
  /** The task could not run (the file did not load, build() threw, an internal error). */
  | { readonly id: number; readonly kind: "error"; readonly message: string; readonly stack?: string };

/** What `SeedPool.run` resolves to (it never rejects). */
export type TaskOutcome =
  | { readonly kind: "done"; readonly outcome: SingleSeedOutcome }
  | { readonly kind: "error"; readonly message: string; readonly stack?: string }
  /** The task ran past its wall-clock limit; its worker was terminated and replaced. */
  | { readonly kind: "timeout"; readonly wallTimeMs: number }
  /** Cancelled before it finished (the campaign stopped, or the pool closed). */
  | { readonly kind: "cancelled" };
