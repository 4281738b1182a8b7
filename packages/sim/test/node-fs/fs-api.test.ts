/**
 * The simulated `node:fs`, API family by API family: synchronous calls complete within the step,
 * callback and promise calls after the disk's latency; FileHandle methods and streams; errors
 * compared field by field with what the real `node:fs` raises for the same calls; real reads of
 * allowed paths; and the real file system outside a seed.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { InvalidConfiguration } from "@moonpool/core";
import { afterAll, describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";
import { fsSeed } from "./support.ts";

const BASE = "/tmp/moonpool-fs-api";

describe("API families", () => {
  it("synchronous calls complete within the step; promise and callback calls take simulated time", async () => {
    const seen: Record<string, unknown> = {};
    const report = await fsSeed(async (ctx) => {
      fs.mkdirSync(`${BASE}/a/b`, { recursive: true });
      const t0 = ctx.time.now();
      fs.writeFileSync(`${BASE}/a/b/sync.txt`, "sync");
      fs.appendFileSync(`${BASE}/a/b/sync.txt`, "+more");
      seen.sync = fs.readFileSync(`${BASE}/a/b/sync.txt`, "utf8");
      seen.syncElapsedMs = ctx.time.now() - t0;
      await fsp.writeFile(`${BASE}/a/p.txt`, Buffer.from("promise"));
      seen.promiseElapsedMs = ctx.time.now() - t0;
      seen.promise = await fsp.readFile(`${BASE}/a/p.txt`, { encoding: "utf8" });
      seen.callback = await new Promise((resolve, reject) =>
        fs.readFile(`${BASE}/a/p.txt`, "utf8", (error, text) => (error ? reject(error) : resolve(text))),
      );
      seen.promisified = (await promisify(fs.readFile)(`${BASE}/a/p.txt`)).toString();
      seen.exists = await new Promise((resolve) => fs.exists(`${BASE}/a`, resolve));
      seen.readdir = fs.readdirSync(BASE, { recursive: true });
      seen.dirents = (await fsp.readdir(`${BASE}/a`, { withFileTypes: true })).map((d) => [d.name, d.isDirectory()]);
      const stat = await fsp.stat(`${BASE}/a/p.txt`);
      seen.stat = [stat.isFile(), stat.isDirectory(), stat.size, stat instanceof fs.Stats];
      seen.noEntry = fs.statSync(`${BASE}/none`, { throwIfNoEntry: false });
      const big = fs.statSync(`${BASE}/a`, { bigint: true });
      seen.bigint = [big.isDirectory(), typeof big.size, big.mtime instanceof Date];
      fs.chmodSync(`${BASE}/a/p.txt`, 0o600);
      await fsp.utimes(`${BASE}/a/p.txt`, 4, 5);
      seen.utimes = fs.statSync(`${BASE}/a/p.txt`).mtimeMs;
      fs.copyFileSync(`${BASE}/a/p.txt`, `${BASE}/copy.txt`);
      fs.truncateSync(`${BASE}/copy.txt`, 3);
      seen.copy = fs.readFileSync(`${BASE}/copy.txt`, "latin1");
      await fsp.rm(`${BASE}/a`, { recursive: true });
      fs.unlinkSync(`${BASE}/copy.txt`);
      seen.afterRm = [fs.existsSync(`${BASE}/a`), fs.readdirSync(BASE)];
      await fsp.access(BASE);
      seen.mkdtemp = fs.mkdtempSync(`${BASE}/t-`).startsWith(`${BASE}/t-`);
    });
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toMatchObject({
      sync: "sync+more",
      syncElapsedMs: 0,
      promise: "promise",
      callback: "promise",
      promisified: "promise",
      exists: true,
      readdir: ["a", "a/b", "a/b/sync.txt", "a/p.txt"],
      dirents: [
        ["b", true],
        ["p.txt", false],
      ],
      stat: [true, false, 7, true],
      noEntry: undefined,
      utimes: 5_000,
      bigint: [true, "bigint", true],
      copy: "pro",
      afterRm: [false, []],
      mkdtemp: true,
    });
    // The default disk: a write takes at least its 100 µs base latency.
    expect(seen.promiseElapsedMs as number).toBeGreaterThanOrEqual(0.1);
  });

  it("descriptors, FileHandle methods and positions behave as Node's", async () => {
    const seen: Record<string, unknown> = {};
    const report = await fsSeed(async () => {
      const fd = fs.openSync("/tmp/fd.bin", "w+");
      seen.written = fs.writeSync(fd, Buffer.from("hello world"));
      const buffer = Buffer.alloc(5);
      seen.readAt = [fs.readSync(fd, buffer, 0, 5, 6), buffer.toString()];
      fs.ftruncateSync(fd, 5);
      fs.fsyncSync(fd);
      fs.fdatasyncSync(fd);
      seen.fstat = fs.fstatSync(fd).size;
      fs.closeSync(fd);
      const handle = await fsp.open("/tmp/fd.bin", "a+");
      await handle.appendFile("!");
      await handle.write(Buffer.from("?"));
      const { bytesRead, buffer: read } = await handle.read(Buffer.alloc(16), 0, 16, 0);
      seen.handle = [handle.fd >= 3, bytesRead, read.subarray(0, bytesRead).toString()];
      await handle.sync();
      await handle.datasync();
      seen.handleStat = (await handle.stat()).size;
      await handle.close();
      seen.closedFd = handle.fd;
      const rw = await fsp.open("/tmp/fd.bin", "r+");
      await rw.truncate(2);
      seen.readFile = [await rw.readFile("utf8"), await fsp.readFile(rw, "utf8")];
      await rw.close();
      seen.callbackRead = await new Promise((resolve, reject) =>
        fs.open("/tmp/fd.bin", "r", (error, f) => {
          if (error) return reject(error);
          fs.read(f, Buffer.alloc(4), 0, 4, 0, (e, n, b) =>
            e ? reject(e) : fs.close(f, () => resolve([n, b.toString("utf8", 0, n)])),
          );
        }),
      );
    });
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toEqual({
      written: 11,
      readAt: [5, "world"],
      fstat: 5,
      handle: [true, 7, "hello!?"],
      handleStat: 7,
      closedFd: -1,
      readFile: ["he", ""],
      callbackRead: [2, "he"],
    });
  });

  it("createWriteStream and createReadStream are Node's streams, on the simulated file", async () => {
    const seen: unknown[] = [];
    const report = await fsSeed(async () => {
      await new Promise<void>((resolve, reject) => {
        const out = fs.createWriteStream("/tmp/stream.log", { flags: "a" });
        out.on("error", reject);
        for (let i = 0; i < 5; i++) out.write(`line ${i}\n`);
        out.end(() => resolve());
      });
      const chunks: string[] = [];
      await new Promise<void>((resolve, reject) =>
        fs
          .createReadStream("/tmp/stream.log", { encoding: "utf8", highWaterMark: 16 })
          .on("data", (chunk) => chunks.push(chunk as string))
          .on("error", reject)
          .on("close", resolve),
      );
      seen.push(chunks.join(""), chunks.length);
      const missing = fs.createReadStream("/tmp/none.log");
      seen.push(await new Promise((resolve) => missing.on("error", (e: NodeJS.ErrnoException) => resolve(e.code))));
    });
    expect(report.failedRuns, report.toString()).toBe(0);
    const text = Array.from({ length: 5 }, (_, i) => `line ${i}\n`).join("");
    expect(seen).toEqual([text, Math.ceil(text.length / 16), "ENOENT"]);
  });
});

/** The same calls on the real file system (outside a seed) and on the simulated one. */
function errorCases(base: string): [string, () => unknown][] {
  const p = (name: string) => path.join(base, name);
  return [
    ["readFile of a missing file", () => fs.readFileSync(p("missing"))],
    ["mkdir of an existing directory", () => fs.mkdirSync(p("dir"))],
    ["readdir of a file", () => fs.readdirSync(p("file"))],
    ["readFile of a directory", () => fs.readFileSync(p("dir"))],
    ["open below a file", () => fs.openSync(p("file/x"), "r")],
    ["close of a bad descriptor", () => fs.closeSync(9_999)],
    ["unlink of a directory", () => fs.unlinkSync(p("dir"))],
    ["rmdir of a file", () => fs.rmdirSync(p("file"))],
    ["rmdir of a non-empty directory", () => fs.rmdirSync(base)],
    ["rename of a missing file", () => fs.renameSync(p("missing"), p("other"))],
    ["exclusive open of an existing file", () => fs.openSync(p("file"), "wx")],
    ["stat of a missing file", () => fs.statSync(p("missing"))],
    ["writeFile to a directory", () => fs.writeFileSync(p("dir"), "x")],
    ["rm of a directory without recursive", () => fs.rmSync(p("dir"))],
    ["mkdir below a missing directory", () => fs.mkdirSync(p("none/dir"))],
    ["chmod of a missing file", () => fs.chmodSync(p("missing"), 0o600)],
    ["utimes of a missing file", () => fs.utimesSync(p("missing"), 1, 1)],
  ];
}

