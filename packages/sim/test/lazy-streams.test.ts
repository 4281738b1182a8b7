import { describe, expect, it } from "vitest";
import { RandomStream, STREAM_KEYS, seedStreams } from "../src/engine/rng.ts";

/** `config` and `select` are seeded at their first use: when that is changes none of their values. */
describe("a seed's lazily seeded streams", () => {
  const draws = (stream: RandomStream) => Array.from({ length: 8 }, () => stream.u32());

  it("give the same values whether used first or after other streams drew", () => {
    const early = seedStreams(77);
    const config = draws(early.config);
    const select = draws(early.select);
    const late = seedStreams(77);
    draws(late.sim);
    draws(late.schedule);
    expect(draws(late.select)).toEqual(select);
    expect(draws(late.config)).toEqual(config);
    // The same stream as one derived directly from the seed and its key, and the same object on every read.
    expect(config).toEqual(draws(new RandomStream(77, STREAM_KEYS.config)));
    expect(late.config).toBe(late.config);
  });

  it("differ between seeds", () => {
    expect(draws(seedStreams(77).config)).not.toEqual(draws(seedStreams(78).config));
    expect(draws(seedStreams(77).select)).not.toEqual(draws(seedStreams(78).select));
  });
});
