/**
 * The plain-data part of a configuration that decides what ONE timeline does. A worker rebuilds
 * the simulation from its source (closures cannot cross threads); if the main thread's builder
 * added settings after the source's factory (`mazeSimulation().runTimeBudget(...)`), the worker's
 * timelines would silently differ. Comparing fingerprints before the first timeline turns that
 * into an `InvalidConfiguration`. Closures themselves (factories, invariants' code) cannot be
 * compared: the fingerprint holds their names and counts only.
 *
 * Campaign-level settings (iteration control, seeds, exploration, the source itself) are left
 * out: they stay on the main thread.
 */
import type { SimulationConfig } from "./config.ts";

export type ConfigFingerprint = Readonly<Record<string, string>>;

export function configFingerprint(config: SimulationConfig): ConfigFingerprint {
  const json = (value: unknown) => JSON.stringify(value) ?? "undefined";
  return {
    groups: json(
      config.groups.map((g) => ({ name: g.name, count: g.count, tags: g.tags, locality: g.locality ?? null })),
    ),
    workloads: json(config.workloads.map((w) => `${w.kind} ${w.count.describe()}`)),
    invariants: json(config.invariants.map((i) => i.name)),
    liveness: json((config.liveness ?? []).map((p) => `${p.name} within ${p.withinMs} ms`)),
    runTimeBudgetMs: json(config.runTimeBudgetMs),
    traceLevel: json(config.traceLevel),
    beforeIteration: json(config.beforeIteration.length),
    swarmOperations: json(config.swarmOperations),
    steppingMode: json(config.steppingMode),
    allowedGlobals: json([...config.allowedGlobals].sort()),
    captureConsole: json(config.captureConsole),
    maxStepsPerInstant: json(config.maxStepsPerInstant),
    chaos: json(config.chaos),
    networkFaults: json(config.networkFaults),
    clockFaults: json(config.clockFaults ?? null),
    ...(config.dnsFaults !== undefined ? { dnsFaults: json(config.dnsFaults) } : {}),
    ...(config.hostAliases !== undefined ? { hostAliases: json(config.hostAliases) } : {}),
    storageFaults: json(config.storageFaults ?? null),
    taskFailuresFailSeed: json(config.taskFailuresFailSeed ?? null),
    chaosDurationMs: json(config.chaosDurationMs),
    faultFactory: json(config.faultFactory !== null),
    linkLatency: json(config.linkLatency),
    nodeRuntime: json(config.nodeRuntime === true),
    nodeFs: json(config.nodeFs ?? null),
    processErrors: json(config.processErrors ?? "failSeed"),
  };
}

/** `"field: here vs there"` for every field that differs. */
export function fingerprintDifferences(here: ConfigFingerprint, there: ConfigFingerprint): string[] {
  const keys = [...new Set([...Object.keys(here), ...Object.keys(there)])];
  return keys.filter((k) => here[k] !== there[k]).map((k) => `${k}: ${here[k] ?? "absent"} vs ${there[k] ?? "absent"}`);
}
