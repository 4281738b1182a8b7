/**
 * Colour only where it is supported: a TTY, `NO_COLOR` unset (https://no-color.org), and not a
 * dumb terminal; `FORCE_COLOR` (non-empty, not "0") forces it on.
 */
import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true && env.TERM !== "dumb";
}

export function colorsFor(stream: { isTTY?: boolean }): Colors {
  return pc.createColors(colorEnabled(stream));
}

/** Under CI (`CI` set to anything but "false"/"0") the live display gives way to plain lines. */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}
