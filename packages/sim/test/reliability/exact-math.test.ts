import { describe, expect, it } from "vitest";
import { powInt } from "../../src/engine/exact-math.ts";

describe("powInt", () => {
  it("computes integer powers by multiplication only", () => {
    expect(powInt(2, 10)).toBe(1024);
    expect(powInt(0.5, 3)).toBe(0.125);
    expect(powInt(7, 0)).toBe(1);
    expect(powInt(0, 5)).toBe(0);
    // Within a few ulps of Math.pow (whose last bit depends on the V8 release).
    for (const u of [0.99, 0.995, 0.9999, 0.5]) expect(powInt(u, 1000)).toBeCloseTo(Math.pow(u, 1000), 12);
  });

  it("gives the same bits on every Node version (golden values from Node 20.20, 22.23 and 24.21)", () => {
    const bits = (x: number) => new BigUint64Array(new Float64Array([x]).buffer)[0]!;
    expect(bits(powInt(0.999, 1000))).toBe(4600295431829843372n);
    expect(bits(powInt(0.9937, 1000))).toBe(4565944188694830429n);
  });

  it("refuses a fractional or negative exponent", () => {
    expect(() => powInt(2, 0.5)).toThrow(RangeError);
    expect(() => powInt(2, -1)).toThrow(/integer >= 0/);
  });
});