function errorFields(error: unknown, base: string): Record<string, unknown> {
  const e = error as NodeJS.ErrnoException & { dest?: string };
  const local = (s: string | undefined) => s?.split(base).join("<base>");
  return {
    code: e.code,
    errno: e.errno,
    syscall: e.syscall,
    path: local(e.path),
    dest: local(e.dest),
    message: local(e.message),
  };
}

function collect(base: string, prepare: () => void): Record<string, unknown>[] {
  prepare();
  return errorCases(base).map(([name, call]) => {
    try {
      call();
      return { name, threw: false };
    } catch (error) {
      return { name, ...errorFields(error, base) };
    }
  });
}

describe("errors as Node's", () => {
  const realBase = fs.mkdtempSync(path.join(os.tmpdir(), "moonpool-fs-errors-"));
  afterAll(() => fs.rmSync(realBase, { recursive: true, force: true }));
  const prepare = (base: string) => () => {
    fs.mkdirSync(path.join(base, "dir"), { recursive: true });
    fs.writeFileSync(path.join(base, "file"), "x");
  };

  it("codes, errno, syscall, path and message match the real node:fs for the same calls", async () => {
    const real = collect(realBase, prepare(realBase));
    let simulated: Record<string, unknown>[] = [];
    const simBase = "/tmp/moonpool-fs-errors";
    const report = await fsSeed(() => {
      simulated = collect(simBase, prepare(simBase));
    });
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(simulated).toEqual(real);
    expect(real.every((r) => r.threw !== false)).toBe(true);
  });

  it("asynchronous forms reject and call back with the same errors", async () => {
    let seen: unknown[] = [];
    const report = await fsSeed(async () => {
      const promise = await fsp.readFile("/tmp/missing").catch((e) => errorFields(e, "/tmp"));
      const callback = await new Promise((resolve) =>
        fs.rename("/tmp/missing", "/tmp/b", (e) => resolve(errorFields(e, "/tmp"))),
      );
      seen = [promise, callback];
    });
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toEqual([
      {
        code: "ENOENT",
        errno: -2,
        syscall: "open",
        path: "<base>/missing",
        dest: undefined,
        message: "ENOENT: no such file or directory, open '<base>/missing'",
      },
      {
        code: "ENOENT",
        errno: -2,
        syscall: "rename",
        path: "<base>/missing",
        dest: "<base>/b",
        message: "ENOENT: no such file or directory, rename '<base>/missing' -> '<base>/b'",
      },
    ]);
  });
});

