// Config of the coverage fixtures: a project of its own (its package.json), so its files are user code.
import { defineConfig } from "@moonpool/sim";

export default defineConfig({
  include: ["*.sim.ts"],
  iterations: 12,
});
