/**
 * Builds a simulation's configuration the same way on the main thread and in every worker: the
 * definition's `build()` plus the command-line settings that change what a seed does
 * (`buildWithOverrides`, shared with the pool worker).
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { SimulationConfig } from "../runner/config.ts";
import { buildWithOverrides, type BuildOverrides, type SimulationSource } from "../runner/simulation-source.ts";
import type { SimulationDefinition } from "./define.ts";
import { SimulationLoadError } from "./errors.ts";
import { SimulationBuilder } from "../runner/builder.ts";

export type { BuildOverrides };

/**
 * `source` (the file and export the definition was found in) is recorded on the builder when it
 * has none, as the pool workers do, so a simulation exploring with `workers: N` needs no
 * `simulationSource` of its own under the CLI.
 */
export function buildSimulationConfig(
  definition: SimulationDefinition,
  overrides: BuildOverrides,
  source?: SimulationSource,
): SimulationConfig {
  let builder: unknown;
  try {
    builder = definition.build();
  } catch (error) {
    throw new SimulationLoadError(
      `simulation '${definition.name}': build() threw ${(error as Error).name}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  // Duck-typed rather than instanceof: the file may have resolved another copy of @moonpool/sim.
  if (
    !(builder instanceof SimulationBuilder) &&
    (typeof builder !== "object" || builder === null || typeof (builder as SimulationBuilder).build !== "function")
  ) {
    throw new SimulationLoadError(
      `simulation '${definition.name}': build() must return a SimulationBuilder, got ${builder === null ? "null" : typeof builder}`,
    );
  }
  const b = builder as SimulationBuilder;
  try {
    if (source !== undefined && typeof b.simulationSource === "function")
      b.simulationSource(source.module, source.export);
    return buildWithOverrides(b, overrides);
  } catch (error) {
    if (error instanceof InvalidConfiguration)
      throw new SimulationLoadError(`simulation '${definition.name}': ${error.message}`, { cause: error });
    throw error;
  }
}
