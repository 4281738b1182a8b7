// Config of the failure-reporting fixtures (see ../failures.test.ts).
import { defineConfig } from "@moonpool/sim";

export default defineConfig({
  include: ["*.sim.ts"],
  iterations: 6,
});
