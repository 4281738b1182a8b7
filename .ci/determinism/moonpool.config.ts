// The determinism matrix's simulations (see matrix.ts): the bundled examples in both stepping modes.
import { defineConfig } from "@moonpool/sim";

export default defineConfig({ include: ["*.sim.ts"] });
