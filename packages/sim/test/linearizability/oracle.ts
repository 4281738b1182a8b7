/**
 * An independent linearizability oracle for tests: the "just in time" configuration search.
 * Events are replayed in order; each configuration is a model state plus the set of invoked,
 * not yet linearized operations; a completion keeps only the configurations in which some
 * sequence of pending operations linearizes the completed one. Slow, but simple enough to trust.
 */
import type { History } from "../../src/linearizability/history.ts";
import type { DeterministicModel } from "../../src/linearizability/model.ts";

export function oracleLinearizable<S, I, O>(model: DeterministicModel<S, I, O>, history: History<I, O>): boolean {
  const key = (s: S) => JSON.stringify(model.hash ? model.hash(s) : s);
  type Config = { state: S; pending: readonly number[] };
  const events: { pos: number; op: number; call: boolean }[] = [];
  for (const op of history) {
    events.push({ pos: op.callIndex, op: op.id, call: true });
    if (!op.crashed) events.push({ pos: op.returnIndex, op: op.id, call: false });
  }
  events.sort((a, b) => a.pos - b.pos);
  const configKey = (c: Config) => `${key(c.state)}|${[...c.pending].sort((a, b) => a - b).join(",")}`;
  let configs = new Map<string, Config>([["init", { state: model.init(), pending: [] }]]);
  for (const e of events) {
    const next = new Map<string, Config>();
    if (e.call) {
      for (const c of configs.values()) {
        const n = { state: c.state, pending: [...c.pending, e.op] };
        next.set(configKey(n), n);
      }
    } else {
      // Close over linearizing pending ops until e.op is linearized.
      const seen = new Set<string>();
      const stack: Config[] = [];
      for (const [k, c] of configs) {
        if (c.pending.includes(e.op)) stack.push(c);
        else next.set(k, c); // linearized earlier, on the way to another completion
      }
      while (stack.length > 0) {
        const c = stack.pop()!;
        for (const id of c.pending) {
          const op = history[id]!;
          const r = model.step(c.state, op.input, op.output);
          if (!r.ok) continue;
          const n = { state: r.state, pending: c.pending.filter((p) => p !== id) };
          const k = configKey(n);
          if (seen.has(k)) continue;
          seen.add(k);
          if (id === e.op) next.set(k, n);
          else stack.push(n);
        }
      }
    }
    configs = next;
    if (configs.size === 0) return false;
  }
  return true;
}
