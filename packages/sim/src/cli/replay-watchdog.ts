/**
 * `replay` under a wall-clock limit. A replay runs its timeline in this thread, and a timeline
 * stuck in synchronous code would also block the timer meant to stop it, so the replay runs in
 * a child process of the same command, which this process kills at the limit. The child says
 * when the simulated code starts and stops running, so a child that `process.exit` or
 * `process.abort` in that code ended is reported as such (exit 1), not taken for the command's
 * own exit status.
 */
import { spawn } from "node:child_process";
import { formatDuration } from "../runner/report-format.ts";
import { colorEnabled } from "./colors.ts";
import { EXIT_FAILED } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { onTermination, signalExitCode } from "./termination.ts";

/** Set in the child: it runs the replay itself. */
export const REPLAY_CHILD_ENV = "MOONPOOL_REPLAY_CHILD";

export function isReplayChild(io: CliIO): boolean {
  return io.env[REPLAY_CHILD_ENV] === "1";
}

/** What the child posts on its IPC channel: whether the simulated code is running now. */
interface SimulatedCodeMessage {
  readonly kind: "moonpool-replay-simulated-code";
  readonly running: boolean;
}

function tellParent(running: boolean): Promise<void> {
  const send = process.send?.bind(process);
  if (send === undefined) return Promise.resolve();
  const message: SimulatedCodeMessage = { kind: "moonpool-replay-simulated-code", running };
  // Delivered before the simulated code runs: it may end the process at once.
  return new Promise((resolve) => send(message, undefined, {}, () => resolve()));
}

/** In the child: runs simulated code (a replay) with the parent told before and after it. */
export async function runSimulatedCode<T>(run: () => Promise<T>): Promise<T> {
  // The channel alone must not keep the child alive once the command is done.
  process.channel?.unref();
  await tellParent(true);
  try {
    return await run();
  } finally {
    await tellParent(false);
  }
}

/** Runs this same command in a child process; its output is this one's; killed past `limitMs`. */
export function replayInChild(limitMs: number, io: CliIO, extraEnv: NodeJS.ProcessEnv = {}): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...io.env, ...extraEnv, [REPLAY_CHILD_ENV]: "1" };
  // The child writes into pipes: keep the colours this terminal would have shown.
  if (colorEnabled(io.stdout, io.env)) env.FORCE_COLOR = "1";
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    cwd: io.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let insideSimulatedCode = false;
  child.on("message", (message: SimulatedCodeMessage) => {
    if (message?.kind === "moonpool-replay-simulated-code") insideSimulatedCode = message.running;
  });
  child.stdout!.pipe(io.stdout, { end: false });
  child.stderr!.pipe(io.stderr, { end: false });
  // A termination signal sent to this process alone (not to its process group) reaches the child too.
  const termination = onTermination((signal) => child.kill(signal));
  return new Promise<number>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, limitMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, killedBy) => {
      clearTimeout(timer);
      const signal = termination.received();
      if (signal !== null) return resolve(signalExitCode(signal));
      if (!timedOut && insideSimulatedCode) {
        const how = killedBy !== null ? `was killed by ${killedBy}` : `exited with code ${code}`;
        io.stderr.write(
          `moonpool: the replay's process ${how} while the timeline ran: the simulated code ended it ` +
            "(process.exit or process.abort; in a campaign that fails the seed), so the timeline has no outcome\n",
        );
        return resolve(EXIT_FAILED);
      }
      if (!timedOut) return resolve(code ?? EXIT_FAILED);
      io.stderr.write(
        `moonpool: the replay ran longer than its wall-clock limit of ${formatDuration(limitMs)} and was stopped: ` +
          "the timeline is stuck in synchronous code or an endless microtask or nextTick chain " +
          "(raise the limit with --timeout if it is only slow)\n",
      );
      resolve(EXIT_FAILED);
    });
  }).finally(() => termination.dispose());
}
