// Public API of @moonpool/sim.
export { SimulationBuilder, MAX_PROCESSES_PER_GROUP, MAX_PROCESS_GROUPS, MAX_WORKLOADS } from "./runner/builder.ts";
export { WorkloadCount, type Process, type Workload, type Invariant, type SimContext, type ProcessCount } from "./runner/types.ts";
export { Topology } from "./runner/topology.ts";
export { StateBoard } from "./runner/state-board.ts";
export { SimulationReport, SimulationFailed, REPORT_SCHEMA_VERSION, type SaturationReport } from "./runner/report.ts";
export { formatDuration, formatCount } from "./runner/report-format.ts";
export type { SeedResult, SeedFailure, SeedFailureKind, Discovery } from "./runner/seed-result.ts";
export { DEFAULT_ITERATION_CONTROL, DEFAULT_RUN_TIME_BUDGET_MS, SETTLE_BUDGET_MS } from "./runner/config.ts";
export { TraceCursor, TraceEvent, SIM_FAULT_EVENT_NAME, CONSOLE_EVENT_NAME, type TraceQuery } from "./world/trace-log.ts";
export { GUARDED_GLOBALS, type GuardedGlobal } from "./engine/escape-guard.ts";
export { DEFAULT_MAX_STEPS_PER_INSTANT, YIELD_AFTER_WALL_MS, type SteppingMode } from "./engine/engine.ts";
export { MAX_SEED } from "./engine/rng.ts";
export type { ExplorationConfig } from "./runner/exploration-config.ts";
export { DEFAULT_EXPLORATION } from "./runner/exploration-config.ts";
export type { BugRecipe, ExplorationReport, RootExploration } from "./runner/exploration.ts";
export { formatRecipe, parseRecipe, childSeed, RecipeParseError, type Recipe } from "./engine/recipe.ts";
export type { DeterminismReport, SeedDivergence, DrawSite } from "./runner/determinism.ts";
// Loading the explore layer registers the explorer as the runner's exploration strategy.
export { Explorer, Frontier, MAX_UNPRODUCTIVE_BATCHES } from "./explore/index.ts";
export * from "@moonpool/core";
