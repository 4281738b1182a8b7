/** `--isolation seed|shared` (runner/isolation.ts), or a usage error that lists the modes. */
import { ISOLATION_MODES, type IsolationMode } from "../runner/isolation.ts";
import { UsageError } from "./errors.ts";

export function isolationFlag(text: string | undefined): IsolationMode | null {
  if (text === undefined) return null;
  const mode = text.trim();
  if ((ISOLATION_MODES as readonly string[]).includes(mode)) return mode as IsolationMode;
  throw new UsageError(
    `--isolation '${text}': use seed (a fresh realm per seed) or shared (realms reused across seeds, replays not guaranteed)`,
  );
}
