/** Histories and the linearizability checker: record, import, check, explain. */
export { HistoryError, type History, type Operation, type OpInput } from "./history.ts";
export {
  HistoryRecorder,
  historyFromEvents,
  type HistoryEvent,
  type HistoryEventType,
  type HistoryRecorderOptions,
  type PendingOperation,
} from "./recorder.ts";
export {
  ModelError,
  type Model,
  type DeterministicModel,
  type NondeterministicModel,
  type StepResult,
} from "./model.ts";
export {
  registerModel,
  casRegisterModel,
  kvModel,
  setModel,
  fifoQueueModel,
  mutexModel,
  multiRegisterModel,
  partitionByKey,
  BUILT_IN_MODELS,
  type BuiltInModelName,
} from "./models.ts";
export {
  checkLinearizability,
  CheckOptionsError,
  type CheckOptions,
  type CheckResult,
  type PartResult,
  type Verdict,
} from "./checker.ts";
export type { LongestLinearization } from "./search.ts";
export { explainCheck, describeOperation } from "./explain.ts";
export { checkResultHtml } from "./html.ts";
export { parseEdn, EdnParseError, type EdnValue } from "./edn.ts";
export { parseKnossosHistory, type KnossosImportOptions } from "./knossos.ts";
