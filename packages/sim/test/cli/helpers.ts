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

export function startCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): { child: ChildProcess; done: Promise<CliResult>; output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? FIXTURES,
    env: { ...process.env, ...PLAIN_ENV, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, output: () => ({ stdout, stderr }) };
}

export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
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
