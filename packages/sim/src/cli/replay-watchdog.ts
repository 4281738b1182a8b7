/**
 * `replay` under a wall-clock limit. A replay runs its timeline in this thread, and a timeline
 * stuck in synchronous code would also block the timer meant to stop it, so the replay runs in
 * a child process of the same command, which this process kills at the limit.
 */
import { spawn } from "node:child_process";
import { formatDuration } from "../runner/report-format.ts";
import { colorEnabled } from "./colors.ts";
import { EXIT_FAILED } from "./errors.ts";
import type { CliIO } from "./io.ts";

/** Set in the child: it runs the replay itself. */
export const REPLAY_CHILD_ENV = "MOONPOOL_REPLAY_CHILD";

export function isReplayChild(io: CliIO): boolean {
  return io.env[REPLAY_CHILD_ENV] === "1";
}

/** Runs this same command in a child process; its output is this one's; killed past `limitMs`. */
export function replayInChild(limitMs: number, io: CliIO, extraEnv: NodeJS.ProcessEnv = {}): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...io.env, ...extraEnv, [REPLAY_CHILD_ENV]: "1" };
  // The child writes into pipes: keep the colours this terminal would have shown.
  if (colorEnabled(io.stdout, io.env)) env.FORCE_COLOR = "1";
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    cwd: io.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.pipe(io.stdout, { end: false });
  child.stderr.pipe(io.stderr, { end: false });
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, limitMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (!timedOut) return resolve(code ?? EXIT_FAILED);
      io.stderr.write(
        `moonpool: the replay ran longer than its wall-clock limit of ${formatDuration(limitMs)} and was stopped: ` +
          "the timeline is stuck in synchronous code or an endless microtask or nextTick chain " +
          "(raise the limit with --timeout if it is only slow)\n",
      );
      resolve(EXIT_FAILED);
    });
  });
}
