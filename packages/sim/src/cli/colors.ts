/**
 * Colour only where it is supported: a TTY, `NO_COLOR` unset (https://no-color.org), and not a
 * dumb terminal; `FORCE_COLOR` (non-empty, not "0") forces it on. The rule is the runner's, so a
 * report printed by the library and the CLI's output agree.
 */
import pc from "picocolors";
import { colorEnabled } from "../runner/report-format.ts";

export { colorEnabled };

export type Colors = ReturnType<typeof pc.createColors>;

export function colorsFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Colors {
  return pc.createColors(colorEnabled(stream, env));
}

/** Under CI (`CI` set to anything but "false"/"0") the live display gives way to plain lines. */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}
