// V8 flags for processes that run seeds: the `moonpool` command sets them on itself, and the
// repository's test workers (vitest.tiers.ts) start with them.

// A seed's fresh realm runs its code once, cold: V8's default interrupt budget (67,584) sends it to
// the optimising compiler early, work thrown away with the realm. 8x that cut a realm's CPU by 28 %
// and costs long shared-realm campaigns nothing (docs/decisions.md D55).
export const INTERRUPT_BUDGET_FLAG = "--interrupt-budget=540672";
