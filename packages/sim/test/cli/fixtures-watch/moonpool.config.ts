// Config of the watch fixture: the test copies this folder and runs `moonpool run --watch` in the copy.
import { defineConfig } from "@moonpool/sim";

export default defineConfig({ include: ["*.sim.ts"] });
