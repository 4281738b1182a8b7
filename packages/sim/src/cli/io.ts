/** Where a command reads and writes: the real process by default, replaceable in tests. */
export interface CliIO {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

export function processIO(): CliIO {
  return { cwd: process.cwd(), env: process.env, stdout: process.stdout, stderr: process.stderr };
}