describe("real reads of allowed paths", () => {
  const fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), "moonpool-fs-real-"));
  fs.writeFileSync(path.join(fixtureDir, "fixture.json"), '{"real":true}');
  afterAll(() => fs.rmSync(fixtureDir, { recursive: true, force: true }));
  const lowdbManifest = path.resolve("node_modules/lowdb/package.json");

  it("node_modules and realReadPaths read the real disk, synchronously and asynchronously; writing there is EROFS", async () => {
    const seen: unknown[] = [];
    const report = await fsSeed(
      async () => {
        seen.push(JSON.parse(fs.readFileSync(lowdbManifest, "utf8")).name);
        seen.push(JSON.parse(await fsp.readFile(lowdbManifest, "utf8")).version);
        seen.push(fs.readFileSync(path.join(fixtureDir, "fixture.json"), "utf8"));
        seen.push(fs.existsSync(path.join(fixtureDir, "fixture.json")));
        seen.push(await fsp.writeFile(path.join(fixtureDir, "new.json"), "x").catch((e) => e.code));
      },
      { fs: { realReadPaths: [fixtureDir] } },
    );
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toEqual(["lowdb", "7.0.1", '{"real":true}', true, "EROFS"]);
    expect(fs.existsSync(path.join(fixtureDir, "new.json"))).toBe(false);
  });

  it("off: a path not allowed is the simulated disk's (the real file is not seen)", async () => {
    let seen: unknown;
    const report = await fsSeed(() => {
      seen = fs.existsSync(path.join(fixtureDir, "fixture.json"));
    });
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(seen).toBe(false);
  });

  it("outside a seed node:fs is the real one, and nodeFs() without nodeRuntime() is refused", () => {
    const file = path.join(fixtureDir, "outside.txt");
    fs.writeFileSync(file, "real");
    expect(fs.readFileSync(file, "utf8")).toBe("real");
    const builder = new SimulationBuilder().workload({ name: "w", run: async (_ctx: SimContext) => {} }).nodeFs();
    expect(() => builder.build()).toThrow(InvalidConfiguration);
    expect(() => builder.build()).toThrow("nodeFs() needs nodeRuntime()");
  });
});
