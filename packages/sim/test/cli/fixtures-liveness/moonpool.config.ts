// Config of the liveness report tests: only the rejoin example's simulations.
import { defineConfig } from "@moonpool/sim";

export default defineConfig({ include: ["*.sim.ts"] });
