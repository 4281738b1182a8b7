import { describe, expect, it } from "vitest";
import { BUGGIFY_FIRE_PROBABILITY } from "@moonpool/core";
import {
  BUGGIFY_ACTIVATION_PROBABILITY,
  BUGGIFY_KNOB_FIRE_PROBABILITY,
  Buggify,
  swarmOpEnabled,
} from "../src/chaos/buggify.ts";
import { RandomStream, STREAM_KEYS, deriveSeed } from "../src/engine/rng.ts";

function simStream(seed: number): RandomStream {
  return new RandomStream(seed, STREAM_KEYS.sim);
}

const SEEDS = Array.from({ length: 2000 }, (_, i) => deriveSeed(20240601, i));

describe("constants", () => {
  it("are 50 % activation and 25 % firing", () => {
    expect(BUGGIFY_ACTIVATION_PROBABILITY).toBe(0.5);
    expect(BUGGIFY_FIRE_PROBABILITY).toBe(0.25);
    expect(BUGGIFY_KNOB_FIRE_PROBABILITY).toBe(0.25);
  });
});

describe("Buggify.fires", () => {
  it("activates about half of the points per seed", () => {
    let active = 0;
    for (const seed of SEEDS) {
      const b = new Buggify(simStream(seed));
      b.fires("point", BUGGIFY_FIRE_PROBABILITY);
      active += b.activatedIds().length;
    }
    // 2000 Bernoulli(0.5): sd ~ 22; the bounds are > 6 sd away (and the seeds are fixed).
    expect(active).toBeGreaterThan(850);
    expect(active).toBeLessThan(1150);
  });

  it("an active point fires about 25% of its calls; an inactive one never fires", () => {
    let activeCalls = 0;
    let activeFired = 0;
    let firstEncounterFired = 0;
    for (const seed of SEEDS) {
      const b = new Buggify(simStream(seed));
      const results = Array.from({ length: 20 }, () => b.fires("p", BUGGIFY_FIRE_PROBABILITY));
      if (results[0]) firstEncounterFired++;
      if (b.activatedIds().includes("p")) {
        activeCalls += results.length;
        activeFired += results.filter(Boolean).length;
      } else {
        expect(results.some(Boolean)).toBe(false);
      }
    }
    const rate = activeFired / activeCalls;
    expect(rate).toBeGreaterThan(0.2);
    expect(rate).toBeLessThan(0.3);
    // Marginal first-encounter firing is 0.5 * 0.25 = 12.5%.
    expect(firstEncounterFired / SEEDS.length).toBeGreaterThan(0.08);
    expect(firstEncounterFired / SEEDS.length).toBeLessThan(0.17);
  });

  it("activation is decided once per point per seed, independently per point", () => {
    const sim = simStream(7);
    const b = new Buggify(sim);
    b.fires("a", 1);
    expect(sim.calls).toBeGreaterThanOrEqual(1); // activation (+ firing if active)
    const before = sim.calls;
    const activeA = b.activatedIds().includes("a");
    b.fires("a", 1);
    // Later calls: one firing draw if active, none otherwise; never a second activation draw.
    expect(sim.calls - before).toBe(activeA ? 1 : 0);
    expect(b.stats()).toEqual([{ id: "a", active: activeA, calls: 2, fired: activeA ? 2 : 0 }]);
  });

  it("probability 1 on an active point always fires; an inactive one never", () => {
    for (const seed of SEEDS.slice(0, 50)) {
      const b = new Buggify(simStream(seed));
      const fired = [b.fires("x", 1), b.fires("x", 1), b.fires("x", 1)];
      const active = b.activatedIds().includes("x");
      expect(fired).toEqual([active, active, active]);
    }
  });

  it("same seed gives the same decisions; different seeds differ", () => {
    const decisions = (seed: number) => {
      const b = new Buggify(simStream(seed));
      const out: boolean[] = [];
      for (let i = 0; i < 200; i++) out.push(b.fires(`p${i % 7}`, 0.25));
      return { out, active: b.activatedIds() };
    };
    expect(decisions(1234)).toEqual(decisions(1234));
    expect(decisions(1234)).not.toEqual(decisions(1235));
  });

  it("probability 0 returns false without drawing or deciding activation", () => {
    const sim = simStream(99);
    const b = new Buggify(sim);
    for (let i = 0; i < 10; i++) expect(b.fires("off", 0)).toBe(false);
    expect(sim.calls).toBe(0);
    expect(b.stats()).toEqual([]);
  });

  it("activation probability 0 turns every point off; 1 turns every point on", () => {
    const off = new Buggify(simStream(5), 0);
    const on = new Buggify(simStream(5), 1);
    for (let i = 0; i < 20; i++) {
      expect(off.fires(`p${i}`, 1)).toBe(false);
      expect(on.fires(`p${i}`, 1)).toBe(true);
    }
    expect(off.activatedIds()).toEqual([]);
    expect(on.activatedIds()).toHaveLength(20);
  });

  it("rejects invalid probabilities and ids with actionable errors", () => {
    const b = new Buggify(simStream(1));
    expect(() => b.fires("p", 1.5)).toThrow(RangeError);
    expect(() => b.fires("p", -0.1)).toThrow(/between 0 and 1/);
    expect(() => b.fires("p", Number.NaN)).toThrow(RangeError);
    expect(() => b.fires("", 0.25)).toThrow(TypeError);
    expect(() => b.fires(undefined as unknown as string, 0.25)).toThrow(/non-empty string id/);
    expect(() => new Buggify(simStream(1), 2)).toThrow(RangeError);
  });

  it("activatedIds lists active points in first-encounter order", () => {
    const b = new Buggify(simStream(31), 1);
    b.fires("z", 0.25);
    b.fires("a", 0.25);
    b.fires("z", 0.25);
    expect(b.activatedIds()).toEqual(["z", "a"]);
  });
});

