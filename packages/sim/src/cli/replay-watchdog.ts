/**
 * `replay` under the hang rule of a campaign seed (docs/decisions.md D25). A replay runs its
 * timeline in this thread, and a timeline stuck in synchronous code would also block the timer
 * meant to stop it, so the replay runs in a child process of the same command. The child's
 * engines publish their steps into a SharedArrayBuffer, and a small relay thread in the child
 * writes them to a pipe even while the child's main thread is stuck; this process kills the
 * child once no step started for the hang limit. A slow replay that keeps stepping is never
 * stopped. The child says when the simulated code starts and stops running, so a child that
 * `process.exit` or `process.abort` in that code ended is reported as such (exit 1), not taken
 * for the command's own exit status; one that ran out of heap is reported in one line, not with
 * V8's trace.
 */
import { spawn } from "node:child_process";
import { writeSync } from "node:fs";
import { getHeapStatistics } from "node:v8";
import { Worker } from "node:worker_threads";
import { newProgressBuffer, publishProgressInto, type ProgressSnapshot } from "../engine/progress.ts";
import { formatHang, ProgressWatchdog, type Hang } from "../runner/pool/progress-watchdog.ts";
import { colorEnabled } from "./colors.ts";
import { EXIT_FAILED } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { onTermination, signalExitCode } from "./termination.ts";

/** Set in the child: it runs the replay itself. */
export const REPLAY_CHILD_ENV = "MOONPOOL_REPLAY_CHILD";
/** Set in the child: the file descriptor its progress lines go to. */
const REPLAY_PROGRESS_FD_ENV = "MOONPOOL_REPLAY_PROGRESS_FD";
/** The child's stdio slot of the progress pipe (0-2 are the standard streams, 3 the IPC channel). */
const PROGRESS_FD = 4;
/** How often the relay looks at the cells: well below any sensible hang limit. */
const RELAY_PERIOD_MS = 20;

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

/**
 * The relay: plain JavaScript evaluated in a thread of its own, so it runs while the main thread
 * is stuck in a step. It writes `steps generation timeUs` to the pipe whenever they changed.
 */
const RELAY_SOURCE = `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const counters = new Int32Array(workerData.buffer, 0, 2);
const time = new Float64Array(workerData.buffer, 8, 1);
let last = "";
setInterval(() => {
  const line = Atomics.load(counters, 0) + " " + Atomics.load(counters, 1) + " " + time[0] + "\\n";
  if (line === last) return;
  last = line;
  try { writeSync(workerData.fd, line); } catch {}
}, workerData.periodMs);
`;

let relayStarted = false;

/** In the child: engines publish their steps, and the relay sends them (once per process). */
function startProgressRelay(): void {
  const fdText = process.env[REPLAY_PROGRESS_FD_ENV];
  if (relayStarted || fdText === undefined) return;
  relayStarted = true;
  const fd = Number(fdText);
  const buffer = newProgressBuffer();
  publishProgressInto(buffer);
  try {
    // The heap limit, for the one line that reports running out of it.
    writeSync(fd, `heap ${Math.round(getHeapStatistics().heap_size_limit / 2 ** 20)}\n`);
  } catch {
    return;
  }
  const relay = new Worker(RELAY_SOURCE, { eval: true, workerData: { buffer, fd, periodMs: RELAY_PERIOD_MS } });
  // The relay alone must not keep the child alive once the command is done.
  relay.unref();
}

/** In the child: runs simulated code (a replay) with the parent told before and after it. */
export async function runSimulatedCode<T>(run: () => Promise<T>): Promise<T> {
  // The channel alone must not keep the child alive once the command is done.
  process.channel?.unref();
  startProgressRelay();
  await tellParent(true);
  try {
    return await run();
  } finally {
    await tellParent(false);
  }
}

/**
 * Passes the child's stderr through line by line, except V8's report of a heap exhausted (from
 * its `<--- Last few GCs --->` banner on), which the caller replaces with one line.
 */
class StderrFilter {
  private partial = "";
  /** Blank lines held back: V8 opens its report with one. */
  private blanks = 0;
  outOfMemory = false;

  constructor(private readonly out: NodeJS.WritableStream) {}

