/**
 * `@moonpool/core`: the provider interfaces, errors, assertions, buggify, and the production
 * providers a server ships with.
 */
export * from "./errors.ts";
export * from "./trace.ts";
export * from "./providers.ts";
export * from "./task-handle.ts";
export * from "./storage.ts";
export * from "./assertions.ts";
export * from "./buggify.ts";
export * from "./select.ts";
export * from "./framing.ts";
export * from "./channel-checks.ts";
export {
  activeSimulation,
  installSimulationHook,
  uninstallSimulationHook,
  type SimulationHook,
  type BooleanAssertionKind,
  type NumericComparison,
  type AssertionDetails,
  type EachValue,
} from "./hook.ts";
export * from "./production/index.ts";