describe("Buggify.knob", () => {
  it("returns the default unless fired, otherwise an integer in [lo, hi)", () => {
    let fired = 0;
    let total = 0;
    const seen = new Set<number>();
    for (const seed of SEEDS.slice(0, 400)) {
      const b = new Buggify(simStream(seed), 1); // always active: measure the 25% firing
      for (let i = 0; i < 10; i++) {
        const v = b.knob("batch size", 128, 1, 16);
        total++;
        if (v !== 128) {
          fired++;
          expect(Number.isInteger(v)).toBe(true);
          expect(v).toBeGreaterThanOrEqual(1);
          expect(v).toBeLessThan(16);
          seen.add(v);
        }
      }
    }
    expect(fired / total).toBeGreaterThan(0.2);
    expect(fired / total).toBeLessThan(0.3);
    expect(seen.size).toBe(15);
  });

  it("uses a float in [lo, hi) for non-integer bounds", () => {
    const b = new Buggify(simStream(3), 1);
    const values: number[] = [];
    for (let i = 0; i < 200; i++) values.push(b.knob("ratio", -1, 0.5, 0.75));
    const fired = values.filter((v) => v !== -1);
    expect(fired.length).toBeGreaterThan(0);
    for (const v of fired) {
      expect(v).toBeGreaterThanOrEqual(0.5);
      expect(v).toBeLessThan(0.75);
    }
    expect(fired.some((v) => !Number.isInteger(v * 4))).toBe(true);
  });

  it("an empty range yields lo when fired (not the default)", () => {
    const b = new Buggify(simStream(11), 1);
    const values = new Set<number>();
    for (let i = 0; i < 100; i++) values.add(b.knob("empty", 128, 16, 16));
    for (let i = 0; i < 100; i++) values.add(b.knob("inverted", 128, 16, 4));
    expect([...values].sort((x, y) => x - y)).toEqual([16, 128]);
  });

  it("an inactive knob draws only its activation", () => {
    const sim = simStream(8);
    const b = new Buggify(sim, 0);
    for (let i = 0; i < 10; i++) expect(b.knob("k", 5, 0, 100)).toBe(5);
    expect(sim.calls).toBe(1);
  });

  it("rejects non-finite bounds", () => {
    const b = new Buggify(simStream(1));
    expect(() => b.knob("k", 1, 0, Number.POSITIVE_INFINITY)).toThrow(/finite numeric bounds/);
    expect(() => b.knob("", 1, 0, 2)).toThrow(TypeError);
  });
});

describe("swarmOpEnabled", () => {
  it("is deterministic and enables about half of the op ids", () => {
    let enabled = 0;
    let total = 0;
    for (const seed of SEEDS.slice(0, 200)) {
      for (let op = 0; op < 256; op++) {
        const v = swarmOpEnabled(seed, op);
        expect(swarmOpEnabled(seed, op)).toBe(v);
        if (v) enabled++;
        total++;
      }
    }
    // 51200 fair coins: sd ~ 113; bounds are ~18 sd away.
    expect(enabled / total).toBeGreaterThan(0.46);
    expect(enabled / total).toBeLessThan(0.54);
  });

  it("gives different masks to different seeds", () => {
    const mask = (seed: number) => Array.from({ length: 64 }, (_, op) => swarmOpEnabled(seed, op));
    expect(mask(1)).not.toEqual(mask(2));
    expect(mask(1)).toEqual(mask(1));
  });

  it("matches splitmix64(seed ^ key ^ rotl64(op, 32)) for a known value", () => {
    // Reference computed independently with BigInt splitmix64.
    const MASK = (1n << 64n) - 1n;
    const reference = (seed: number, op: number) => {
      let z = (((BigInt(seed) ^ 0x6f706d61736b7372n ^ (BigInt(op) << 32n)) & MASK) + 0x9e3779b97f4a7c15n) & MASK;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
      return (z ^ (z >> 31n)) >> 63n === 1n;
    };
    for (const seed of [0, 1, 42, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER]) {
      for (const op of [0, 1, 7, 128, 255]) expect(swarmOpEnabled(seed, op)).toBe(reference(seed, op));
    }
  });

  it("validates its arguments", () => {
    expect(() => swarmOpEnabled(1, 256)).toThrow(RangeError);
    expect(() => swarmOpEnabled(1, -1)).toThrow(/0\.\.255/);
    expect(() => swarmOpEnabled(1, 1.5)).toThrow(RangeError);
    expect(() => swarmOpEnabled(-1, 0)).toThrow(RangeError);
  });
});
