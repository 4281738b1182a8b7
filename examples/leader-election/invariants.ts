/**
 * Global safety, checked by the simulator after every step: at most one leader per term.
 *
 * No single node can check this (each one only knows whom it voted for), so the nodes publish a
 * fact, `leader_elected { term, leader }`, and this invariant reads every node's facts in
 * timeline order. Checking after every step catches a second leader the moment it appears, even
 * if it is deposed a few milliseconds later and the final state looks healthy.
 */
import { assertAlways, TraceCursor, type Invariant, type TraceQuery } from "@moonpool/sim";

export class SplitBrainInvariant implements Invariant {
  readonly name = "split-brain";
  private readonly cursor = new TraceCursor();
  /** The first leader announced for each term in this seed. */
  private readonly leaders = new Map<number, string>();

  observe(query: TraceQuery): void {
    // `since` returns only the events this cursor has not seen yet: observe stays cheap.
    for (const event of query.since("leader_elected", this.cursor)) {
      const term = event.num("term");
      const leader = event.str("leader");
      if (term === undefined || leader === undefined) {
        throw new Error(`leader_elected needs a numeric 'term' and a string 'leader', got ${event.format()}`);
      }
      const first = this.leaders.get(term);
      if (first === undefined) this.leaders.set(term, leader);
      // Constant message (it is the property's identity); the details say which term and who.
      assertAlways(first === undefined || first === leader, "one leader per term", {
        term,
        first: first ?? leader,
        second: leader,
      });
    }
  }

  reset(): void {
    this.cursor.reset();
    this.leaders.clear();
  }
}
