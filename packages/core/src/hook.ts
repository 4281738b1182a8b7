/**
 * The link between the free functions of this package (assertions, buggify, select) and the
 * simulation that is running in this realm, if any.
 *
 * The hook lives on `globalThis` under a registered symbol rather than in a module variable so
 * that two copies of `@moonpool/core` in one realm (a bundler, a nested node_modules) still see
 * the same active simulation. Outside a simulation the hook is absent and every function here is
 * a cheap no-op, which is what production code needs.
 */
export type BooleanAssertionKind = "always" | "alwaysOrUnreachable" | "sometimes" | "reachable" | "unreachable";
export type NumericComparison = "gt" | "ge" | "lt" | "le";
export type AssertionDetails = Readonly<Record<string, string | number | boolean | bigint | null>>;
export type EachValue = number | string | boolean;

export interface SimulationHook {
  booleanAssertion(kind: BooleanAssertionKind, condition: boolean, message: string, details?: AssertionDetails): void;
  numericAssertion(
    family: "always" | "sometimes",
    comparison: NumericComparison,
    left: number,
    right: number,
    message: string,
    details?: AssertionDetails,
  ): void;
  sometimesAll(message: string, propositions: Readonly<Record<string, boolean>>): void;
  sometimesEach(
    message: string,
    identity: Readonly<Record<string, EachValue>>,
    quality?: Readonly<Record<string, number>>,
  ): void;
  buggify(id: string, probability: number): boolean;
  buggifyKnob(id: string, defaultValue: number, lo: number, hi: number): number;
  swarmOpEnabled(opId: number): boolean;
  /** Start offset for a fair `select` over `branchCount` branches (0 ..< branchCount). */
  selectOffset(branchCount: number): number;
}

const HOOK_KEY = Symbol.for("@moonpool/core/active-simulation");

type HookHolder = { [HOOK_KEY]?: SimulationHook };

export function activeSimulation(): SimulationHook | undefined {
  return (globalThis as HookHolder)[HOOK_KEY];
}

/**
 * Installs the active simulation. Used by `@moonpool/sim`; user code never calls it.
 * Returns false when another simulation is already active in this realm.
 */
export function installSimulationHook(hook: SimulationHook): boolean {
  const holder = globalThis as HookHolder;
  if (holder[HOOK_KEY] !== undefined && holder[HOOK_KEY] !== hook) return false;
  holder[HOOK_KEY] = hook;
  return true;
}

export function uninstallSimulationHook(hook: SimulationHook): void {
  const holder = globalThis as HookHolder;
  if (holder[HOOK_KEY] === hook) delete holder[HOOK_KEY];
}
