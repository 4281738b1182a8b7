/** `moonpool list [filter...]`: the simulations found, with descriptions and files. */
import { colorsFor } from "../colors.ts";
import { loadConfig } from "../config-file.ts";
import { discoverSimulations, formatLoadFailure, selectSimulations } from "../discovery.ts";
import { EXIT_PASSED, EXIT_USAGE } from "../errors.ts";
import type { CliIO } from "../io.ts";
import { escapeTerminal } from "../terminal-text.ts";

export async function listCommand(
  filters: readonly string[],
  flags: { readonly config?: string },
  io: CliIO,
): Promise<number> {
  const config = await loadConfig(io.cwd, flags.config);
  let loadFailures = 0;
  const discovered = await discoverSimulations(config, (failure) => {
    loadFailures++;
    io.stderr.write(colorsFor(io.stderr).red(`✗ ${escapeTerminal(formatLoadFailure(failure))}`) + "\n");
  });
  const simulations = selectSimulations(discovered, filters, config);
  const c = colorsFor(io.stdout);
  const width = Math.max(...simulations.map((s) => s.name.length));
  for (const sim of simulations) {
    io.stdout.write(
      `${c.bold(sim.name.padEnd(width))}  ${escapeTerminal(sim.description)}${sim.description.length > 0 ? "  " : ""}${c.dim(`(${sim.relativeFile})`)}\n`,
    );
  }
  io.stderr.write(
    `${simulations.length} simulation${simulations.length === 1 ? "" : "s"}${config.configFile === null ? "" : ` (config: ${config.configFile})`}\n`,
  );
  return loadFailures > 0 ? EXIT_USAGE : EXIT_PASSED;
}
