import { describe, expect, it } from "vitest";
import { loadSimulationBuilder } from "../../src/runner/simulation-source.ts";

const fixture = new URL("./fixtures/draws-at-import.ts", import.meta.url).href;

type Drawn = { readonly drawnAtImport: Record<string, unknown> };

/** Loads the fixture as the CLI and its workers load simulation modules (a fresh module instance per query). */
async function loadAsSimulation(query: string): Promise<Record<string, unknown>> {
  const module = `${fixture}?${query}`;
  await loadSimulationBuilder({ module, export: "simulation" });
  return ((await import(module)) as Drawn).drawnAtImport;
}

describe("randomness drawn while simulation modules load", () => {
  it("is the same on every load (fixed seed), so the main thread and workers agree", async () => {
    const first = await loadAsSimulation("load=1");
    const second = await loadAsSimulation("load=2");
    expect(second).toEqual(first);
    expect(first.uuid).not.toBe(first.webcrypto);
  });

  it("is real randomness when a module is imported outside the loader", async () => {
    const loaded = await loadAsSimulation("load=3");
    const plain = ((await import(`${fixture}?plain=1`)) as Drawn).drawnAtImport;
    expect(plain.uuid).not.toBe(loaded.uuid);
    expect(plain.random).not.toBe(loaded.random);
  });
});
