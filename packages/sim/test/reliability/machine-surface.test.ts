import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import "../../src/index.ts";
import { type Entry, scanSurface } from "./machine-surface-scan.ts";
import { REVIEWED } from "./machine-surface-reviewed.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

function reviewedIds(): Set<string> {
  const ids = new Set<string>();
  for (const { where, names } of REVIEWED) for (const name of names.split(" ")) ids.add(`${where}.${name}`);
  return ids;
}

/** Entries that are neither wrapped (virtual, fixed or guarded) nor reviewed. */
function unreviewed(entries: readonly Entry[]): string[] {
  const reviewed = reviewedIds();
  return entries.filter((e) => !e.wrapped && !reviewed.has(e.id)).map((e) => e.id);
}

describe(`what Node ${process.version} offers simulated code is virtual, guarded or reviewed`, () => {
  const entries = scanSurface();

  it("every global and builtin-module function is wrapped or on the reviewed list with a reason", () => {
    expect(entries.length).toBeGreaterThan(1000);
    // On failure: wrap the new function in engine/ (machine-wrappers.ts) or, if it cannot read
    // time, randomness, the locale or the machine, list it in machine-surface-reviewed.ts.
    expect(unreviewed(entries)).toEqual([]);
    for (const { reason } of REVIEWED) expect(reason.length).toBeGreaterThan(10);
  });

  it("a function Node adds is caught until it is wrapped or reviewed", () => {
    const added: Entry = { id: "node:os.machineSecret", wrapped: false };
    expect(unreviewed([...entries, added])).toEqual(["node:os.machineSecret"]);
    expect(unreviewed([...entries, { ...added, wrapped: true }])).toEqual([]);
  });

  it("what reads time, randomness, the locale or the machine is wrapped", () => {
    const wrapped = new Set(entries.filter((e) => e.wrapped).map((e) => e.id));
    const mustBeWrapped = [
      "globalThis.Math.random",
      "globalThis.Date",
      "globalThis.Date.prototype.getHours",
      "globalThis.Date.prototype.getTimezoneOffset",
      "globalThis.Date.prototype.toString",
      "globalThis.Number.prototype.toLocaleString",
      "globalThis.String.prototype.localeCompare",
      "globalThis.String.prototype.toLocaleUpperCase",
      "globalThis.Intl.NumberFormat",
      "globalThis.Intl.DateTimeFormat",
      "globalThis.process.env",
      "globalThis.process.pid",
      "globalThis.process.hrtime",
      "globalThis.process.memoryUsage",
      "globalThis.performance.now",
      "node:crypto.randomBytes",
      "node:crypto.generateKeyPairSync",
      "node:fs.readFileSync",
      "node:fs.statSync",
      "node:fs.readdirSync",
      "node:fs.existsSync",
      "node:os.cpus",
      "node:os.hostname",
      "node:v8.getHeapStatistics",
      "node:vm.runInNewContext",
      "node:vm.createContext",
      "node:dns.lookup",
    ];
    expect(mustBeWrapped.filter((id) => !wrapped.has(id))).toEqual([]);
  });

  it("guards Temporal.Now where this Node has Temporal (behind --harmony-temporal on Node 24)", () => {
    let out: string;
    try {
      out = execFileSync(process.execPath, ["--harmony-temporal", "--import", "tsx", "temporal-in-seed.ts"], {
        cwd: FIXTURES,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
    } catch {
      out = execFileSync(process.execPath, ["--import", "tsx", "temporal-in-seed.ts"], {
        cwd: FIXTURES,
        encoding: "utf8",
      });
    }
    const result = JSON.parse(out) as { temporal: boolean; message?: string; formatted?: string };
    if (!result.temporal) return; // this Node has no Temporal at all
    expect(result.message).toContain("simulated code called Temporal.Now.instant (actor w@10.0.0.1)");
    expect(result.formatted).toBe("1/1/1970, 12:00:00\u202fAM");
  });
});
