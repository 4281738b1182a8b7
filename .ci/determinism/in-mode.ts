/** A bundled example's simulation in one stepping mode, named `<example>.<mode>` (matrix.ts filters on it). */
import { defineSimulation, type SimulationDefinition } from "@moonpool/sim";

export function inMode(base: SimulationDefinition, mode: "fast" | "paranoid"): SimulationDefinition {
  return defineSimulation({
    name: `${base.name}.${mode}`,
    description: `${base.name}, ${mode} stepping`,
    build: () => base.build().steppingMode(mode),
  });
}
