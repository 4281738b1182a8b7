// Config of the `moonpool explain` tests: only the leader election's simulations, so a command
// loads one file rather than every example of the repository.
import { defineConfig } from "@moonpool/sim";

export default defineConfig({ include: ["*.sim.ts"] });
