/**
 * `moonpool run --watch`: runs the selected simulations, then again whenever a file they run
 * changes (the simulation files and their local imports, transitively, and the config file), or
 * when a key asks: `a` or Enter reruns all, `f` reruns the failed seeds, `q` quits. Each run is a
 * fresh `moonpool run` process: its module cache, its tsx transforms and its workers all start
 * from the files as they are now, so no run sees code an earlier one loaded. The run writes its
 * report for the watcher (`--watch-report`): the files to watch are those of the simulations it
 * ran, and `f` reruns its failing seeds with `--seeds-from`. Exit status: the last run's after
 * `q`; 130 / 143 / 129 for SIGINT (Ctrl-C) / SIGTERM / SIGHUP, after the run under way stops.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { colorsFor } from "../colors.ts";
import { loadConfig, type ResolvedConfig } from "../config-file.ts";
import { simulationFiles } from "../discovery.ts";
import { EXIT_PASSED } from "../errors.ts";
import type { CliIO } from "../io.ts";
import { readRunReport, type RunReportFile } from "../run-report.ts";
import { onTermination, signalExitCode, TERMINATION_SIGNALS, type TerminationSignal } from "../termination.ts";
import { FileWatcher } from "../watch/file-watcher.ts";
import { localImports } from "../watch/import-graph.ts";

export interface WatchPlan {
  readonly filters: readonly string[];
  /** The options the user gave, without `--watch`: a run of everything selected. */
  readonly allArgs: readonly string[];
  /** The given options that do not choose seeds: a rerun of the failed seeds adds `--seeds-from`. */
  readonly failedArgs: readonly string[];
  readonly config?: string;
}

export const WATCH_KEYS_HELP = "press a or Enter to rerun all, f to rerun the failed seeds, q to quit";

type Trigger =
  | { readonly kind: "all" }
  | { readonly kind: "failed" }
  | { readonly kind: "change"; readonly files: readonly string[] }
  | { readonly kind: "quit"; readonly signal: TerminationSignal | null };

/** The key's trigger, or null for a key that does nothing. */
export function keyTrigger(key: string): Trigger | null {
  if (key === "a" || key === "\r" || key === "\n") return { kind: "all" };
  if (key === "f") return { kind: "failed" };
  if (key === "q") return { kind: "quit", signal: null };
  // Ctrl-C in raw mode arrives as a key, not as a signal.
  if (key === "\u0003") return { kind: "quit", signal: "SIGINT" };
  return null;
}

/** Triggers that came while a run was under way make one: a quit wins, then a rerun of all. */
function coalesce(triggers: readonly Trigger[]): Trigger {
  const quit = triggers.find((t) => t.kind === "quit");
  if (quit !== undefined) return quit;
  if (triggers.some((t) => t.kind === "all")) return { kind: "all" };
  const changed = [...new Set(triggers.flatMap((t) => (t.kind === "change" ? t.files : [])))].sort();
  return changed.length > 0 ? { kind: "change", files: changed } : { kind: "failed" };
}

function failingSeeds(report: RunReportFile | null): number {
  return (report?.simulations ?? []).reduce((n, s) => n + new Set(s.report.seedsFailing as number[]).size, 0);
}

/** The simulation files the last run ran (or failed to load), else every file the globs match; their local imports; the config. */
async function filesToWatch(report: RunReportFile | null, config: ResolvedConfig): Promise<string[]> {
  const fromReport =
    report === null
      ? []
      : [...report.simulations.map((s) => s.file), ...(report.loadFailures ?? []).map((f) => f.file)].map((f) =>
          path.resolve(config.rootDir, f),
        );
  const entries = fromReport.length > 0 ? fromReport : await simulationFiles(config);
  // The project's own files: a package linked from elsewhere is not what the user edits here.
  const inside = (file: string) => !path.relative(config.rootDir, file).startsWith("..");
  const files = (await localImports(entries, config.rootDir)).filter(inside);
  if (config.configFile !== null) files.push(config.configFile);
  return [...new Set(files)].sort();
}

