/**
 * Where a failure happened in the user's code: the first stack frame outside moonpool and outside
 * node_modules, and a short code frame around it. Stacks arrive source-mapped (tsx enables source
 * maps), so the line and column are those of the TypeScript file.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * This package's and @moonpool/core's `src/` and `dist/` (the repository can run compiled, and
 * compiled frames are source-mapped back to `src/`): frames there are the library, not the user.
 */
const PACKAGES_DIR = path.dirname(path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url)))));
const LIBRARY_DIRS: readonly string[] = ["sim", "core"]
  .flatMap((pkg) => ["src", "dist"].map((layout) => path.join(PACKAGES_DIR, pkg, layout)))
  .map((dir) => dir + path.sep);

// `    at fn (/abs/file.ts:12:5)`, `    at /abs/file.ts:12:5`, `    at async fn (file:///abs/file.ts:12:5)`.
const FRAME = /^\s*at (?:.*\()?(.+?):(\d+):(\d+)\)?\s*$/;

function frameLocation(line: string): SourceLocation | null {
  const match = FRAME.exec(line);
  if (match === null) return null;
  let file = match[1]!;
  if (file.startsWith("file://")) {
    try {
      file = fileURLToPath(file);
    } catch {
      return null;
    }
  }
  if (!path.isAbsolute(file)) return null;
  return { file, line: Number(match[2]), column: Number(match[3]) };
}

function isUserFile(file: string): boolean {
  if (file.includes(`${path.sep}node_modules${path.sep}`)) return false;
  return !LIBRARY_DIRS.some((dir) => file.startsWith(dir));
}

/** The first frame of `stack` in user code, or null (no stack, or only library frames). */
export function userLocation(stack: string | undefined): SourceLocation | null {
  if (stack === undefined) return null;
  for (const line of stack.split("\n")) {
    const location = frameLocation(line);
    if (location !== null && isUserFile(location.file)) return location;
  }
  return null;
}

/** The stack's frames from the first user frame on (what a test runner should point at). */
export function userFrames(stack: string | undefined): string[] {
  if (stack === undefined) return [];
  const lines = stack.split("\n");
  const first = lines.findIndex((line) => {
    const location = frameLocation(line);
    return location !== null && isUserFile(location.file);
  });
  return first < 0 ? [] : lines.slice(first).filter((line) => frameLocation(line) !== null || /^\s*at /.test(line));
}

/** `file:line:column`, the file relative to `root` when it lies under it. */
export function formatLocation(location: SourceLocation, root: string = process.cwd()): string {
  const relative = path.relative(root, location.file);
  const shown =
    relative.startsWith("..") || path.isAbsolute(relative) ? location.file : relative.split(path.sep).join("/");
  return `${shown}:${location.line}:${location.column}`;
}

/**
 * Lines around the location, numbered, the failing line marked with `>` and a caret under its
 * column; empty when the file cannot be read (e.g. a report read on another machine).
 */
export function codeFrame(location: SourceLocation, contextLines = 1): string[] {
  let lines: string[];
  try {
    lines = readFileSync(location.file, "utf8").split(/\r?\n/);
  } catch {
    return [];
  }
  if (location.line < 1 || location.line > lines.length) return [];
  const from = Math.max(1, location.line - contextLines);
  const to = Math.min(lines.length, location.line + contextLines);
  const width = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const text = lines[n - 1]!.replace(/\t/g, "  ");
    out.push(`${n === location.line ? ">" : " "} ${String(n).padStart(width)} | ${text}`.trimEnd());
    if (n === location.line) out.push(`  ${" ".repeat(width)} | ${" ".repeat(Math.max(0, location.column - 1))}^`);
  }
  return out;
}
