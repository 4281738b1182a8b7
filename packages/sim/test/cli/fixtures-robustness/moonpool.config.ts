// Config of the CLI robustness fixtures (signals, crashing replays, sharded planted bugs).
import { defineConfig } from "@moonpool/sim";

export default defineConfig({
  include: ["*.sim.ts"],
  iterations: 6,
});