  write(chunk: Buffer | string): void {
    const lines = (this.partial + chunk.toString()).split("\n");
    this.partial = lines.pop()!;
    for (const line of lines) this.line(line);
  }

  end(): void {
    if (this.partial.length > 0) this.line(this.partial, false);
    this.partial = "";
  }

  private line(text: string, newline = true): void {
    if (this.outOfMemory) return;
    if (text.includes("<--- Last few GCs --->") || /JavaScript heap out of memory/.test(text)) {
      this.outOfMemory = true;
      return;
    }
    if (text.trim().length === 0 && newline) {
      this.blanks++;
      return;
    }
    this.out.write("\n".repeat(this.blanks) + text + (newline ? "\n" : ""));
    this.blanks = 0;
  }
}

/** Runs this same command in a child process; its output is this one's; killed once no engine step of it started for `limitMs`. */
export function replayInChild(limitMs: number, io: CliIO, extraEnv: NodeJS.ProcessEnv = {}): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    ...io.env,
    ...extraEnv,
    [REPLAY_CHILD_ENV]: "1",
    [REPLAY_PROGRESS_FD_ENV]: String(PROGRESS_FD),
  };
  // The child writes into pipes: keep the colours this terminal would have shown.
  if (colorEnabled(io.stdout, io.env)) env.FORCE_COLOR = "1";
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    cwd: io.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe", "ipc", "pipe"],
  });
  let insideSimulatedCode = false;
  child.on("message", (message: SimulatedCodeMessage) => {
    if (message?.kind === "moonpool-replay-simulated-code") insideSimulatedCode = message.running;
  });
  child.stdout!.pipe(io.stdout, { end: false });
  const stderr = new StderrFilter(io.stderr);
  child.stderr!.on("data", (chunk: Buffer) => stderr.write(chunk));
  child.stderr!.on("end", () => stderr.end());

  let progress: ProgressSnapshot = { steps: 0, generation: 0, timeUs: 0 };
  let heapLimitMb: number | null = null;
  let hung: Hang | null = null;
  const watchdog = new ProgressWatchdog(
    () => progress,
    limitMs,
    (hang) => {
      hung = hang;
      child.kill("SIGKILL");
    },
  );
  let partial = "";
  const progressPipe = child.stdio[PROGRESS_FD] as NodeJS.ReadableStream;
  progressPipe.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      const [first, second, third] = line.split(" ");
      if (first === "heap") heapLimitMb = Number(second);
      else progress = { steps: Number(first), generation: Number(second), timeUs: Number(third) };
    }
  });
  // A termination signal sent to this process alone (not to its process group) reaches the child too.
  const termination = onTermination((signal) => child.kill(signal));
  return new Promise<number>((resolve, reject) => {
    child.on("error", (error) => {
      watchdog.stop();
      reject(error);
    });
    child.on("close", (code, killedBy) => {
      watchdog.stop();
      const signal = termination.received();
      if (signal !== null) return resolve(signalExitCode(signal));
      if (hung !== null) {
        io.stderr.write(
          `moonpool: the replay ${formatHang(hung)} and was stopped: the timeline is stuck in synchronous code ` +
            "or an endless microtask or nextTick chain inside one step " +
            "(raise the limit with --hang-timeout if a single step is only that slow)\n",
        );
        return resolve(EXIT_FAILED);
      }
      if (stderr.outOfMemory && code !== 0) {
        const limit = heapLimitMb === null ? "" : ` (heap limit ${heapLimitMb} MB)`;
        io.stderr.write(`moonpool: the replay ran out of memory${limit} and was stopped\n`);
        return resolve(EXIT_FAILED);
      }
      if (insideSimulatedCode) {
        const how = killedBy !== null ? `was killed by ${killedBy}` : `exited with code ${code}`;
        io.stderr.write(
          `moonpool: the replay's process ${how} while the timeline ran: the simulated code ended it ` +
            "(process.exit or process.abort; in a campaign that fails the seed), so the timeline has no outcome\n",
        );
        return resolve(EXIT_FAILED);
      }
      resolve(code ?? EXIT_FAILED);
    });
  }).finally(() => termination.dispose());
}
