/**
 * What user files export: `defineSimulation(...)` in `*.sim.ts` files and `defineConfig(...)` in
 * `moonpool.config.ts`. Both only validate and tag their argument; the CLI does the rest.
 * This module is a leaf (types from the runner only) so that `@moonpool/sim`'s index can
 * re-export it without loading the CLI.
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { SimulationBuilder } from "../runner/builder.ts";
import { writtenValue } from "./written-value.ts";

/**
 * Marks definitions. `Symbol.for` (not a module-local symbol) so a definition is recognised even
 * when the simulation file resolved another copy of `@moonpool/sim`.
 */
const SIMULATION_BRAND = Symbol.for("moonpool.simulation");

/** Names go into commands, file names and JUnit test names: keep them shell- and path-safe. */
export const SIMULATION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export interface SimulationSpec {
  /** Unique across the project; what `moonpool run <filter>` and `moonpool replay <name>` match. */
  readonly name: string;
  /** One line for `moonpool list`. */
  readonly description?: string;
  /**
   * Returns a configured `SimulationBuilder`. Called once per seed in the worker that runs it
   * (and once on the main thread to read the iteration settings), so it must not share mutable
   * state between calls: every seed starts from a freshly built simulation.
   */
  readonly build: () => SimulationBuilder;
  /**
   * The simulation fails on purpose (a planted bug), like Vitest's `it.fails`: it passes when at
   * least one seed fails (the bug was found) and fails when every seed passes.
   */
  readonly expectFailure?: boolean;
}

export interface SimulationDefinition extends SimulationSpec {
  readonly description: string;
  readonly expectFailure: boolean;
  readonly [SIMULATION_BRAND]: true;
}

export function defineSimulation(spec: SimulationSpec): SimulationDefinition {
  if (spec === null || typeof spec !== "object")
    throw new InvalidConfiguration("defineSimulation({ name, description, build }): pass an object");
  if (typeof spec.name !== "string" || !SIMULATION_NAME_PATTERN.test(spec.name)) {
    throw new InvalidConfiguration(
      `defineSimulation: name must match ${SIMULATION_NAME_PATTERN} (letters, digits, '.', '_', '-'), got ${writtenValue(spec.name)}`,
    );
  }
  if (typeof spec.build !== "function")
    throw new InvalidConfiguration(
      `defineSimulation('${spec.name}'): build must be a function returning a SimulationBuilder`,
    );
  if (spec.description !== undefined && typeof spec.description !== "string")
    throw new InvalidConfiguration(`defineSimulation('${spec.name}'): description must be a string`);
  if (spec.expectFailure !== undefined && typeof spec.expectFailure !== "boolean")
    throw new InvalidConfiguration(`defineSimulation('${spec.name}'): expectFailure must be true or false`);
  return Object.freeze({
    name: spec.name,
    description: spec.description ?? "",
    build: spec.build,
    expectFailure: spec.expectFailure === true,
    [SIMULATION_BRAND]: true as const,
  });
}

export function isSimulationDefinition(value: unknown): value is SimulationDefinition {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SIMULATION_BRAND] === true;
}

/** The reporters `moonpool run --reporter` knows. */
export const REPORTER_NAMES = ["text", "json", "junit", "html"] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

/** `moonpool.config.ts`: project defaults. Command-line flags take precedence over every field. */
export interface MoonpoolConfig {
  /** Globs of simulation files, relative to the config file's folder. Default `DEFAULT_INCLUDE`. */
  readonly include?: readonly string[];
  /** Globs left out (node_modules is always left out). */
  readonly exclude?: readonly string[];
  /**
   * Default iteration control for simulations whose builder sets none (a builder's own
   * `setIterations` / `untilCoverageStable` wins over this; `--iterations` etc. win over both).
   */
  readonly iterations?: number;
  /** Run until coverage is stable for `quietSeeds` seeds, at least `minSeeds`, at most `maxSeeds`. */
  readonly untilStable?: { readonly quietSeeds: number; readonly maxSeeds: number; readonly minSeeds?: number };
  /** Worker threads (default: `os.availableParallelism()`). */
  readonly workers?: number;
  /** Where json and junit reports go (default `DEFAULT_REPORT_DIR`). */
  readonly reportDir?: string;
  /** Reporters when `--reporter` is not given (default `["text"]`). */
  readonly reporters?: readonly ReporterName[];
  /**
   * A seed fails as hung when no engine step of it starts for this long, in ms (default 60 s;
   * `--hang-timeout` wins over this). A seed that keeps stepping is never stopped, however long
   * it runs; `moonpool shrink` and `replay` follow the same limit.
   */
  readonly hangTimeoutMs?: number;
}

export function defineConfig(config: MoonpoolConfig): MoonpoolConfig {
  return config;
}
