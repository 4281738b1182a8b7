/** `moonpool list [filter...]`: the simulations found, with descriptions and files. */
import { colorsFor } from "../colors.ts";
import { loadConfig } from "../config-file.ts";
import { discoverSimulations, selectSimulations } from "../discovery.ts";
import { EXIT_PASSED } from "../errors.ts";
import type { CliIO } from "../io.ts";

export async function listCommand(filters: readonly string[], flags: { readonly config?: string }, io: CliIO): Promise<number> {
  const config = await loadConfig(io.cwd, flags.config);
  const simulations = selectSimulations(await discoverSimulations(config), filters, config);
  const c = colorsFor(io.stdout);
  const width = Math.max(...simulations.map((s) => s.name.length));
  for (const sim of simulations) {
    io.stdout.write(`${c.bold(sim.name.padEnd(width))}  ${sim.description}${sim.description.length > 0 ? "  " : ""}${c.dim(`(${sim.relativeFile})`)}\n`);
  }
  io.stderr.write(`${simulations.length} simulation${simulations.length === 1 ? "" : "s"}${config.configFile === null ? "" : ` (config: ${config.configFile})`}\n`);
  return EXIT_PASSED;
}
