/** Spawning the real `moonpool` binary on the fixture simulations. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
export const BIN = fileURLToPath(new URL("../../bin/moonpool.mjs", import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Plain output: no colours, no live display (CI mode). */
export const PLAIN_ENV = { NO_COLOR: "1", CI: "true", FORCE_COLOR: "" };

export interface StartedCli {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
  readonly output: () => { stdout: string; stderr: string };
  /**
   * Resolves with the first match of `pattern` in stderr as soon as it is printed; rejects, naming
   * what it waited for, if the command ends first. No clock: the test's backstop bounds a hang.
   */
  readonly stderrMatch: (pattern: RegExp) => Promise<RegExpExecArray>;
}

export interface CliOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** `stdin: true`: a pipe the test writes keys into (moonpool run --watch). */
  readonly stdin?: boolean;
  /** "default": run with the command's own isolation instead of the tests' shared realms (below). */
  readonly isolation?: "default";
}

/**
 * A test's `moonpool run` shares realms between seeds unless it names an isolation itself or asks
 * for the default: a fresh realm per seed costs about a third of a second of CPU, most of what the
 * CLI tests cost, and only the tests whose subject is isolation, replay checks or lost workers
 * need one (they pass `isolation: "default"`; docs/decisions.md D51).
 */
function withTestIsolation(args: readonly string[], options: CliOptions): readonly string[] {
  if (args[0] !== "run" || options.isolation === "default") return args;
  if (args.some((a) => a === "--isolation" || a.startsWith("--isolation=") || a === "--help")) return args;
  return [...args, "--isolation", "shared"];
}

export function startCli(args: readonly string[], options: CliOptions = {}): StartedCli {
  const child = spawn(process.execPath, [BIN, ...withTestIsolation(args, options)], {
    cwd: options.cwd ?? FIXTURES,
    env: { ...process.env, ...PLAIN_ENV, ...options.env },
    stdio: [options.stdin === true ? "pipe" : "ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const stderrMatch = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stderr);
        if (match === null) return false;
        child.stderr!.off("data", check);
        resolve(match);
        return true;
      };
      if (check()) return;
      child.stderr!.on("data", check);
      done.then(
        (r) =>
          check() || reject(new Error(`the command ended (code ${r.code}) before printing ${pattern}:\n${r.stderr}`)),
        reject,
      );
    });
  return { child, done, output: () => ({ stdout, stderr }), stderrMatch };
}

/**
 * A 100,000-seed campaign of the `slow` fixture on 2 workers, to be stopped by a signal once its
 * first plain progress line (seeds already absorbed) is printed: `firstProgress` resolves with the
 * count of finished seeds that line gives.
 */
export function startSlowCampaign(
  reporters: string,
  out: string,
): StartedCli & { firstProgress: () => Promise<number> } {
  const started = startCli(
    ["run", "slow", "--iterations", "100000", "--base-seed", "1", "--workers", "2"].concat([
      "--reporter",
      reporters,
      "--out",
      out,
    ]),
  );
  const firstProgress = async () =>
    Number((await started.stderrMatch(/slow {2}(\d[\d,]*)\/100,000 seeds/))[1]!.replaceAll(",", ""));
  return { ...started, firstProgress };
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `moonpool-${prefix}-`));
}

export async function readJson(file: string): Promise<any> {
  return JSON.parse(await readFile(file, "utf8"));
}

/**
 * The report without its wall-clock and machine fields (documented in run-report.ts and the
 * schema): `host`, and every `wallTimeMs` / `totalWallTimeMs`.
 */
export function withoutWallClock(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutWallClock);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "host" && key !== "wallTimeMs" && key !== "totalWallTimeMs")
        .map(([key, v]) => [key, withoutWallClock(v)]),
    );
  }
  return value;
}
