/**
 * Explanations of a verdict in text: for an illegal (or unfinished) part, the longest partial
 * linearization the search found and the operation it could not place after it.
 */
import type { CheckResult, PartResult } from "./checker.ts";
import type { OpInput, Operation } from "./history.ts";
import type { Model } from "./model.ts";
import { describeOp } from "./models.ts";

function defaultDescribe(input: unknown, output: unknown): string {
  if (typeof (input as Partial<OpInput> | null)?.f === "string") return describeOp(input as OpInput, output);
  return `${JSON.stringify(input)} → ${output === undefined ? "?" : JSON.stringify(output)}`;
}

/** One line for an operation: client, what it did and got, and its place in the history. */
export function describeOperation<I, O>(model: Pick<Model<unknown, I, O>, "describe">, op: Operation<I, O>): string {
  let what = model.describe ? model.describe(op.input, op.output) : defaultDescribe(op.input, op.output);
  // A completed operation without a result (a write's acknowledgement) is not an unknown one.
  if (!op.crashed && op.output === undefined) what = what.replace(/→ \?$/, "→ ok");
  const span = op.crashed ? `from event ${op.callIndex}, crashed` : `events ${op.callIndex}–${op.returnIndex}`;
  return `${op.client}: ${what} (${span})`;
}

/** ` (key k)` for a part of a keyed history, so a reader knows which key broke. */
function partKey(part: PartResult<unknown, unknown>): string {
  const key = (part.operations[0]?.input as { key?: unknown } | undefined)?.key;
  return key === undefined ? "" : ` (key ${JSON.stringify(key)})`;
}

export function explainPart<I, O>(model: Model<unknown, I, O>, part: PartResult<I, O>): string[] {
  const lines: string[] = [];
  const longest = part.longest;
  if (longest === undefined) return lines;
  const ops = part.operations;
  lines.push(`longest linearization found: ${longest.order.length} of ${plural(ops.length, "operation")}`);
  const shown = longest.order.slice(-12);
  if (shown.length < longest.order.length) lines.push(`  … ${longest.order.length - shown.length} earlier operations`);
  shown.forEach((id, k) => {
    lines.push(`  ${longest.order.length - shown.length + k + 1}. ${describeOperation(model, ops[id]!)}`);
  });
  lines.push(`state after it: ${longest.stateAfter}`);
  const stuck = ops[longest.stuckOp]!;
  lines.push(`cannot place: ${describeOperation(model, stuck)}`);
  lines.push(`  it completed before the remaining operations could explain it from that state`);
  return lines;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A multi-line explanation of a check result (empty parts omitted). */
export function explainCheck<S, I, O>(model: Model<S, I, O>, result: CheckResult<I, O>): string {
  const m = model as unknown as Model<unknown, I, O>;
  const header =
    result.verdict === "linearizable"
      ? `linearizable: ${plural(result.operations, "operation")} in ${plural(result.parts.length, "part")}, model ${result.model}`
      : result.verdict === "illegal"
        ? `not linearizable: part ${result.illegalPart! + 1} of ${result.parts.length}${partKey(result.parts[result.illegalPart!]!)} has no valid order (model ${result.model})`
        : `unknown: the search stopped (${result.stoppedBy ?? "budget"}) after ${plural(result.steps, "step")} before a verdict (model ${result.model})`;
  const lines = [header];
  if (result.verdict === "illegal") {
    lines.push(...explainPart(m, result.parts[result.illegalPart!]!).map((l) => `  ${l}`));
  } else if (result.verdict === "unknown") {
    const open = result.parts.filter((p) => p.verdict === "unknown");
    lines.push(`  ${plural(open.length, "part")} unfinished, ${result.parts.length - open.length} linearizable`);
  }
  return lines.join("\n");
}
