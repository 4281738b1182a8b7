/**
 * Exact clocks (`.clockFaults("none")`) in these simulations: they read `now()` as simulated time
 * or count every injected fault, which the baseline clocks' offsets and `clock_skew` would change.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SimulationBuilder, type SimContext } from "../../src/index.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

/** Runs a fixture script under the given environment; its stdout is JSON. */
function runFixture(script: string, env: Record<string, string>): any {
  const out = execFileSync(process.execPath, ["--import", "tsx", script], {
    cwd: FIXTURES,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  return JSON.parse(out);
}

async function inSeed<T>(seed: number, body: (ctx: SimContext) => T, nodeRuntime = false) {
  let value: T | undefined;
  const builder = new SimulationBuilder()
    .clockFaults("none")
    .setDebugSeeds([seed])
    .setIterations(1)
    .workloadFactory(() => ({
      name: "w",
      async run(ctx: SimContext) {
        await ctx.time.sleep(1);
        value = body(ctx);
        ctx.trace.info("value", { text: JSON.stringify(value) });
      },
    }));
  const report = await (nodeRuntime ? builder.nodeRuntime() : builder).run();
  return { value: value as T, report, hash: report.seeds[0]!.traceHash };
}

describe("simulated code lives in UTC with the en-US locale, whatever the machine's TZ and LANG", () => {
  it("answers every zone- and locale-sensitive call as Node does under TZ=UTC LANG=en_US.UTF-8", () => {
    const expected: string[] = runFixture("locale-native.ts", { TZ: "UTC", LANG: "en_US.UTF-8" });
    for (const [TZ, LANG] of [
      ["Asia/Tokyo", "tr_TR.UTF-8"],
      ["America/New_York", "de_DE.UTF-8"],
    ] as const) {
      const { seen, outside } = runFixture("locale-in-seed.ts", { TZ, LANG });
      expect(seen).toEqual(expected);
      // Outside a seed the machine's zone and locale apply, as before.
      expect(outside).not.toEqual(expected);
    }
  });

  it("formats the virtual clock in UTC: same seed twice equal, two seeds differ", async () => {
    const text = () => `${new Date()} ${new Date().getHours()} ${(Math.random() * 1e6).toLocaleString()}`;
    const a = await inSeed(5, text, true);
    const b = await inSeed(5, text, true);
    const c = await inSeed(6, text, true);
    expect(a.report.failedRuns).toBe(0);
    expect(a.value).toMatch(/^Thu Jan 01 2026 00:00:00 GMT\+0000 \(Coordinated Universal Time\) 0 [\d,]+(\.\d+)?$/);
    expect(a.hash).toBe(b.hash);
    expect(a.value).toBe(b.value);
    expect(c.hash).not.toBe(a.hash);
  });

  it("no longer fails a seed for locale formatting (the zone and locale are fixed instead)", async () => {
    const { value, report } = await inSeed(1, () => [
      new Date(0).toLocaleString(),
      Intl.DateTimeFormat().resolvedOptions().timeZone,
      new Intl.NumberFormat().resolvedOptions().locale,
    ]);
    expect(report.failedRuns).toBe(0);
    expect(value[0]).toMatch(/^1\/1\/1970, 12:00:00\sAM$/); // ICU puts U+202F before AM since ICU 72
    expect(value.slice(1)).toEqual(["UTC", "en-US"]);
  });
});

describe("process.env and process.pid are fixed for simulated code", () => {
  it("gives each seed a fresh, empty environment whose writes stay in that seed", async () => {
    process.env.MOONPOOL_MACHINE_ONLY = "machine";
    try {
      const first = await inSeed(1, () => {
        const before = { ...process.env };
        process.env.PORT = 8080 as unknown as string;
        return { before, port: process.env.PORT, keys: Object.keys(process.env) };
      });
      expect(first.report.failedRuns).toBe(0);
      expect(first.value).toEqual({ before: {}, port: "8080", keys: ["PORT"] });
      const second = await inSeed(1, () => ({ ...process.env }));
      expect(second.value).toEqual({});
      expect(first.hash).toBe((await inSeed(1, () => first.value)).hash);
      // The runner's own process keeps the real environment.
      expect(process.env.MOONPOOL_MACHINE_ONLY).toBe("machine");
      expect(process.env.PORT).toBeUndefined();
    } finally {
      delete process.env.MOONPOOL_MACHINE_ONLY;
    }
  });

  it("gives process.pid a value fixed by the actor's name and ppid 1; the real ones outside", async () => {
    const { value, report } = await inSeed(3, () => [process.pid, process.ppid]);
    expect(report.failedRuns).toBe(0);
    const [pid, ppid] = value;
    expect(ppid).toBe(1);
    expect(pid).toBeGreaterThanOrEqual(1000);
    expect(pid).toBeLessThan(31_000);
    expect((await inSeed(4, () => process.pid)).value).toBe(pid); // same actor, another seed
    expect(process.pid).not.toBe(pid);
    expect(process.pid).toBe(Number(execFileSync("sh", ["-c", "echo $PPID"], { encoding: "utf8" })));
  });
});
