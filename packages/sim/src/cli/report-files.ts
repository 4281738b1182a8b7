/**
 * How the CLI writes its report files: into a temporary file in the target's folder, renamed over
 * the final name once complete, so a full disk or a crash mid-write never leaves a truncated
 * report under its final name (a rename within one folder is atomic on POSIX file systems). A
 * write that fails is a `ReportWriteError`: one line naming the file and the errno, exit 74.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { ReportWriteError } from "./errors.ts";

/** Bytes handed to one `write` call: a report is written as it is produced, not built whole. */
const WRITE_BATCH_CHARS = 1 << 20;

/** What a report is made of: one string, or pieces written in batches (a report may exceed V8's longest string). */
export type ReportContent = string | Iterable<string>;

function errnoText(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const reason = e.message?.replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/, "") ?? String(error);
  return typeof e.code === "string" ? `${e.code} (${reason})` : reason;
}

/** The error to report for `file`: a `ReportWriteError` naming it, or `error` itself when it is not an I/O error. */
export function reportWriteError(file: string, error: unknown, what = "cannot write"): unknown {
  if (error instanceof ReportWriteError) return error;
  const e = error as NodeJS.ErrnoException | null;
  if (typeof e?.code !== "string" || !/^E[A-Z0-9]+$/.test(e.code)) return error;
  // A library's own write names its file in the error; `file` is then only the folder it wrote in.
  const named = typeof e.path === "string" && e.path.startsWith(file) ? e.path : file;
  return new ReportWriteError(`${what} ${named}: ${errnoText(error)}`, { cause: error });
}

/**
 * `mkdir -p`, one level at a time. `mkdir(dir, { recursive: true })` never returns for a path
 * under /proc on Linux (the kernel answers ENOENT for a parent that exists, and Node retries).
 */
export async function ensureDir(dir: string): Promise<void> {
  const absolute = path.resolve(dir);
  try {
    await mkdir(absolute);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      if ((await stat(absolute)).isDirectory()) return;
      throw reportWriteError(absolute, error, "cannot create the folder");
    }
    const parent = path.dirname(absolute);
    if (code !== "ENOENT" || parent === absolute) throw reportWriteError(absolute, error, "cannot create the folder");
    await ensureDir(parent);
  }
  try {
    await mkdir(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST")
      throw reportWriteError(absolute, error, "cannot create the folder");
  }
}

async function writeContent(handle: FileHandle, content: ReportContent): Promise<void> {
  if (typeof content === "string") {
    await handle.writeFile(content);
    return;
  }
  let batch: string[] = [];
  let size = 0;
  for (const piece of content) {
    batch.push(piece);
    size += piece.length;
    if (size >= WRITE_BATCH_CHARS) {
      await handle.writeFile(batch.join(""));
      batch = [];
      size = 0;
    }
  }
  if (batch.length > 0) await handle.writeFile(batch.join(""));
}

/**
 * Writes `content` to `target` atomically (creating its folder): the final name holds either the
 * previous file or the complete new one. An I/O error throws a `ReportWriteError` naming `target`.
 */
export async function writeReportFile(target: string, content: ReportContent): Promise<void> {
  const dir = path.dirname(target);
  await ensureDir(dir);
  const temporary = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let handle: FileHandle | null = null;
  try {
    handle = await open(temporary, "wx");
    await writeContent(handle, content);
    // On disk before the rename, so a power cut cannot leave the final name pointing at nothing.
    await handle.sync();
    await handle.close();
    handle = null;
    await rename(temporary, target);
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw reportWriteError(target, error);
  }
}
