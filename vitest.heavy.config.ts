/** Tier 2, what `npm run test:heavy` runs: the heavy test files only (vitest.tiers.ts). */
import { HEAVY_TESTS, tierConfig } from "./vitest.tiers.ts";

export default tierConfig(HEAVY_TESTS, []);
