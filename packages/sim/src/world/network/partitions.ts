/**
 * Network partitions by IP, directional: `from -> to` means nothing sent by `from` reaches `to`,
 * whichever side opened the connection. A bidirectional partition is two directed ones.
 * Also whole-IP cuts: everything sent by an IP (`send`), everything sent to an IP (`recv`).
 *
 * Every cut expires on its own (an event at its end) or is healed early; each creation and
 * each heal is a `sim_fault` event. Traffic that meets a cut is held, not dropped (see
 * `network.ts`): a TCP stream never has holes, it stalls until the path is back.
 */
import { msToUs } from "../../engine/engine.ts";
import type { RandomStream } from "../../engine/rng.ts";
import { NETWORK_FAULT_KINDS, type PartitionStrategy } from "./config.ts";
import { EventTag } from "../event-tag.ts";
import type { World } from "../world.ts";

/** Who created a partition. */
export type PartitionCause = "random" | "manual";
/** Why a partition ended: an explicit heal, its duration ran out, or the chaos cutoff. */
export type HealCause = "healed" | "expired" | "recovery";

/** A cut that lasts until `untilUs`. The object's identity tells a stale expiry event from a live one. */
interface Cut {
  readonly untilUs: number;
}

/** Key of the ordered IP pair `from -> to`. */
export function pairKey(fromIp: string, toIp: string): string {
  return `${fromIp}->${toIp}`;
}

type Expiry = { table: PartitionTable; map: Map<string, Cut>; key: string; cut: Cut };

function expire(expiry: Expiry): void {
  expiry.table.expire(expiry);
}

/** Longest a partition may last (about 31 simulated years): keeps times finite. */
export const MAX_PARTITION_US = 1e15;

export class PartitionTable {
  private readonly pairs = new Map<string, Cut>();
  private readonly sends = new Map<string, Cut>();
  private readonly recvs = new Map<string, Cut>();

  constructor(
    private readonly world: World,
    /** Called after any cut ended, so held traffic can move again. */
    private readonly onHeal: () => void,
  ) {}

  /** True when no cut is in force (the hot path checks this first). */
  get empty(): boolean {
    return this.pairs.size === 0 && this.sends.size === 0 && this.recvs.size === 0;
  }

  /** Whether bytes sent by `fromIp` to `toIp` are held right now. */
  blocks(fromIp: string, toIp: string): boolean {
    if (this.empty) return false;
    return this.sends.has(fromIp) || this.recvs.has(toIp) || this.pairs.has(pairKey(fromIp, toIp));
  }

  /** `blocks` for a connection end's direction, whose `pairKey(fromIp, toIp)` is already made. */
  blocksPair(fromIp: string, toIp: string, key: string): boolean {
    if (this.empty) return false;
    return this.sends.has(fromIp) || this.recvs.has(toIp) || this.pairs.has(key);
  }

  /** Cuts `from -> to` for `durationUs` (a longer cut already in force is kept). */
  cutPair(fromIp: string, toIp: string, durationUs: number, cause: PartitionCause): void {
    if (fromIp === toIp) return; // an IP always reaches itself
    if (this.add(this.pairs, pairKey(fromIp, toIp), durationUs, NETWORK_FAULT_KINDS.partitionCreated)) {
      this.world.recordFault(NETWORK_FAULT_KINDS.partitionCreated, {
        from: fromIp,
        to: toIp,
        durationMs: durationUs / 1000,
        cause,
      });
    }
  }

  cutSend(ip: string, durationUs: number): void {
    if (this.add(this.sends, ip, durationUs, NETWORK_FAULT_KINDS.sendPartitionCreated))
      this.world.recordFault(NETWORK_FAULT_KINDS.sendPartitionCreated, { ip, durationMs: durationUs / 1000 });
  }

  cutRecv(ip: string, durationUs: number): void {
    if (this.add(this.recvs, ip, durationUs, NETWORK_FAULT_KINDS.recvPartitionCreated))
      this.world.recordFault(NETWORK_FAULT_KINDS.recvPartitionCreated, { ip, durationMs: durationUs / 1000 });
  }

  /** Ends `from -> to` if it is in force; returns whether it was. */
  healPair(fromIp: string, toIp: string, cause: HealCause = "healed"): boolean {
    const key = pairKey(fromIp, toIp);
    if (!this.pairs.delete(key)) return false;
    this.recordHeal(this.pairs, key, cause);
    this.onHeal();
    return true;
  }

