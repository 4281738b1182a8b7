/**
 * fetch by host name on workers, where every seed runs in a fresh realm (Node's undici loaded and
 * its parser compiled inside the seed): every seed's hash and fetch outcomes equal the in-thread
 * run's, where undici stays loaded from one seed to the next. The fixture imports `@moonpool/sim`
 * (workers load the package, and a second copy of the simulator in one realm would wrap twice).
 */
import { describe, expect, it } from "vitest";
import { fetchByName } from "../fixtures/fetch-by-name.ts";

const SOURCE = new URL("../fixtures/fetch-by-name.ts", import.meta.url).href;

describe("fetch in fresh realms", () => {
  it("gives every seed the hash of the in-thread run, with 1 and 2 workers", async () => {
    const build = () => fetchByName().setBaseSeed(12).setIterations(6).simulationSource(SOURCE, "fetchByName");
    const inThread = await build().run();
    const oneWorker = await build().run({ workers: 1 });
    const twoWorkers = await build().run({ workers: 2 });
    expect(inThread.failedRuns, inThread.toString()).toBe(0);
    // The hash and what each fetch gave (the client attaches its outcomes), seed by seed.
    const hashes = (r: typeof inThread) =>
      r.seeds.map((s) => `${s.seed} ${s.traceHash} ${s.attachments?.[0]?.text ?? "no outcomes"}`);
    expect(hashes(inThread).filter((line) => line.includes('"path":"/n')).length).toBe(6);
    expect(hashes(oneWorker)).toEqual(hashes(inThread));
    expect(hashes(twoWorkers)).toEqual(hashes(inThread));
    expect(new Set(inThread.seeds.map((s) => s.traceHash)).size).toBe(6);
  });
});
