// The matrix's costly simulations (see matrix.ts): run with fewer seeds than the others.
import { defineConfig } from "@moonpool/sim";

export default defineConfig({ include: ["*.sim.ts"] });
