/** Tier 2, what `npm run test:heavy` runs: the `*.heavy.test.ts` files only (vitest.tiers.ts). */
import { tierConfig } from "./vitest.tiers.ts";

export default tierConfig(["packages/*/test/**/*.heavy.test.ts", "examples/**/*.heavy.test.ts"], []);
