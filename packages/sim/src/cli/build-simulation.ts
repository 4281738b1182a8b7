/**
 * Builds a simulation's configuration the same way on the main thread and in every worker: the
 * definition's `build()` plus the command-line settings that change what a seed does.
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { SimulationConfig } from "../runner/config.ts";
import type { SimulationDefinition } from "./define.ts";
import { SimulationLoadError } from "./errors.ts";
import { SimulationBuilder } from "../runner/builder.ts";

/** Command-line settings a worker must apply too (plain data: it is posted to workers). */
export interface BuildOverrides {
  /** `--explore`: enable exploration with the default settings when the simulation has not. */
  readonly explore: boolean;
}

export function buildSimulationConfig(definition: SimulationDefinition, overrides: BuildOverrides): SimulationConfig {
  let builder: unknown;
  try {
    builder = definition.build();
  } catch (error) {
    throw new SimulationLoadError(`simulation '${definition.name}': build() threw ${(error as Error).name}: ${(error as Error).message}`, { cause: error });
  }
  // Duck-typed rather than instanceof: the file may have resolved another copy of @moonpool/sim.
  if (!(builder instanceof SimulationBuilder) && (typeof builder !== "object" || builder === null || typeof (builder as SimulationBuilder).build !== "function")) {
    throw new SimulationLoadError(`simulation '${definition.name}': build() must return a SimulationBuilder, got ${builder === null ? "null" : typeof builder}`);
  }
  const b = builder as SimulationBuilder;
  try {
    if (overrides.explore && b.build().exploration === null) b.enableExploration();
    return b.build();
  } catch (error) {
    if (error instanceof InvalidConfiguration) throw new SimulationLoadError(`simulation '${definition.name}': ${error.message}`, { cause: error });
    throw error;
  }
}
