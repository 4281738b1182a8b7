/**
 * The simulated name service of one seed: every process's host names (`app-0`, its actor name),
 * group names resolving to the group's live members, user aliases, and the DNS faults (slow
 * answers, `ENOTFOUND`/`EAI_AGAIN`, stale group answers after a reboot). Fault decisions draw from a
 * stream of their own, so lookups never shift the seed's other draws.
 */
import { deriveSeed, RandomStream } from "../../engine/rng.ts";

/** What the DNS fault family does per lookup while the chaos window is open (docs/fault-catalogue.md). */
export interface DnsFaultConfig {
  /** Share of lookups answered late (0 ..= 1). */
  readonly slowProbability: number;
  /** How late, uniform in `[min, max]` ms. */
  readonly slowDelayMs: readonly [number, number];
  /** Share of lookups that fail (0 ..= 1). */
  readonly failureProbability: number;
  /** Of those, the share that are temporary (`EAI_AGAIN`; a resolver's `ETIMEOUT`); the rest `ENOTFOUND`. */
  readonly tryAgainShare: number;
  /**
   * A process keeps a group name's answer this long (0: never): after a member crashed or came back,
   * its lookups still see the old membership until the answer expires.
   */
  readonly staleMs: number;
}

export const DNS_NO_FAULTS: DnsFaultConfig = Object.freeze({
  slowProbability: 0,
  slowDelayMs: [0, 0] as const,
  failureProbability: 0,
  tryAgainShare: 0,
  staleMs: 0,
});

/** Key of the DNS fault stream ("dnsfault"), independent of the engine's own streams. */
const DNS_STREAM_KEY = 0x646e736661756c74n;

/** One answer: the IPs (empty: the name does not exist), or the error code to fail with, and when. */
export interface DnsAnswer {
  readonly ips: readonly string[];
  readonly error: "ENOTFOUND" | "EAI_AGAIN" | null;
  readonly delayMs: number;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export function isIpv4(name: string): boolean {
  return IPV4.test(name);
}

/** Names compare as DNS does: case-insensitively, a trailing dot ignored. */
export function normalizeName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

export class SimDns {
  private readonly hosts = new Map<string, string>();
  private readonly groups = new Map<string, string[]>();
  private readonly aliases = new Map<string, string>();
  /** The first name of each IP, for `dns.reverse`. */
  private readonly primary = new Map<string, string>();
  /** Group answers each asking actor holds (only with `staleMs > 0`). */
  private readonly cached = new Map<string, { readonly ips: readonly string[]; readonly expiresMs: number }>();
  private readonly random: RandomStream;
  /** Lookups answered, for tests and the trace-free benches. */
  lookups = 0;

  constructor(
    seed: number,
    /** Whether the process at an IP is down (between a crash or reboot and its restart). */
    private readonly isDown: (ip: string) => boolean,
    /** Faults are drawn only while this says so (the chaos window). */
    private readonly faultsActive: () => boolean,
    readonly faults: DnsFaultConfig = DNS_NO_FAULTS,
  ) {
    this.random = new RandomStream(deriveSeed(seed, 0x646e73), DNS_STREAM_KEY);
  }

  addHost(name: string, ip: string): void {
    const key = normalizeName(name);
    if (!this.hosts.has(key)) this.hosts.set(key, ip);
    if (!this.primary.has(ip)) this.primary.set(ip, name);
  }

  addGroupMember(group: string, ip: string): void {
    const key = normalizeName(group);
    let members = this.groups.get(key);
    if (members === undefined) this.groups.set(key, (members = []));
    members.push(ip);
  }

  /** `alias` answers what `target` (a host name, a group name, an alias or an IPv4 address) answers. */
  addAlias(alias: string, target: string): void {
    this.aliases.set(normalizeName(alias), target);
  }

  /** Every name the table knows, sorted (for messages). */
  names(): string[] {
    return [...new Set([...this.hosts.keys(), ...this.groups.keys(), ...this.aliases.keys()])].sort();
  }

  reverse(ip: string): string | undefined {
    return this.primary.get(ip);
  }

  /** The IPs `name` resolves to now (without faults), or an empty list when it does not exist. */
  resolveNow(name: string, depth = 0): readonly string[] {
    if (isIpv4(name)) return [name];
    const key = normalizeName(name);
    const host = this.hosts.get(key);
    // A process name answers while it is down too, as a pod's or a machine's record stays.
    if (host !== undefined) return [host];
    const members = this.groups.get(key);
    // A group name answers its live members, as a service's endpoints do.
    if (members !== undefined) return members.filter((ip) => !this.isDown(ip));
    const target = this.aliases.get(key);
    if (target !== undefined && depth < 8) return this.resolveNow(target, depth + 1);
    return [];
  }

  private isGroup(name: string): boolean {
    const key = normalizeName(name);
    return this.groups.has(key) || (this.aliases.has(key) && this.isGroup(this.aliases.get(key)!));
  }

  /** What `actor`'s lookup of `name` at `nowMs` gets, faults included. */
  answer(actor: string, name: string, nowMs: number): DnsAnswer {
    this.lookups++;
    const f = this.faults;
    const faulty = this.faultsActive() && !isIpv4(name);
    let delayMs = 0;
    if (faulty && f.slowProbability > 0 && this.random.bool(f.slowProbability)) {
      const [lo, hi] = f.slowDelayMs;
      delayMs = lo + this.random.rangeInt(0, Math.max(1, Math.round(hi - lo) + 1));
    }
    if (faulty && f.failureProbability > 0 && this.random.bool(f.failureProbability)) {
      const error = f.tryAgainShare > 0 && this.random.bool(f.tryAgainShare) ? "EAI_AGAIN" : "ENOTFOUND";
      return { ips: [], error, delayMs };
    }
    let ips = this.resolveNow(name);
    if (f.staleMs > 0 && this.isGroup(name)) {
      const key = `${actor}\u0000${normalizeName(name)}`;
      const held = this.cached.get(key);
      if (held !== undefined && held.expiresMs > nowMs && faulty) ips = held.ips;
      else this.cached.set(key, { ips, expiresMs: nowMs + f.staleMs });
    }
    return { ips, error: ips.length === 0 ? "ENOTFOUND" : null, delayMs };
  }
}
