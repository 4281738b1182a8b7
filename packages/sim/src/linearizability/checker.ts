/**
 * The linearizability checker: splits a history into independent parts (P-compositionality),
 * searches the parts in interleaved slices so an easy illegal part is reported even while a hard
 * part is still running, and gives up as "unknown" at a time or step budget, never with a guess.
 */
import { wallNowMs } from "../engine/natives.ts";
import { renumber, type History, type OpInput, type Operation } from "./history.ts";
import { searchModel, type Model } from "./model.ts";
import { PartSearch, type LongestLinearization, type PartStatus } from "./search.ts";

export type Verdict = "linearizable" | "illegal" | "unknown";

export interface CheckOptions {
  /**
   * Wall-clock budget. Inside a simulated seed prefer `maxSteps`: a wall-clock limit makes the
   * verdict depend on the machine, and so would the seed's outcome.
   */
  readonly timeoutMs?: number;
  /** Budget of search steps over all parts (deterministic). */
  readonly maxSteps?: number;
  /** Search steps a part runs before the next part gets its turn; default 2,000. */
  readonly sliceSteps?: number;
}

export interface PartResult<I = OpInput, O = unknown> {
  readonly index: number;
  readonly verdict: Verdict;
  readonly operations: readonly Operation<I, O>[];
  readonly steps: number;
  /** For an illegal (or unfinished) part: the longest linearized prefix found. */
  readonly longest?: LongestLinearization;
}

export interface CheckResult<I = OpInput, O = unknown> {
  readonly verdict: Verdict;
  readonly model: string;
  readonly parts: readonly PartResult<I, O>[];
  /** The first illegal part found, when the verdict is illegal. */
  readonly illegalPart?: number;
  readonly operations: number;
  readonly steps: number;
  readonly elapsedMs: number;
  /** Why the search stopped early, when the verdict is unknown. */
  readonly stoppedBy?: "timeout" | "steps";
}

export class CheckOptionsError extends Error {
  override readonly name = "CheckOptionsError";
}

const DEFAULT_SLICE_STEPS = 2_000;

function positive(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
    throw new CheckOptionsError(`${name} must be a positive number, got ${String(value)}; omit it for no limit`);
  }
}

/** Checks whether some single-copy order of the operations explains every observed result. */
export function checkLinearizability<S, I, O>(
  model: Model<S, I, O>,
  history: History<I, O>,
  options: CheckOptions = {},
): CheckResult<I, O> {
  positive("timeoutMs", options.timeoutMs);
  positive("maxSteps", options.maxSteps);
  positive("sliceSteps", options.sliceSteps);
  const started = wallNowMs();
  const search = searchModel(model);
  const parts = (model.partition ? model.partition(history) : [history]).map((p) =>
    renumber(model.prune ? model.prune(p) : p),
  );
  const searches = parts.map((ops) => new PartSearch(search, ops));
  const slice = options.sliceSteps ?? DEFAULT_SLICE_STEPS;
  let steps = 0;
  let stoppedBy: CheckResult["stoppedBy"];
  let illegalPart: number | undefined;
  let pending = searches.filter((s) => s.status === "pending");
  // Both limits hold inside a slice too: a part's turn is cut at the step budget left and at the deadline.
  const deadlineMs = options.timeoutMs === undefined ? Infinity : started + options.timeoutMs;
  outer: while (pending.length > 0) {
    for (const s of pending) {
      const before = s.steps;
      const budget = options.maxSteps === undefined ? slice : Math.min(slice, options.maxSteps - steps);
      const status: PartStatus = s.run(budget, deadlineMs);
      steps += s.steps - before;
      if (status === "illegal") {
        illegalPart = searches.indexOf(s);
        break outer;
      }
      if (options.maxSteps !== undefined && steps >= options.maxSteps) {
        stoppedBy = "steps";
        break outer;
      }
      if (options.timeoutMs !== undefined && wallNowMs() >= deadlineMs) {
        stoppedBy = "timeout";
        break outer;
      }
    }
    pending = pending.filter((s) => s.status === "pending");
  }
  const partResults = searches.map((s, index): PartResult<I, O> => {
    const verdict: Verdict = s.status === "pending" ? "unknown" : s.status;
    return {
      index,
      verdict,
      operations: s.ops,
      steps: s.steps,
      ...(verdict !== "linearizable" && s.longest ? { longest: s.longest } : {}),
    };
  });
  const verdict: Verdict =
    illegalPart !== undefined
      ? "illegal"
      : partResults.every((p) => p.verdict === "linearizable")
        ? "linearizable"
        : "unknown";
  return {
    verdict,
    model: model.name,
    parts: partResults,
    ...(illegalPart !== undefined ? { illegalPart } : {}),
    operations: history.length,
    steps,
    elapsedMs: wallNowMs() - started,
    ...(verdict === "unknown" && stoppedBy ? { stoppedBy } : {}),
  };
}
