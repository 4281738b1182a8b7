/**
 * Which file `moonpool replay` loads. The replay runs in a child process that imports only the
 * file defining its simulation, as a run's worker does: a top-level side effect of another
 * simulation file must not change the replayed timeline. This process finds the file (it is not
 * the realm that replays): first among the files that spell the name as a string, by importing
 * them; only if none defines it, by importing every simulation file.
 */
import { readFile } from "node:fs/promises";
import type { ResolvedConfig } from "./config-file.ts";
import { discoverSimulations, findSimulation, loadSimulationFile, simulationFiles } from "./discovery.ts";

/** Set for the replay child: the absolute path of the one simulation file it loads. */
export const REPLAY_FILE_ENV = "MOONPOOL_REPLAY_FILE";

export async function simulationFileOf(config: ResolvedConfig, name: string): Promise<string> {
  const files = await simulationFiles(config);
  const quoted = [`"${name}"`, `'${name}'`, `\`${name}\``];
  for (const file of files) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (!quoted.some((q) => text.includes(q))) continue;
    const definitions = await loadSimulationFile(file).catch(() => []);
    if (definitions.some((d) => d.definition.name === name)) return file;
  }
  // The name is computed: every file is imported here, still only one in the child.
  return findSimulation(await discoverSimulations(config, () => {}), name).file;
}
