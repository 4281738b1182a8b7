/**
 * Finds and validates `moonpool.config.{ts,mts,js,mjs}` in the working directory. No upward
 * search: the folder the command runs in is the project root, so paths in reports and replay
 * commands are relative to one known place.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { writtenValue } from "./written-value.ts";
import { REPORTER_NAMES, type MoonpoolConfig, type ReporterName } from "./define.ts";
import { SimulationLoadError } from "./errors.ts";
import { commonJsHint } from "./module-format.ts";

export const CONFIG_FILE_NAMES = [
  "moonpool.config.ts",
  "moonpool.config.mts",
  "moonpool.config.js",
  "moonpool.config.mjs",
] as const;
/** Simulation files found when no config (or a config without `include`) says otherwise. */
export const DEFAULT_INCLUDE: readonly string[] = ["**/*.sim.{ts,mts,js,mjs}"];
/** Never searched: dependencies and VCS metadata. */
export const ALWAYS_EXCLUDED: readonly string[] = ["**/node_modules/**", "**/.git/**"];
/** Where json and junit reports go by default (relative to the root). */
export const DEFAULT_REPORT_DIR = "moonpool-reports";

export interface ResolvedConfig {
  /** The folder globs and reported paths are relative to. */
  readonly rootDir: string;
  /** The config file used (absolute), or null. */
  readonly configFile: string | null;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly iterations: number | null;
  readonly untilStable: { readonly quietSeeds: number; readonly maxSeeds: number; readonly minSeeds?: number } | null;
  readonly workers: number;
  /** Absolute. */
  readonly reportDir: string;
  readonly reporters: readonly ReporterName[];
  /** The project's hang limit (`hangTimeoutMs`), or null for the default. */
  readonly hangTimeoutMs: number | null;
}

function fail(file: string, message: string): never {
  throw new SimulationLoadError(`${file}: ${message}`);
}

function positiveInteger(file: string, value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    fail(file, `${what} must be a positive integer, got ${writtenValue(value)}`);
  return value;
}

function stringList(file: string, value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v.length > 0))
    fail(file, `${what} must be an array of glob strings, got ${writtenValue(value)}`);
  return value.slice();
}

export async function loadConfig(cwd: string, explicitPath?: string): Promise<ResolvedConfig> {
  let configFile: string | null = null;
  if (explicitPath !== undefined) {
    configFile = path.resolve(cwd, explicitPath);
    if (!existsSync(configFile))
      throw new SimulationLoadError(`--config ${explicitPath}: no such file (looked for ${configFile})`);
  } else {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = path.join(cwd, name);
      if (existsSync(candidate)) {
        configFile = candidate;
        break;
      }
    }
  }
  let config: MoonpoolConfig = {};
  if (configFile !== null) {
    let loaded: Record<string, unknown>;
    try {
      loaded = (await import(pathToFileURL(configFile).href)) as Record<string, unknown>;
    } catch (error) {
      const hint = commonJsHint(configFile, error);
      throw new SimulationLoadError(`${configFile} failed to load: ${(error as Error).message}${hint}`, {
        cause: error,
      });
    }
    const value = loaded.default;
    if (value === null || typeof value !== "object") fail(configFile, "must `export default defineConfig({ ... })`");
    config = value as MoonpoolConfig;
  }
  const file = configFile ?? "moonpool config";
  const known = new Set([
    "include",
    "exclude",
    "iterations",
    "untilStable",
    "workers",
    "reportDir",
    "reporters",
    "hangTimeoutMs",
  ]);
  for (const key of Object.keys(config))
    if (!known.has(key)) fail(file, `unknown option '${key}'; valid options: ${[...known].join(", ")}`);
  if (config.iterations !== undefined && config.untilStable !== undefined)
    fail(file, "set either iterations or untilStable, not both");
  const untilStable =
    config.untilStable === undefined
      ? null
      : {
          quietSeeds: positiveInteger(file, config.untilStable?.quietSeeds, "untilStable.quietSeeds"),
          maxSeeds: positiveInteger(file, config.untilStable?.maxSeeds, "untilStable.maxSeeds"),
          ...(config.untilStable?.minSeeds === undefined
            ? {}
            : { minSeeds: positiveInteger(file, config.untilStable.minSeeds, "untilStable.minSeeds") }),
        };
  if (untilStable?.minSeeds !== undefined && untilStable.minSeeds > untilStable.maxSeeds) {
    fail(
      file,
      `untilStable.minSeeds (${untilStable.minSeeds}) cannot exceed untilStable.maxSeeds (${untilStable.maxSeeds})`,
    );
  }
  const reporters =
    config.reporters === undefined ? (["text"] as ReporterName[]) : stringList(file, config.reporters, "reporters");
  for (const r of reporters)
    if (!(REPORTER_NAMES as readonly string[]).includes(r))
      fail(file, `unknown reporter '${r}'; known reporters: ${REPORTER_NAMES.join(", ")}`);
  if (config.reportDir !== undefined && (typeof config.reportDir !== "string" || config.reportDir.length === 0))
    fail(file, `reportDir must be a non-empty path, got ${writtenValue(config.reportDir)}`);
  const rootDir = configFile !== null ? path.dirname(configFile) : cwd;
  return {
    rootDir,
    configFile,
    include: config.include === undefined ? DEFAULT_INCLUDE : stringList(file, config.include, "include"),
    exclude: [...ALWAYS_EXCLUDED, ...(config.exclude === undefined ? [] : stringList(file, config.exclude, "exclude"))],
    iterations: config.iterations === undefined ? null : positiveInteger(file, config.iterations, "iterations"),
    untilStable,
    // One worker per core: going past the core count lost throughput (docs/decisions.md D12).
    workers: config.workers === undefined ? availableParallelism() : positiveInteger(file, config.workers, "workers"),
    reportDir: path.resolve(rootDir, config.reportDir ?? DEFAULT_REPORT_DIR),
    reporters: reporters as ReporterName[],
    hangTimeoutMs:
      config.hangTimeoutMs === undefined ? null : positiveInteger(file, config.hangTimeoutMs, "hangTimeoutMs"),
  };
}
