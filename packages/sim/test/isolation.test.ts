/**
 * Which isolation a campaign runs with (runner/isolation.ts): a fresh realm per seed by default,
 * with or without `nodeRuntime()`; the simulation's `isolation()` overrides it, the command
 * overrides both; a bad mode is refused at the call with the modes it takes.
 */
import { InvalidConfiguration } from "@moonpool/core";
import { describe, expect, it } from "vitest";
import { SimulationBuilder } from "../src/index.ts";
import { resolveIsolation, sharedIsolationNote } from "../src/runner/isolation.ts";

const sleeper = () => ({ name: "sleeper", run: async () => {} });

describe("seed isolation settings", () => {
  it("defaults to a fresh realm per seed, with nodeRuntime() and without", () => {
    const node = new SimulationBuilder().nodeRuntime().workloadFactory(sleeper).build();
    const plain = new SimulationBuilder().workloadFactory(sleeper).build();
    expect(resolveIsolation(node)).toEqual({ mode: "seed", chosen: "default" });
    expect(resolveIsolation(plain)).toEqual({ mode: "seed", chosen: "default" });
    expect(sharedIsolationNote(resolveIsolation(plain))).toBeNull();
    expect(sharedIsolationNote(resolveIsolation(plain, "shared"))).toContain("replays are not guaranteed");
  });

  it("takes the simulation's choice, and the command's over it", () => {
    const shared = new SimulationBuilder().nodeRuntime().isolation("shared").workloadFactory(sleeper).build();
    const seed = new SimulationBuilder().isolation("seed").workloadFactory(sleeper).build();
    expect(resolveIsolation(shared)).toEqual({ mode: "shared", chosen: "simulation" });
    expect(sharedIsolationNote(resolveIsolation(shared))).toContain("replays are not guaranteed");
    expect(resolveIsolation(seed)).toEqual({ mode: "seed", chosen: "simulation" });
    expect(resolveIsolation(shared, "seed")).toEqual({ mode: "seed", chosen: "command" });
  });

  it("refuses an unknown mode, naming the ones it takes", () => {
    expect(() => new SimulationBuilder().isolation("thread" as never)).toThrow(InvalidConfiguration);
    expect(() => new SimulationBuilder().isolation("thread" as never)).toThrow(
      'isolation(mode): unknown isolation "thread"; use "seed" (a fresh realm per seed) or "shared"',
    );
  });
});
