// Config of the shrink stall fixture: the tests spawn `moonpool` with this folder as working directory.
import { defineConfig } from "@moonpool/sim";

export default defineConfig({ include: ["*.sim.ts"] });