  healSend(ip: string, cause: HealCause = "healed"): boolean {
    if (!this.sends.delete(ip)) return false;
    this.recordHeal(this.sends, ip, cause);
    this.onHeal();
    return true;
  }

  healRecv(ip: string, cause: HealCause = "healed"): boolean {
    if (!this.recvs.delete(ip)) return false;
    this.recordHeal(this.recvs, ip, cause);
    this.onHeal();
    return true;
  }

  /** Ends every cut in force (each one a heal event, every direction), then lets traffic move. */
  healAll(cause: HealCause): void {
    if (this.empty) return;
    for (const map of [this.pairs, this.sends, this.recvs]) {
      for (const key of [...map.keys()]) {
        map.delete(key);
        this.recordHeal(map, key, cause);
      }
    }
    this.onHeal();
  }

  /** The directed pairs cut right now, `[from, to]` in creation order (for tests and reports). */
  cutPairs(): [string, string][] {
    return [...this.pairs.keys()].map((key) => key.split("->") as [string, string]);
  }

  expire({ map, key, cut }: Expiry): void {
    if (map.get(key) !== cut) return; // healed or replaced meanwhile
    map.delete(key);
    this.recordHeal(map, key, "expired");
    this.onHeal();
  }

  /**
   * Adds (or lengthens) a cut; returns false when a cut lasting at least as long is in force or
   * the overrides skip this fault (`kind`).
   */
  private add(map: Map<string, Cut>, key: string, durationUs: number, kind: string): boolean {
    const untilUs = this.world.engine.nowUs + Math.min(Math.max(0, Math.round(durationUs)), MAX_PARTITION_US);
    const existing = map.get(key);
    if (existing !== undefined && existing.untilUs >= untilUs) return false;
    if (this.world.skipFault(kind)) return false;
    const cut: Cut = { untilUs };
    map.set(key, cut);
    const expiry: Expiry = { table: this, map, key, cut };
    // Owned by the world's fault owner: the runner drops these events once the run phase is over.
    this.world.engine.scheduleAt(untilUs, expire, expiry, EventTag.network, this.world.faultOwner);
    return true;
  }

  private recordHeal(map: Map<string, Cut>, key: string, cause: HealCause): void {
    if (map === this.pairs) {
      const [from, to] = key.split("->") as [string, string];
      this.world.recordFault(NETWORK_FAULT_KINDS.partitionHealed, { from, to, cause });
    } else if (map === this.sends) {
      this.world.recordFault(NETWORK_FAULT_KINDS.sendPartitionHealed, { ip: key, cause });
    } else {
      this.world.recordFault(NETWORK_FAULT_KINDS.recvPartitionHealed, { ip: key, cause });
    }
  }
}

/** Converts a partition duration in ms (the public API's unit) to µs. */
export function partitionDurationUs(durationMs: number): number {
  return Math.min(msToUs(durationMs), MAX_PARTITION_US);
}

/** Orders IPv4 addresses numerically (10.0.1.2 before 10.0.1.10), so IP sets are deterministic and readable. */
export function compareIps(a: string, b: string): number {
  const pa = a.split(".");
  const pb = b.split(".");
  for (let i = 0; i < 4; i++) {
    const d = Number(pa[i]) - Number(pb[i]);
    if (d !== 0) return d;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The side of a random partition among `ips` (sorted), chosen by `strategy`: the two sides are
 * then cut off from each other. Null when the draw puts everyone on one side.
 */
export function pickPartitionSide(
  strategy: PartitionStrategy,
  ips: readonly string[],
  sim: RandomStream,
): string[] | null {
  const n = ips.length;
  if (n < 2) return null;
  switch (strategy) {
    case "random": {
      const side = ips.filter(() => sim.bool(0.5));
      return side.length === 0 || side.length === n ? null : side;
    }
    case "uniformSize": {
      const shuffled = ips.slice();
      for (let i = n - 1; i > 0; i--) {
        const j = sim.rangeInt(0, i + 1);
        [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
      }
      return shuffled.slice(0, sim.rangeInt(1, n)).sort(compareIps);
    }
    case "isolateSingle":
      return [ips[sim.rangeInt(0, n)]!];
  }
}
