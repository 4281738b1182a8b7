/** `ctx.random`: every draw on the counted `sim` stream, so seeds and recipes replay it. */
import type { RandomProvider } from "@moonpool/core";
import type { World } from "./world.ts";

export class SimRandom implements RandomProvider {
  constructor(private readonly world: World) {}

  random(): number {
    return this.world.engine.streams.sim.u32();
  }

  randomRange(lo: number, hi: number): number {
    return this.world.engine.streams.sim.rangeInt(lo, hi);
  }

  randomBool(p: number): boolean {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`randomBool(p) needs 0 <= p <= 1, got ${String(p)}`);
    return this.world.engine.streams.sim.bool(p);
  }

  randomRatio(): number {
    return this.world.engine.streams.sim.ratio();
  }
}
