// Config of the seed-isolation fixtures (seed-isolation.test.ts).
import { defineConfig } from "@moonpool/sim";

export default defineConfig({
  include: ["*.sim.ts"],
  iterations: 8,
});
