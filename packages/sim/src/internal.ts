/**
 * `@moonpool/sim/internal`: the engine, the simulated world and the explorer, for tools built on
 * the simulator's machinery. Internal: these names change between minor versions without notice.
 * Simulations need only `@moonpool/sim`.
 */
export { Engine, type RunUntilResult, type RunLimits, type LoopBoundary } from "./engine/engine.ts";
export { EventQueue, type EventCallback, type EventOwner, type SimEvent } from "./engine/event-queue.ts";
export { RandomStream, seedStreams, deriveSeed, type SeedStreams } from "./engine/rng.ts";
export { World, type WorldOptions } from "./world/world.ts";
export { TraceLog } from "./world/trace-log.ts";
export { Explorer, FRONTIER_SAMPLES_MAX, Frontier, type FrontierEntry } from "./explore/index.ts";
