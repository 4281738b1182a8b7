/**
 * The storage fault families reach code through `node:fs` (each on, and off in the baseline);
 * `ENOSPC` from a machine's capacity; the same seed twice gives the same trace hash and two seeds
 * differ; every seed starts from a fresh disk (seed isolation).
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DEFAULT_STORAGE_CONFIG, type StorageConfig } from "../../src/index.ts";
import { crashScenario, fsSeed } from "./support.ts";

const TEXT = "the quick brown fox jumps over the lazy dog\n".repeat(20);

async function readBack(storage: StorageConfig): Promise<string> {
  let back = "";
  const report = await fsSeed(
    async () => {
      await fsp.writeFile("/tmp/data.txt", TEXT);
      back = await fsp.readFile("/tmp/data.txt", "latin1");
    },
    { storage },
  );
  expect(report.failedRuns, report.toString()).toBe(0);
  return back;
}

describe("storage faults through node:fs", () => {
  it("sync failure: fsync of a file and of a directory fails with Node's EIO; off in the baseline", async () => {
    const attempt = (storage: StorageConfig) => {
      const seen: unknown[] = [];
      return fsSeed(
        () => {
          for (const [target, flags] of [
            ["/tmp/f", "w"],
            ["/tmp", "r"],
          ] as const) {
            const fd = fs.openSync(target, flags);
            try {
              fs.fsyncSync(fd);
              seen.push("synced");
            } catch (error) {
              const e = error as NodeJS.ErrnoException;
              seen.push([e.code, e.errno, e.syscall, e.message]);
            }
            fs.closeSync(fd);
          }
        },
        { storage },
      ).then(() => seen);
    };
    const eio = ["EIO", -5, "fsync", "EIO: i/o error, fsync"];
    expect(await attempt({ ...DEFAULT_STORAGE_CONFIG, syncFailureProbability: 1 })).toEqual([eio, eio]);
    expect(await attempt(DEFAULT_STORAGE_CONFIG)).toEqual(["synced", "synced"]);
  });

  it("read corruption and phantom writes change what readFile returns; off, it returns what was written", async () => {
    const corrupted = await readBack({ ...DEFAULT_STORAGE_CONFIG, readFaultProbability: 1 });
    expect(corrupted).toHaveLength(TEXT.length);
    expect(corrupted).not.toBe(TEXT);
    const phantom = await readBack({ ...DEFAULT_STORAGE_CONFIG, phantomWriteProbability: 1 });
    expect(phantom).toHaveLength(TEXT.length);
    expect(phantom).not.toBe(TEXT);
    expect(await readBack(DEFAULT_STORAGE_CONFIG)).toBe(TEXT);
  });

  it("a stall delays asynchronous calls by its duration; synchronous ones still complete within the step", async () => {
    const elapsed = async (storage: StorageConfig) => {
      const seen: number[] = [];
      await fsSeed(
        async (ctx) => {
          const t0 = ctx.time.now();
          fs.writeFileSync("/tmp/s", "x");
          seen.push(ctx.time.now() - t0);
          await fsp.writeFile("/tmp/s", "y");
          seen.push(ctx.time.now() - t0);
        },
        { storage },
      );
      return seen;
    };
    const stalled = await elapsed({ ...DEFAULT_STORAGE_CONFIG, stallProbability: 1, stallDurationUs: 80_000 });
    expect(stalled[0]).toBe(0);
    expect(stalled[1]).toBeGreaterThanOrEqual(80);
    const calm = await elapsed(DEFAULT_STORAGE_CONFIG);
    expect(calm[1]).toBeLessThan(5);
  });

  it("a machine's capacity: writes past it fail with ENOSPC; without one they do not", async () => {
    const write = async (capacityBytes?: number) => {
      let outcome: unknown = "written";
      await fsSeed(
        () => {
          try {
            fs.writeFileSync("/tmp/big", Buffer.alloc(4_096));
          } catch (error) {
            const e = error as NodeJS.ErrnoException;
            outcome = [e.code, e.syscall, e.message];
          }
        },
        { fs: capacityBytes === undefined ? {} : { capacityBytes } },
      );
      return outcome;
    };
    expect(await write(1_024)).toEqual(["ENOSPC", "write", "ENOSPC: no space left on device, write"]);
    expect(await write()).toBe("written");
  });
});

describe("determinism and seed isolation", () => {
  const CHAOTIC: StorageConfig = {
    ...DEFAULT_STORAGE_CONFIG,
    crashFaultProbability: 0.5,
    readFaultProbability: 0.01,
    writeFaultProbability: 0.01,
    syncFailureProbability: 0.1,
  };
  const busy = async () => {
    for (let i = 0; i < 40; i++) {
      const name = `/tmp/f${Math.floor(Math.random() * 5)}`;
      await fsp.appendFile(name, `${i}:${Math.random()}\n`);
      if (Math.random() < 0.3) {
        const handle = await fsp.open(name, "r+");
        await handle.sync().catch(() => {});
        await handle.close();
      }
      if (Math.random() < 0.2) await fsp.rename(name, `/tmp/r${i}`);
      if (Math.random() < 0.3) {
        const dir = await fsp.open("/tmp", "r");
        await dir.sync().catch(() => {});
        await dir.close();
      }
    }
  };
  const survey = () => fs.readdirSync("/tmp").map((f) => `${f}:${fs.statSync(`/tmp/${f}`).size}`);

  it("the same seed twice gives the same trace hash and the same surviving files; two seeds differ", async () => {
    const a = await crashScenario(busy, survey, CHAOTIC, 21);
    const b = await crashScenario(busy, survey, CHAOTIC, 21);
    const c = await crashScenario(busy, survey, CHAOTIC, 22);
    expect(a.report.failedRuns, a.report.toString()).toBe(0);
    expect(b.report.seeds[0]!.traceHash).toBe(a.report.seeds[0]!.traceHash);
    expect(a.after?.length).toBeGreaterThan(0);
    expect(b.after).toEqual(a.after);
    expect(c.report.seeds[0]!.traceHash).not.toBe(a.report.seeds[0]!.traceHash);
  });

  it("every seed starts from a fresh disk: a seed after another gives the hash it gives alone", async () => {
    const seen: boolean[] = [];
    const marker = async () => {
      seen.push(fs.existsSync("/tmp/marker"));
      await fsp.writeFile("/tmp/marker", String(Math.random()));
      fs.openSync("/tmp/marker", "r");
    };
    const both = await fsSeed(marker, { seeds: [31, 32] });
    const alone = await fsSeed(marker, { seeds: [32] });
    expect(seen).toEqual([false, false, false]);
    expect(alone.seeds[0]!.traceHash).toBe(both.seeds[1]!.traceHash);
  });
});
