/**
 * The simulated `node:fs` is durable only after `fsync`: a crash loses unsynced file data, and
 * creates and renames until their directory is synced too. Shown with every unsynced change lost
 * at the crash (on) and with the baseline, where a crash keeps them (off).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_STORAGE_CONFIG, type SimContext } from "../../src/index.ts";
import { crashScenario } from "./support.ts";

const DIR = process.cwd();
const FILE = path.join(DIR, "state.json");

function writeSynced(file: string, text: string, syncDir: boolean): void {
  const fd = fs.openSync(file, "w");
  fs.writeSync(fd, text);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  if (syncDir) {
    const dir = fs.openSync(path.dirname(file), "r");
    fs.fsyncSync(dir);
    fs.closeSync(dir);
  }
}

const readOrNull = () => (fs.existsSync(FILE) ? fs.readFileSync(FILE, "utf8") : null);
const faults = (ctx: SimContext, kind: string) =>
  ctx.traceQuery.snapshot("sim_fault").filter((e) => e.str("kind") === kind).length;
const lostDirUpdates = (ctx: SimContext) => faults(ctx, "storage_lost_dir_update");

describe("crash before and after fsync", () => {
  it("a new file written without any fsync is gone after the crash (its directory entry was never synced)", async () => {
    const { report, after } = await crashScenario(
      () => fs.writeFileSync(FILE, "v1"),
      (ctx) => ({ content: readOrNull(), lostDirUpdates: lostDirUpdates(ctx) }),
    );
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(after).toEqual({ content: null, lostDirUpdates: 1 });
  });

  it("fsync of the file alone does not make its name durable; fsync of the directory does", async () => {
    const fileOnly = await crashScenario(() => writeSynced(FILE, "v1", false), readOrNull);
    expect(fileOnly.after).toBeNull();
    const both = await crashScenario(() => writeSynced(FILE, "v1", true), readOrNull);
    expect(both.report.failedRuns, both.report.toString()).toBe(0);
    expect(both.after).toBe("v1");
  });

  it("an overwrite in place is lost without fsync and kept with it (the asynchronous API too)", async () => {
    const overwrite = async (sync: boolean) => {
      writeSynced(FILE, "old-content", true);
      const handle = await fs.promises.open(FILE, "r+");
      await handle.write("NEW", 0);
      if (sync) await handle.sync();
      await handle.close();
    };
    expect((await crashScenario(() => overwrite(false), readOrNull)).after).toBe("old-content");
    expect((await crashScenario(() => overwrite(true), readOrNull)).after).toBe("NEW-content");
  });

  it("a rename is lost without a directory fsync (the old name and content come back) and kept with one", async () => {
    const replace = async (syncDir: boolean) => {
      writeSynced(FILE, "v1", true);
      const temp = path.join(DIR, ".state.json.tmp");
      writeSynced(temp, "v2", false);
      await fs.promises.rename(temp, FILE);
      if (syncDir) {
        const dir = await fs.promises.open(DIR, "r");
        await dir.sync();
        await dir.close();
      }
    };
    const lost = await crashScenario(
      () => replace(false),
      () => ({ content: readOrNull(), temp: fs.existsSync(path.join(DIR, ".state.json.tmp")) }),
    );
    expect(lost.after).toEqual({ content: "v1", temp: false });
    expect((await crashScenario(() => replace(true), readOrNull)).after).toBe("v2");
  });

  it("off: with crash damage off (the baseline) a crash keeps every unsynced write and directory change", async () => {
    const { report, after } = await crashScenario(
      () => {
        fs.mkdirSync(path.join(DIR, "logs"));
        fs.writeFileSync(path.join(DIR, "logs", "a.log"), "line\n");
        fs.appendFileSync(path.join(DIR, "logs", "a.log"), "line2\n");
      },
      (ctx) => ({
        content: fs.readFileSync(path.join(DIR, "logs", "a.log"), "utf8"),
        lostDirUpdates: lostDirUpdates(ctx),
        lostWrites: faults(ctx, "storage_lost_write"),
      }),
      DEFAULT_STORAGE_CONFIG,
    );
    expect(report.failedRuns, report.toString()).toBe(0);
    expect(after).toEqual({ content: "line\nline2\n", lostDirUpdates: 0, lostWrites: 0 });
  });

  it("a crash closes the process's descriptors; the next boot's first descriptor is 3 again", async () => {
    const { after } = await crashScenario(
      () => {
        writeSynced(FILE, "v1", true);
        for (let i = 0; i < 4; i++) fs.openSync(FILE, "r");
      },
      () => fs.openSync(FILE, "r"),
    );
    expect(after).toBe(3);
  });
});
