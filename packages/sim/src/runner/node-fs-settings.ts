/**
 * `builder.nodeFs(settings)`: checked and completed into the world's `NodeFsOptions` (real-read
 * paths absolute, the working directory and `/tmp` on a fresh disk, no capacity limit unless set),
 * and the start of a seed's virtual Node runtime with its simulated file system.
 */
import path from "node:path";
import { InvalidConfiguration } from "@moonpool/core";
import { enableNodeFs, type NodeFsOptions } from "../world/node-fs/index.ts";
import { NodeRuntime } from "../world/node-runtime/runtime.ts";
import type { VirtualProcess } from "../world/node-runtime/virtual-process.ts";
import type { World } from "../world/world.ts";
import type { SimulationConfig } from "./config.ts";

export type { NodeRuntime };

export interface NodeFsSettings {
  /** Paths whose reads stay real (the simulation's own files, fixtures); node_modules always are. */
  readonly realReadPaths?: readonly string[];
  /** Directories a fresh disk has; default: the working directory and `/tmp`. */
  readonly initialDirectories?: readonly string[];
  /** Bytes one machine's files may take before writes fail with `ENOSPC`; default: no limit. */
  readonly capacityBytes?: number;
}

function paths(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.some((p) => typeof p !== "string" || p.length === 0))
    throw new InvalidConfiguration(
      `nodeFs({ ${name} }): give an array of non-empty path strings, got ${String(value)}`,
    );
  return value.map((p: string) => path.resolve(p));
}

export function checkNodeFsSettings(settings: NodeFsSettings): NodeFsOptions {
  if (settings === null || typeof settings !== "object")
    throw new InvalidConfiguration(`nodeFs(settings): settings must be an object, got ${String(settings)}`);
  const capacityBytes = settings.capacityBytes ?? Number.POSITIVE_INFINITY;
  if (!(capacityBytes > 0))
    throw new InvalidConfiguration(
      `nodeFs({ capacityBytes }): must be a number of bytes > 0, got ${String(capacityBytes)}`,
    );
  return Object.freeze({
    realReadPaths: Object.freeze(paths(settings.realReadPaths ?? [], "realReadPaths")),
    initialDirectories: Object.freeze(
      paths(settings.initialDirectories ?? [process.cwd(), "/tmp"], "initialDirectories"),
    ),
    capacityBytes,
  });
}

/** The options a seed runs with; `nodeFs()` answers for simulated processes, which `nodeRuntime()` provides. */
export function withNodeRuntime(options: NodeFsOptions | null, nodeRuntime: boolean): NodeFsOptions | null {
  if (options !== null && !nodeRuntime)
    throw new InvalidConfiguration("nodeFs() needs nodeRuntime(): add .nodeRuntime() to the builder, or drop nodeFs()");
  return options;
}

/** The seed's virtual Node runtime (`nodeRuntime()`), with `node:fs` on the simulated disk when `nodeFs()` asks; null without. */
export function startNodeRuntime(
  world: World,
  config: SimulationConfig,
  onUncaught: (process: VirtualProcess, error: unknown, where: string) => void,
): NodeRuntime | null {
  if (config.nodeRuntime !== true) return null;
  if (config.nodeFs != null) enableNodeFs(world, config.nodeFs);
  return new NodeRuntime(world, onUncaught);
}