export async function runWatch(plan: WatchPlan, io: CliIO, stdin: NodeJS.ReadStream): Promise<number> {
  const config = await loadConfig(io.cwd, plan.config);
  const c = colorsFor(io.stderr);
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "moonpool-watch-"));
  const reportFile = path.join(stateDir, "report.json");
  const failedFile = path.join(stateDir, "failed.json");
  const queue: Trigger[] = [];
  let wake: (() => void) | null = null;
  let child: ChildProcess | null = null;
  const push = (trigger: Trigger) => {
    // A quit stops the run under way; it is written up as the child's own interruption.
    if (trigger.kind === "quit" && child !== null) child.kill(trigger.signal ?? "SIGINT");
    queue.push(trigger);
    wake?.();
  };
  const next = async (): Promise<Trigger> => {
    while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
    return coalesce(queue.splice(0));
  };
  const watcher = new FileWatcher((files) => push({ kind: "change", files }));
  const onKeys = (data: Buffer | string) => {
    for (const key of data.toString()) {
      const trigger = keyTrigger(key);
      if (trigger !== null) push(trigger);
    }
  };
  const raw = stdin.isTTY === true;
  if (raw) stdin.setRawMode(true);
  stdin.on("data", onKeys);
  stdin.resume();
  // The run is in a process group of its own: a signal reaches it once, from here. A second
  // signal quits this process at once, and must not leave the run going on its own.
  const termination = onTermination((signal) => push({ kind: "quit", signal }));
  const killRun = () => child?.kill("SIGKILL");
  process.on("exit", killRun);

  /** One `moonpool run`, its exit status; its report (or null) for the next watch. */
  const runOnce = async (args: readonly string[]): Promise<{ code: number; report: RunReportFile | null }> => {
    await rm(reportFile, { force: true });
    const started = spawn(
      process.execPath,
      [...process.execArgv, process.argv[1]!, "run", "--watch-report", reportFile, ...args],
      { cwd: io.cwd, env: io.env, stdio: ["ignore", "inherit", "inherit"], detached: true },
    );
    child = started;
    const code = await new Promise<number>((resolve) => {
      started.on("error", () => resolve(1));
      started.on("close", (exit, signal) =>
        resolve(
          exit ??
            (signal !== null && (TERMINATION_SIGNALS as readonly string[]).includes(signal)
              ? signalExitCode(signal as TerminationSignal)
              : 1),
        ),
      );
    });
    child = null;
    return { code, report: await readRunReport(reportFile).catch(() => null) };
  };

  const relative = (file: string) => path.relative(io.cwd, file) || file;
  let code = EXIT_PASSED;
  let report: RunReportFile | null = null;
  let trigger: Trigger = { kind: "all" };
  let first = true;
  try {
    for (;;) {
      if (trigger.kind === "quit") return trigger.signal === null ? code : signalExitCode(trigger.signal);
      const filters = plan.filters.length > 0 ? ["--", ...plan.filters] : [];
      if (trigger.kind === "failed") {
        const seeds = failingSeeds(report);
        if (report === null || seeds === 0) {
          io.stderr.write(`no failing seeds in the last run: nothing to rerun (a or Enter reruns all)\n`);
        } else {
          io.stderr.write(`\n${c.bold("rerun")}: the ${seeds === 1 ? "failing seed" : `${seeds} failing seeds`}\n`);
          await copyFile(reportFile, failedFile);
          ({ code, report } = await runOnce([...plan.failedArgs, "--seeds-from", failedFile, ...filters]));
        }
      } else {
        if (!first)
          io.stderr.write(
            `\n${c.bold("rerun")}: ${trigger.kind === "change" ? `changed ${trigger.files.map(relative).join(", ")}` : "all"}\n`,
          );
        first = false;
        ({ code, report } = await runOnce([...plan.allArgs, ...filters]));
      }
      if (queue.some((t) => t.kind === "quit")) {
        trigger = await next();
        continue;
      }
      watcher.watch(await filesToWatch(report, config));
      const status = code === EXIT_PASSED ? c.green("PASS") : c.red("FAIL");
      io.stderr.write(
        `\n${status} waiting for file changes (${watcher.watchedFiles} files: the simulations, their local imports, the config)\n${WATCH_KEYS_HELP}\n`,
      );
      trigger = await next();
    }
  } finally {
    watcher.close();
    termination.dispose();
    process.off("exit", killRun);
    stdin.off("data", onKeys);
    if (raw) stdin.setRawMode(false);
    stdin.pause();
    await rm(stateDir, { recursive: true, force: true });
  }
}
