/**
 * Who is where in one seed: process groups (one per `.processes(...)` call, each with its own
 * `10.0.{group}.x` range), tags, the workloads (`10.0.0.x`), and the localities of the
 * `.cluster(...)` group (datacenter / zone / machine; other groups and workloads have none).
 * Every list is deterministic: IP lists are in process order, which is numeric IP order
 * (`10.0.1.2` before `10.0.1.10`, group 1 before group 2); names and ids are sorted.
 */
import { compareDomainIds, domainId, type DomainLevel, type Locality } from "./locality.ts";

export interface ProcessEntry {
  readonly ip: string;
  readonly group: string;
  /** Index within the group. */
  readonly index: number;
  /** The actor name used in traces, e.g. `node-1@10.0.1.2`. */
  readonly actor: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Where it runs, for processes of the `.cluster(...)` group. */
  readonly locality?: Locality;
}

export class TopologyRegistry {
  readonly processes: ProcessEntry[] = [];
  readonly groups = new Map<string, ProcessEntry[]>();
  readonly workloadIps: string[] = [];
  /** Processes by IP: the network's link latency looks IPs up on every message. */
  private readonly ipIndex = new Map<string, ProcessEntry>();

  addProcess(entry: ProcessEntry): void {
    this.processes.push(entry);
    this.ipIndex.set(entry.ip, entry);
    let list = this.groups.get(entry.group);
    if (list === undefined) {
      list = [];
      this.groups.set(entry.group, list);
    }
    list.push(entry);
  }

  byIp(ip: string): ProcessEntry | undefined {
    return this.ipIndex.get(ip);
  }

  /** Distinct domain ids of the cluster at `level`, sorted by their numbers (dc2 before dc10). */
  domains(level: DomainLevel): string[] {
    const ids = new Set<string>();
    for (const p of this.processes) if (p.locality !== undefined) ids.add(domainId(p.locality, level));
    return [...ids].sort(compareDomainIds);
  }
}

/** The view one actor has of the topology. */
export class Topology {
  constructor(
    private readonly registry: TopologyRegistry,
    /** This actor's IP. */
    readonly myIp: string,
  ) {}

  /** IPs of every process, in group then index order (excluding this actor if it is a process). */
  get processIps(): string[] {
    return this.registry.processes.filter((p) => p.ip !== this.myIp).map((p) => p.ip);
  }

  /** IPs of every process, including this one. */
  allProcessIps(): string[] {
    return this.registry.processes.map((p) => p.ip);
  }

  /** Other processes as `{ name, ip }` (name is the actor name without the address). */
  peers(): { name: string; ip: string }[] {
    return this.registry.processes
      .filter((p) => p.ip !== this.myIp)
      .map((p) => ({ name: p.actor.slice(0, p.actor.indexOf("@")), ip: p.ip }));
  }

  /** IP of the process named `name` (e.g. `node-2`), if any. */
  peerByName(name: string): string | undefined {
    return this.registry.processes.find((p) => p.actor.slice(0, p.actor.indexOf("@")) === name)?.ip;
  }

  /** Group names in registration order. */
  groups(): string[] {
    return [...this.registry.groups.keys()];
  }

  /** IPs of a group's processes, by index. */
  ipsInGroup(group: string): string[] {
    return (this.registry.groups.get(group) ?? []).map((p) => p.ip);
  }

  /** IPs of processes whose tag `key` equals `value`, in process (numeric IP) order. */
  ipsTagged(key: string, value: string): string[] {
    return this.registry.processes.filter((p) => p.tags[key] === value).map((p) => p.ip);
  }

  tagsFor(ip: string): Readonly<Record<string, string>> {
    return this.registry.byIp(ip)?.tags ?? {};
  }

  get myTags(): Readonly<Record<string, string>> {
    return this.tagsFor(this.myIp);
  }

  /** Every tag key some process has, sorted. */
  tagKeys(): string[] {
    const keys = new Set<string>();
    for (const p of this.registry.processes) for (const key of Object.keys(p.tags)) keys.add(key);
    return [...keys].sort();
  }

  /** Every value tag `key` takes this seed, sorted. */
  tagValues(key: string): string[] {
    const values = new Set<string>();
    for (const p of this.registry.processes) {
      const value = p.tags[key];
      if (value !== undefined) values.add(value);
    }
    return [...values].sort();
  }

  /** The group of the process at `ip`, or undefined (workloads, unknown IPs). */
  groupOf(ip: string): string | undefined {
    return this.registry.byIp(ip)?.group;
  }

  /** The group this actor belongs to, or undefined for workloads. */
  get myGroup(): string | undefined {
    return this.registry.byIp(this.myIp)?.group;
  }

  /** IPs of the workloads. */
  workloadIps(): string[] {
    return this.registry.workloadIps.slice();
  }

  // --- locality (the `.cluster(...)` group) ---------------------------------------------------

  /** Where this actor runs, or undefined outside the cluster (workloads, other groups). */
  get myLocality(): Locality | undefined {
    return this.localityFor(this.myIp);
  }

  localityFor(ip: string): Locality | undefined {
    return this.registry.byIp(ip)?.locality;
  }

  /** IPs of the cluster's processes in datacenter, zone or machine `id` (e.g. "dc1-z2"), in process order. */
  ipsInDomain(level: DomainLevel, id: string): string[] {
    return this.registry.processes
      .filter((p) => p.locality !== undefined && domainId(p.locality, level) === id)
      .map((p) => p.ip);
  }

  /** IPs of the processes on cluster machine `id` (e.g. "dc1-z1-m2"), in process order. */
  ipsOnMachine(id: string): string[] {
    return this.ipsInDomain("machine", id);
  }

  /** IPs of the other processes on this actor's machine. */
  peersOnMyMachine(): string[] {
    const mine = this.myLocality;
    if (mine === undefined) return [];
    return this.ipsInDomain("machine", mine.machine).filter((ip) => ip !== this.myIp);
  }

  /** Machine ids, sorted by their numbers (`dc1-z1-m2` before `dc1-z1-m10`). */
  machines(): string[] {
    return this.registry.domains("machine");
  }

  zones(): string[] {
    return this.registry.domains("zone");
  }

  datacenters(): string[] {
    return this.registry.domains("datacenter");
  }
}
