/**
 * Where each sim draw of a seed was made (actor, simulated time, engine step): a pool worker
 * keeps the trail of the seed it runs, so a failure that hashes differently when run alone can
 * name the first draw where the two runs part (the comparison `checkDeterminism` makes).
 */
import type { SeedSession } from "./seed-runner.ts";

/** Structured-clone-safe: it crosses from the worker with the seed's result. */
export interface DrawTrail {
  /** Actor names, indexed by `actorIds`. */
  readonly actors: readonly string[];
  readonly actorIds: readonly number[];
  readonly timesUs: readonly number[];
  readonly steps: readonly number[];
}

export interface DrawSiteAt {
  readonly actor: string;
  readonly timeMs: number;
  readonly step: number;
}

/** Records the trail of one seed; `observer` goes to `SeedOptions.drawObserver`. */
export class DrawTrailRecorder {
  private readonly actors: string[] = [];
  private readonly actorIndex = new Map<string, number>();
  private readonly actorIds: number[] = [];
  private readonly timesUs: number[] = [];
  private readonly steps: number[] = [];
  /** The JavaScript stack of draw `stackAtDraw`, when asked for. */
  stack: string | undefined;

  constructor(private readonly stackAtDraw: number | null = null) {}

  readonly observer = (session: SeedSession): (() => void) => {
    const engine = session.world.engine;
    return () => {
      if (this.actorIds.length === this.stackAtDraw) this.stack = userFrames(new Error("draw").stack);
      const actor = engine.currentActor;
      let id = this.actorIndex.get(actor);
      if (id === undefined) {
        id = this.actors.length;
        this.actors.push(actor);
        this.actorIndex.set(actor, id);
      }
      this.actorIds.push(id);
      this.timesUs.push(engine.nowUs);
      this.steps.push(engine.steps);
    };
  };

  trail(): DrawTrail {
    return { actors: this.actors, actorIds: this.actorIds, timesUs: this.timesUs, steps: this.steps };
  }
}

function userFrames(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  // The recorder's and the random stream's frames say nothing: the user's line is what matters.
  return stack
    .split("\n")
    .slice(1)
    .filter((line) => !/engine[\\/]rng\.ts|runner[\\/]draw-trail\.ts|world[\\/]random\.ts/.test(line))
    .slice(0, 8)
    .map((line) => line.trim())
    .join("\n");
}

/** Index of the first draw made at another site (or the shorter trail's length), null when identical. */
export function firstDrawDifference(a: DrawTrail, b: DrawTrail): number | null {
  const n = Math.min(a.actorIds.length, b.actorIds.length);
  for (let i = 0; i < n; i++) {
    if (
      a.actors[a.actorIds[i]!] !== b.actors[b.actorIds[i]!] ||
      a.timesUs[i] !== b.timesUs[i] ||
      a.steps[i] !== b.steps[i]
    )
      return i;
  }
  return a.actorIds.length !== b.actorIds.length ? n : null;
}

export function drawSite(trail: DrawTrail, index: number): DrawSiteAt | null {
  if (index >= trail.actorIds.length) return null;
  return {
    actor: trail.actors[trail.actorIds[index]!]!,
    timeMs: trail.timesUs[index]! / 1000,
    step: trail.steps[index]!,
  };
}
