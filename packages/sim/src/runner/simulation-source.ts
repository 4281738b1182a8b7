/**
 * Where a simulation comes from, in a form that can cross threads. Closures (workload factories,
 * invariants, hooks) cannot be posted to a worker thread, so a worker rebuilds the simulation
 * itself: it imports `module` and reads its export named `export`, which is one of
 *
 * - a function returning a `SimulationBuilder` (called without arguments), e.g.
 *   `export function mazeSimulation() { return new SimulationBuilder()... }`;
 * - a `defineSimulation({ name, build })` definition (the CLI's `*.sim.ts` files): `build()` is
 *   called;
 * - a `SimulationBuilder` instance (its configuration is built again for every task).
 *
 * The worker calls it once per task, so every timeline starts from a freshly built simulation,
 * exactly like `replayTimeline` on a fresh builder. `module` is an absolute path or a `file:` URL
 * (inside the simulation module, `import.meta.url` is the natural value).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { InvalidConfiguration } from "@moonpool/core";
import type { SimulationBuilder } from "./builder.ts";
import type { SimulationConfig } from "./config.ts";
import { loadWithFixedRandomness } from "../world/node-runtime/load-randomness.ts";

export interface SimulationSource {
  /** Absolute path or `file:` URL of the module that exports the simulation. */
  readonly module: string;
  /** Name of the export (see the module comment for what it may be). */
  readonly export: string;
}

/** Settings applied on top of the source's own builder, identically in every thread. */
export interface BuildOverrides {
  /** Enable exploration with the default settings when the simulation has not (`moonpool run --explore`). */
  readonly explore: boolean;
  /** With exploration: timelines per root seed (`--explore-budget`), else the simulation's own. */
  readonly exploreBudget?: number;
  /** With exploration: end each root at its first failure (`--stop-on-failure`), else the simulation's own. */
  readonly stopOnFailure?: boolean;
}

/** Validates a source at the call that gives it; returns it with `module` as a `file:` URL. */
export function checkSimulationSource(module: unknown, exportName: unknown, where: string): SimulationSource {
  if (typeof module !== "string" || module.length === 0) {
    throw new InvalidConfiguration(
      `${where}: module must be an absolute path or a file: URL (import.meta.url inside the module), got ${JSON.stringify(module) ?? String(module)}`,
    );
  }
  let url: string;
  if (module.startsWith("file:")) {
    url = module;
  } else if (path.isAbsolute(module)) {
    url = pathToFileURL(module).href;
  } else {
    throw new InvalidConfiguration(
      `${where}: module '${module}' is relative; worker threads need an absolute path or a file: URL (import.meta.url inside the module)`,
    );
  }
  if (typeof exportName !== "string" || exportName.length === 0) {
    throw new InvalidConfiguration(
      `${where}: exportName must name the module's export that builds the simulation, got ${JSON.stringify(exportName) ?? String(exportName)}`,
    );
  }
  return { module: url, export: exportName };
}

export function describeSource(source: SimulationSource): string {
  return `simulationSource(${JSON.stringify(source.module)}, ${JSON.stringify(source.export)})`;
}

function isBuilderLike(value: unknown): value is SimulationBuilder {
  // Duck-typed rather than instanceof: the module may have resolved another copy of @moonpool/sim.
  const v = value as Partial<SimulationBuilder> | null;
  return (
    typeof v === "object" && v !== null && typeof v.build === "function" && typeof v.enableExploration === "function"
  );
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  return Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Turns the module's export into a builder: see the module comment for the accepted shapes. */
function builderFromExport(value: unknown, source: SimulationSource): SimulationBuilder {
  const where = describeSource(source);
  const expected =
    "a function returning a SimulationBuilder, a defineSimulation({ name, build }) or a SimulationBuilder";
  if (isBuilderLike(value)) return value;
  let built: unknown;
  if (typeof value === "function") {
    built = (value as () => unknown)();
  } else if (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { build?: unknown }).build === "function"
  ) {
    built = (value as { build: () => unknown }).build();
  } else {
    throw new InvalidConfiguration(`${where}: export '${source.export}' is ${kindOf(value)}; expected ${expected}`);
  }
  if (!isBuilderLike(built))
    throw new InvalidConfiguration(
      `${where}: export '${source.export}' returned ${kindOf(built)}, not a SimulationBuilder`,
    );
  return built;
}

/**
 * Modules already imported. `import()` of a loaded module still goes through the loader's
 * resolve hooks (tsx's run on a separate thread): ~0.4 ms a call measured, as much as a maze
 * timeline, and a worker loads the source for every task.
 */
const loadedModules = new Map<string, Record<string, unknown>>();

/**
 * Imports a simulation module once per thread, module-level randomness on the fixed load stream
 * (a warm pool worker imports its simulation this way before its first task).
 */
export async function importSimulationModule(module: string): Promise<Record<string, unknown>> {
  let loaded = loadedModules.get(module);
  if (loaded === undefined) {
    loaded = (await loadWithFixedRandomness(() => import(module))) as Record<string, unknown>;
    loadedModules.set(module, loaded);
  }
  return loaded;
}

/**
 * Imports the source's module (once per thread) and returns a fresh builder. The
 * builder records the source it came from, so a simulation that explores with workers validates
 * wherever it is built.
 */
export async function loadSimulationBuilder(source: SimulationSource): Promise<SimulationBuilder> {
  const where = describeSource(source);
  let module: Record<string, unknown>;
  try {
    module = await importSimulationModule(source.module);
  } catch (error) {
    throw new InvalidConfiguration(`${where}: the module failed to load: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!(source.export in module)) {
    const names = Object.keys(module).sort();
    throw new InvalidConfiguration(
      `${where}: the module has no export '${source.export}'; its exports: ${names.length === 0 ? "none" : names.join(", ")}`,
    );
  }
  const builder = builderFromExport(module[source.export], source);
  if (typeof builder.simulationSource === "function") builder.simulationSource(source.module, source.export);
  return builder;
}

/** The builder's configuration with the overrides applied (the same on the main thread and in workers). */
export function buildWithOverrides(builder: SimulationBuilder, overrides: BuildOverrides): SimulationConfig {
  if (overrides.explore && builder.build().exploration === null) builder.enableExploration();
  const exploration = builder.build().exploration;
  if (exploration !== null && (overrides.exploreBudget !== undefined || overrides.stopOnFailure !== undefined)) {
    builder.enableExploration({
      ...exploration,
      ...(overrides.exploreBudget === undefined ? {} : { maxRunsPerSeed: overrides.exploreBudget }),
      ...(overrides.stopOnFailure === undefined ? {} : { stopOnFailure: overrides.stopOnFailure }),
    });
  }
  return builder.build();
}
