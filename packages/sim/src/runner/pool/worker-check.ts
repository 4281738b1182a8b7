/**
 * Workers rebuild the simulation from its source: before they run anything, each loads it and
 * the configuration it builds there is compared with this thread's (settings added to a builder
 * after the source's export are invisible to the workers, whose timelines would differ silently).
 */
import { InvalidConfiguration } from "@moonpool/core";
import type { SimulationConfig } from "../config.ts";
import { type ConfigFingerprint, configFingerprint, fingerprintDifferences } from "../config-fingerprint.ts";
import { describeSource, type SimulationSource } from "../simulation-source.ts";
import type { TaskOutcome } from "./messages.ts";
import { formatHang } from "./progress-watchdog.ts";
import type { WorkerPool } from "./worker-pool.ts";

/** The value of a finished task, or the task's failure as an exception (a bad source stays an InvalidConfiguration). */
export function valueOf<T>(outcome: TaskOutcome<T>, what: string): T {
  switch (outcome.kind) {
    case "done":
      return outcome.outcome;
    case "error":
      if (outcome.name === "InvalidConfiguration") throw new InvalidConfiguration(outcome.message);
      throw new Error(
        `${what} failed in a worker thread: ${outcome.name}: ${outcome.message}${outcome.stack !== undefined ? `\n--- worker stack ---\n${outcome.stack}` : ""}`,
      );
    case "crashed":
      throw new Error(`${what} crashed its worker thread: ${outcome.cause}`);
    case "hung":
      throw new Error(`${what} ${formatHang(outcome.hang)} in a worker thread`);
    case "cancelled":
      throw new Error(`${what} was cancelled: the worker pool closed`);
  }
}

/**
 * Loads the source in every worker (in parallel) and
 * refuses to go on when the configuration it builds there is not this one (settings added after
 * the source's export are invisible to the workers).
 */
export async function checkWorkerConfiguration(
  pool: WorkerPool,
  source: SimulationSource,
  config: SimulationConfig,
): Promise<void> {
  const probes = Array.from({ length: pool.size }, () => pool.run({ kind: "fingerprint", source }));
  const fingerprints = (await Promise.all(probes)).map((outcome) =>
    valueOf(outcome, `loading ${describeSource(source)}`),
  );
  refuseDifferentSimulation(source, config, fingerprints[0]!);
}

/** Throws when the source's fingerprint is not this configuration's, naming the differences. */
export function refuseDifferentSimulation(
  source: SimulationSource,
  config: SimulationConfig,
  built: ConfigFingerprint,
): void {
  const differences = fingerprintDifferences(configFingerprint(config), built);
  if (differences.length > 0) {
    throw new InvalidConfiguration(
      `${describeSource(source)} builds a different simulation than this builder (this builder vs the source's): ${differences.join("; ")}. ` +
        "Workers only see what the export builds: move these settings into it, or export a function that builds exactly this simulation",
    );
  }
}
