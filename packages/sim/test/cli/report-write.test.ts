/**
 * Report files are written atomically (a temporary file in the same folder, renamed over the
 * final name): a full disk or any other I/O error is one line naming the file and the errno, exit
 * 74 (not 1, which says a seed failed), and never a half-written report under its final name.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT_IO, ReportWriteError } from "../../src/cli/errors.ts";
import { ensureDir, writeReportFile } from "../../src/cli/report-files.ts";
import { runCli, tempDir } from "./helpers.ts";

/** An error as `write(2)` raises it when the disk is full. */
function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 });
}

/** The `moonpool:` lines of stderr that report a file that could not be written. */
const writeErrorLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("moonpool: cannot write"));

describe("writeReportFile", () => {
  it("replaces the file only once the new content is complete", async () => {
    const dir = await tempDir("atomic");
    const target = path.join(dir, "report.json");
    await writeReportFile(target, ["{", '"a": 1', "}\n"]);
    expect(await readFile(target, "utf8")).toBe('{"a": 1}\n');
    await writeReportFile(target, "second\n");
    expect(await readFile(target, "utf8")).toBe("second\n");
    expect(await readdir(dir)).toEqual(["report.json"]);
  });

  it("a write failing midway leaves the previous file under the final name and no temporary file", async () => {
    const dir = await tempDir("atomic-fail");
    const target = path.join(dir, "report.json");
    await writeFile(target, "the previous report\n");
    function* pieces(): Generator<string> {
      yield "x".repeat(2 << 20); // past one write batch: some bytes reached the temporary file
      throw enospc();
    }
    const failure = await writeReportFile(target, pieces()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReportWriteError);
    expect((failure as ReportWriteError).exitCode).toBe(EXIT_IO);
    expect((failure as Error).message).toBe(`cannot write ${target}: ENOSPC (no space left on device, write)`);
    expect(await readFile(target, "utf8")).toBe("the previous report\n");
    expect(await readdir(dir)).toEqual(["report.json"]);
  });

  it("a folder under /proc is refused, not waited on forever", async () => {
    if (!existsSync("/proc/self")) return; // no procfs on this system: nothing that could hang
    const failure = await ensureDir("/proc/moonpool-x/y").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReportWriteError);
    expect((failure as Error).message).toMatch(/^cannot create the folder \/proc\/moonpool-x: ENOENT/);
  });
});

describe("moonpool run with a report it cannot write", () => {
  const mounted: string[] = [];
  afterAll(() => {
    for (const dir of mounted) execFileSync("umount", [dir]);
  });

  it("--out under /proc: a usage error before any seed runs", async () => {
    const result = await runCli(["run", "counter", "--iterations", "2", "--reporter", "json", "--out", "/proc/x"]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain("--out '/proc/x': cannot write reports there (ENOENT");
  });

  it("a report name taken by a folder: one line naming the file and the errno, exit 74; the other reports are written", async () => {
    const out = await tempDir("unwritable");
    await mkdir(path.join(out, "report.html", "in-the-way"), { recursive: true });
    const result = await runCli([
      "run",
      "counter",
      "--iterations",
      "3",
      "--base-seed",
      "1",
      "--reporter",
      "json,junit,html",
      "--out",
      out,
    ]);
    expect(result.code, result.stderr).toBe(EXIT_IO);
    const lines = writeErrorLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^moonpool: cannot write ${path.join(out, "report.html")}: E[A-Z]+ \\(`));
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(JSON.parse(await readFile(path.join(out, "report.json"), "utf8")).simulations[0].name).toBe("counter");
    expect(await readFile(path.join(out, "junit.xml"), "utf8")).toContain("</testsuites>");
    expect((await readdir(out)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("a full disk (a 16 KiB tmpfs): one line naming the file and ENOSPC, exit 74, no truncated file", async (context) => {
    if (process.getuid?.() !== 0) return context.skip("mounting a tmpfs needs root");
    const out = await tempDir("full-disk");
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", out], { stdio: "pipe" });
    } catch (error) {
      await rm(out, { recursive: true, force: true });
      return context.skip(`mount -t tmpfs failed here: ${(error as Error).message.split("\n")[0]}`);
    }
    mounted.push(out);
    // The campaign page is about 30 KiB: it cannot fit, the smaller reports may.
    const result = await runCli([
      "run",
      "planted-bug",
      "--iterations",
      "4",
      "--base-seed",
      "1",
      "--reporter",
      "json,junit,html",
      "--out",
      out,
    ]);
    expect(result.code, result.stderr).toBe(EXIT_IO);
    const lines = writeErrorLines(result.stderr);
    expect(lines.length, result.stderr).toBeGreaterThanOrEqual(1);
    for (const line of lines) expect(line).toMatch(new RegExp(`^moonpool: cannot write ${out}/\\S+: ENOSPC \\(`));
    expect(lines.some((l) => l.includes(`${out}/report.html:`) || l.includes(`${out}/timeline-`))).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Whatever is under a final name is complete; nothing temporary is left.
    const files = await readdir(out);
    expect(files.filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(files).not.toContain("report.html");
    if (files.includes("report.json")) JSON.parse(await readFile(path.join(out, "report.json"), "utf8"));
    if (files.includes("junit.xml"))
      expect(await readFile(path.join(out, "junit.xml"), "utf8")).toMatch(/<\/testsuites>\n$/);
  });
});
