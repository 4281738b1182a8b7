/**
 * Finds simulation files by the config's globs, imports them, and collects every exported
 * `defineSimulation(...)`. Simulations are listed and run in name order, so a run's order does
 * not depend on the file system.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { glob } from "tinyglobby";
import { isSimulationDefinition, type SimulationDefinition } from "./define.ts";
import { SimulationLoadError, UnknownSimulation } from "./errors.ts";
import { commonJsHint } from "./module-format.ts";
import type { ResolvedConfig } from "./config-file.ts";
import type { SimulationSource } from "../runner/simulation-source.ts";
import { codeFrame, formatLocation, userLocation, type SourceLocation } from "../runner/source-location.ts";
import { loadWithFixedRandomness } from "../world/node-runtime/load-randomness.ts";

export interface DiscoveredSimulation {
  readonly name: string;
  readonly description: string;
  /** Absolute path (what workers import). */
  readonly file: string;
  /** What workers load: the file (as a URL) and the export holding the definition. */
  readonly source: SimulationSource;
  /** Relative to the root, with `/` separators (what reports show). */
  readonly relativeFile: string;
  readonly definition: SimulationDefinition;
}

export interface ExportedDefinition {
  readonly exportName: string;
  readonly definition: SimulationDefinition;
}

/** Imports a simulation file and returns its definitions in export order (a definition exported twice: its first name). */
export async function loadSimulationFile(file: string): Promise<ExportedDefinition[]> {
  let module: Record<string, unknown>;
  try {
    module = (await loadWithFixedRandomness(() => import(pathToFileURL(file).href))) as Record<string, unknown>;
  } catch (error) {
    const message = `${file} failed to load: ${(error as Error).message}${commonJsHint(file, error)}`;
    throw new SimulationLoadError(message, { cause: error });
  }
  const found: ExportedDefinition[] = [];
  for (const [exportName, value] of Object.entries(module)) {
    if (isSimulationDefinition(value) && !found.some((f) => f.definition === value))
      found.push({ exportName, definition: value });
  }
  return found;
}

/** A simulation file that threw while being imported; the other files still load. */
export interface LoadFailure {
  readonly relativeFile: string;
  readonly message: string;
  /** Where it threw (the first frame in user code), when the stack says. */
  readonly location: SourceLocation | null;
}

/** The load failure in a few lines: file, message, location and a code frame. */
export function formatLoadFailure(failure: LoadFailure): string {
  const lines = [`${failure.relativeFile} failed to load, its simulations are skipped: ${failure.message}`];
  if (failure.location !== null) {
    lines.push(`    at ${formatLocation(failure.location)}`);
    for (const line of codeFrame(failure.location)) lines.push(`      ${line}`);
  }
  return lines.join("\n");
}

/** The simulation files the config's globs match, sorted. */
export async function simulationFiles(config: ResolvedConfig): Promise<string[]> {
  return (
    await glob([...config.include], {
      cwd: config.rootDir,
      ignore: [...config.exclude],
      absolute: true,
      onlyFiles: true,
    })
  ).sort();
}

/**
 * Every simulation of the files the globs match (of `only`, when given: `moonpool replay` loads
 * just the file of its simulation). A file that throws while imported is passed to
 * `onLoadError` and skipped when that callback is given (else the error is thrown).
 */
export async function discoverSimulations(
  config: ResolvedConfig,
  onLoadError?: (failure: LoadFailure) => void,
  only?: string,
): Promise<DiscoveredSimulation[]> {
  const files = only !== undefined ? [only] : await simulationFiles(config);
  const byName = new Map<string, DiscoveredSimulation>();
  for (const file of files) {
    const relativeFile = path.relative(config.rootDir, file).split(path.sep).join("/");
    let definitions: ExportedDefinition[];
    try {
      definitions = await loadSimulationFile(file);
    } catch (error) {
      if (onLoadError === undefined || !(error instanceof SimulationLoadError)) throw error;
      const cause = error.cause instanceof Error ? error.cause : error;
      onLoadError({
        relativeFile,
        message: cause.message + commonJsHint(file, cause),
        location: userLocation(cause.stack) ?? loadErrorLocation(cause, file),
      });
      continue;
    }
    if (definitions.length === 0) {
      throw new SimulationLoadError(
        `${relativeFile} matches the simulation globs but exports no defineSimulation(...) (export const sim = defineSimulation({ name, description, build }))`,
      );
    }
    for (const { exportName, definition } of definitions) {
      const existing = byName.get(definition.name);
      if (existing !== undefined && existing.definition !== definition) {
        throw new SimulationLoadError(
          `two simulations are named '${definition.name}': in ${existing.relativeFile} and ${relativeFile}; names must be unique`,
        );
      }
      byName.set(definition.name, {
        name: definition.name,
        description: definition.description,
        file,
        source: { module: pathToFileURL(file).href, export: exportName },
        relativeFile,
        definition,
      });
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A syntax error's stack has no frame in the file; the transform's message often names the line. */
function loadErrorLocation(error: Error, file: string): SourceLocation | null {
  const match = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+):(\\d+)`).exec(
    error.message + "\n" + (error.stack ?? ""),
  );
  return match === null ? null : { file, line: Number(match[1]), column: Number(match[2]) + 1 };
}

function knownNames(all: readonly DiscoveredSimulation[]): string {
  return all.length === 0 ? "none found" : all.map((s) => s.name).join(", ");
}

/**
 * A filter selects the simulation whose name equals it; when no name equals it, every simulation
 * whose name or file path contains it (so `run leader-election` runs exactly that one, while
 * `run leader` runs all leader simulations). No filters: all of them.
 */
export function selectSimulations(
  all: readonly DiscoveredSimulation[],
  filters: readonly string[],
  config: ResolvedConfig,
): DiscoveredSimulation[] {
  if (all.length === 0) {
    throw new UnknownSimulation(
      `no simulation files found under ${config.rootDir} matching ${config.include.join(", ")}${config.configFile === null ? " (no moonpool.config.{ts,mts,js,mjs} here: the defaults apply)" : ` (from ${config.configFile})`}`,
    );
  }
  if (filters.length === 0) return all.slice();
  const selected = new Set<DiscoveredSimulation>();
  for (const filter of filters) {
    const exact = all.find((s) => s.name === filter);
    const matches =
      exact !== undefined ? [exact] : all.filter((s) => s.name.includes(filter) || s.relativeFile.includes(filter));
    if (matches.length === 0)
      throw new UnknownSimulation(`no simulation matches '${filter}'; known simulations: ${knownNames(all)}`);
    for (const m of matches) selected.add(m);
  }
  return all.filter((s) => selected.has(s));
}

/** Exactly one simulation by name (replay). */
export function findSimulation(all: readonly DiscoveredSimulation[], name: string): DiscoveredSimulation {
  const found = all.find((s) => s.name === name);
  if (found === undefined)
    throw new UnknownSimulation(`unknown simulation '${name}'; known simulations: ${knownNames(all)}`);
  return found;
}
