// Configuration of the `moonpool` command for this repository (see packages/sim/src/cli/define.ts).
import { defineConfig } from "@moonpool/sim";

export default defineConfig({
  // The examples' simulations; the CLI's own test fixtures live under packages/sim/test and are
  // run by its tests with their own config.
  include: ["examples/**/*.sim.ts"],
  reportDir: "moonpool-reports",
});
