/** Tier 1, what `npm test` runs: every test file except the heavy ones (vitest.tiers.ts). */
import { HEAVY_TESTS, TEST_ROOTS, tierConfig } from "./vitest.tiers.ts";

export default tierConfig(TEST_ROOTS, HEAVY_TESTS);
