/** A simulation file that throws while it is imported: reported with its line, and skipped. */
import { defineSimulation, SimulationBuilder } from "@moonpool/sim";

const settings = JSON.parse("null") as { port: number };
const port = settings.port;
export const broken = defineSimulation({ name: "broken", build: () => new SimulationBuilder().setIterations(port) });
