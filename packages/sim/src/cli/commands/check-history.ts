/**
 * `moonpool check-history <file> --model <name>`: checks a recorded history for linearizability.
 * Reads Jepsen/Knossos EDN, the same records as JSON, or the JSON events of a HistoryRecorder;
 * prints the verdict and its explanation; exit 0 linearizable, 1 not linearizable, 3 unknown
 * (the time budget ran out), 2 anything that is not a verdict (a bad flag, a file that does not
 * parse, an operation the model cannot read), with a one-line reason.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { colorsFor } from "../colors.ts";
import { EXIT_FAILED, EXIT_PASSED, UsageError } from "../errors.ts";
import { writeReportFile } from "../report-files.ts";
import type { CliIO } from "../io.ts";
import { parseDurationMs } from "../option-values.ts";
import { checkLinearizability, type CheckResult } from "../../linearizability/checker.ts";
import { EdnParseError } from "../../linearizability/edn.ts";
import { explainCheck } from "../../linearizability/explain.ts";
import { HistoryError, type OpInput, type Operation } from "../../linearizability/history.ts";
import { checkResultHtml } from "../../linearizability/html.ts";
import { knossosHistoryFromRecords, parseKnossosHistory } from "../../linearizability/knossos.ts";
import type { Model } from "../../linearizability/model.ts";
import {
  casRegisterModel,
  fifoQueueModel,
  kvModel,
  multiRegisterModel,
  mutexModel,
  registerModel,
  setModel,
} from "../../linearizability/models.ts";
import { historyFromEvents, type HistoryEvent } from "../../linearizability/recorder.ts";

/** Verdict "unknown": the search ran out of time; neither passed nor failed. */
export const EXIT_UNKNOWN = 3;

export interface CheckHistoryFlags {
  readonly model?: string;
  readonly initial?: string;
  readonly timeout?: string;
  readonly html?: string;
}

const MODELS: Record<string, (initial: unknown) => Model<never, OpInput, unknown>> = {
  register: (i) => registerModel(i ?? null) as never,
  "cas-register": (i) => casRegisterModel(i ?? null) as never,
  kv: () => kvModel() as never,
  set: () => setModel() as never,
  "fifo-queue": () => fifoQueueModel() as never,
  mutex: () => mutexModel() as never,
  "multi-register": (i) => multiRegisterModel((i ?? {}) as Record<string, unknown>) as never,
};
export const CHECK_HISTORY_MODELS = Object.keys(MODELS);

function parseHistory(text: string, file: string): Operation<OpInput, unknown>[] {
  if (!file.endsWith(".json")) return parseKnossosHistory(text);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON (${(error as Error).message}); use .edn for Jepsen EDN histories`);
  }
  if (!Array.isArray(data)) throw new UsageError(`${file}: expected a JSON array of history events`);
  const recorded =
    data.length > 0 && typeof data[0] === "object" && data[0] !== null && "op" in data[0] && "client" in data[0];
  return recorded ? historyFromEvents<OpInput, unknown>(data as HistoryEvent[]) : knossosHistoryFromRecords(data);
}

/**
 * Whatever stops the check short of a verdict becomes one line and exit 2: a history the reader or
 * the model rejects says what to change; anything else is still one line, never a stack trace,
 * so a script can tell "no verdict" from "not linearizable" (exit 1).
 */
function notAVerdict(file: string, error: unknown): UsageError {
  if (error instanceof UsageError) return error;
  if (error instanceof EdnParseError || error instanceof HistoryError)
    return new UsageError(`${file}: ${error.message}`);
  const message = error instanceof Error ? error.message : String(error);
  return new UsageError(`${file}: cannot check this history: ${message.split("\n")[0]}`);
}

export async function checkHistoryCommand(file: string, flags: CheckHistoryFlags, io: CliIO): Promise<number> {
  if (flags.model === undefined) {
    throw new UsageError(`--model is required: one of ${CHECK_HISTORY_MODELS.join(", ")} (e.g. --model cas-register)`);
  }
  const makeModel = MODELS[flags.model];
  if (makeModel === undefined)
    throw new UsageError(`--model '${flags.model}': known models are ${CHECK_HISTORY_MODELS.join(", ")}`);
  let initial: unknown;
  if (flags.initial !== undefined) {
    try {
      initial = JSON.parse(flags.initial);
    } catch {
      throw new UsageError(
        `--initial '${flags.initial}': expected a JSON value, e.g. --initial 0 or --initial '{"x":0}'`,
      );
    }
  }
  const timeoutMs = flags.timeout === undefined ? undefined : parseDurationMs(flags.timeout, "--timeout");
  const absolute = path.resolve(io.cwd, file);
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let ops: Operation<OpInput, unknown>[];
  try {
    ops = parseHistory(text, file);
  } catch (error) {
    throw notAVerdict(file, error);
  }
  const model = makeModel(initial);
  let result: CheckResult<OpInput, unknown>;
  try {
    result = checkLinearizability(model, ops, timeoutMs === undefined ? {} : { timeoutMs });
  } catch (error) {
    throw notAVerdict(file, error);
  }
  const c = colorsFor(io.stdout);
  const text2 = explainCheck(model, result);
  const [head, ...rest] = text2.split("\n");
  const paint = result.verdict === "linearizable" ? c.green : result.verdict === "illegal" ? c.red : c.yellow;
  io.stdout.write(`${paint(head!)}\n${rest.map((l) => `${l}\n`).join("")}`);
  io.stdout.write(
    `${c.dim(`${ops.length} operations, ${result.steps} search steps, ${result.elapsedMs.toFixed(0)} ms`)}\n`,
  );
  if (flags.html !== undefined) {
    const out = path.resolve(io.cwd, flags.html);
    await writeReportFile(out, checkResultHtml(model, result, path.basename(file)));
    const shown = path.relative(io.cwd, out);
    io.stdout.write(`HTML: ${shown.startsWith("..") ? out : shown}\n`);
  }
  return result.verdict === "linearizable" ? EXIT_PASSED : result.verdict === "illegal" ? EXIT_FAILED : EXIT_UNKNOWN;
}
