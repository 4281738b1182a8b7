/**
 * The exact command that replays a failure. Every failure the CLI prints (progress lines, the
 * text report, JUnit, the JSON report) ends with it, so a failure can be pasted back into a shell
 * from wherever it was seen.
 */
import path from "node:path";

/** How the command is invoked in replay hints: through the project's own installed binary. */
export const COMMAND_PREFIX = "npx moonpool";

/** Shell-safe quoting for the few values that may need it (recipes contain `->`). */
function quote(value: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(value) ? value : `"${value.replace(/(["\\$`])/g, "\\$1")}"`;
}

export interface ReplayCommandContext {
  /** The config file given with --config (relative to the working directory), or null. */
  readonly configArg: string | null;
}

export function replayCommand(
  context: ReplayCommandContext,
  simulation: string,
  seed: number,
  recipe?: string,
  overrides?: string,
): string {
  const parts = [COMMAND_PREFIX, "replay", quote(simulation), "--seed", String(seed)];
  if (recipe !== undefined && recipe.length > 0) parts.push("--recipe", quote(recipe));
  // A shrunk run's departures from the seed (`moonpool shrink`).
  if (overrides !== undefined && overrides.length > 0) parts.push("--overrides", quote(overrides));
  if (context.configArg !== null) parts.push("--config", quote(context.configArg.split(path.sep).join("/")));
  return parts.join(" ");
}

/** The report renderer's hook: `replay: <command>`. */
export function replayHintFor(
  context: ReplayCommandContext,
  simulation: string,
): (seed: number, recipe?: string) => string {
  return (seed, recipe) => `replay: ${replayCommand(context, simulation, seed, recipe)}`;
}

/** The command that reruns exactly these seeds of a simulation (`--seeds` takes this list as printed). */
export function rerunCommand(context: ReplayCommandContext, simulation: string, seeds: readonly number[]): string {
  const parts = [COMMAND_PREFIX, "run", quote(simulation), "--seeds", seeds.join(",")];
  if (context.configArg !== null) parts.push("--config", quote(context.configArg.split(path.sep).join("/")));
  return parts.join(" ");
}
