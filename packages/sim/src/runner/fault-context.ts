/**
 * Custom fault injectors (`builder.faultFactory(() => injector)`) and what they can do.
 *
 * A fresh injector per seed runs from the start of the run phase until the chaos cutoff
 * (`chaosDuration(ms)`): at the cutoff `ctx.chaosShutdown` aborts, its pending sleeps reject with
 * an `AbortError` (the normal way out), and any fault it still asks for is ignored. It is stopped
 * for good when the run phase ends. Without `chaosDuration` injectors never run (the builder
 * refuses a `faultFactory` without it). A rejection other than that AbortError fails the seed.
 *
 * Partitions are directional, by IP (`partition(a, b)` holds what a sends to b, on connections
 * opened by either side); `partitionBetween` cuts both directions. Every call is a `sim_fault`
 * event.
 *
 * Reboots (see `process-lifecycle.ts` for the three kinds): `reboot(ip, kind)` draws a recovery delay of
 * 1000..10000 ms and, for a graceful reboot, a grace period of 2000..5000 ms from the sim stream;
 * `rebootWithDelays` takes them (fixed or `[minMs, maxMs]`). `rebootRandom`, `rebootTagged`,
 * `rebootMachine` and `rebootDomain` reboot a live process, or every live process of a tag or
 * failure domain (each with its own delays). A process that is already dead (rebooted and not
 * yet restarted) is skipped: the reboot is ignored, traced and counted. Each returns what it
 * rebooted. After the cutoff reboots are ignored and traced, as partitions are.
 */
import type { RandomProvider, TimeProvider, Tracer } from "@moonpool/core";
import { parseSimAddr } from "../world/network/index.ts";
import { partitionDurationUs } from "../world/network/partitions.ts";
import type { ActorScope } from "../world/scope.ts";
import type { World } from "../world/world.ts";
import type { DomainLevel } from "./locality.ts";
import {
  DEFAULT_GRACE_PERIOD_MS,
  DEFAULT_RECOVERY_DELAY_MS,
  delayRangeError,
  isRebootKind,
  normalizeDelayRange,
  REBOOT_KINDS,
  type DelayRangeMs,
  type ProcessLifecycle,
  type RebootKind,
} from "./process-lifecycle.ts";
import type { Topology } from "./topology.ts";

/** How long a partition lasts when no duration is given: one hour (the chaos cutoff heals it earlier). */
export const DEFAULT_MANUAL_PARTITION_MS = 3_600_000;

export interface FaultInjector {
  readonly name: string;
  /** Injects faults until `ctx.chaosShutdown` aborts (loop with `ctx.time.sleep`). */
  inject(ctx: FaultContext): Promise<void>;
}

export interface FaultContext {
  /** Simulated time of the injector (sleeps reject with AbortError at the cutoff). */
  readonly time: TimeProvider;
  /** The counted sim stream, like `ctx.random`. */
  readonly random: RandomProvider;
  readonly trace: Tracer;
  /** Aborted at the chaos cutoff: stop injecting. */
  readonly chaosShutdown: AbortSignal;
  /** The seed's topology (groups, tags, localities); `myIp` is empty. */
  readonly topology: Topology;
  /** IPs of every process, in group then index order. */
  processIps(): string[];
  /** Holds everything `fromIp` sends to `toIp` for `durationMs` (default one hour, or until healed or the cutoff). */
  partition(fromIp: string, toIp: string, durationMs?: number): void;
  /** `partition` in both directions. */
  partitionBetween(a: string, b: string, durationMs?: number): void;
  /** Ends the `fromIp -> toIp` partition, if any. */
  healPartition(fromIp: string, toIp: string): void;
  /** `healPartition` in both directions. */
  healBetween(a: string, b: string): void;
  /** Whether bytes from `fromIp` to `toIp` are held now (pair, send or receive partition). */
  isPartitioned(fromIp: string, toIp: string): boolean;
  /** Holds everything `ip` sends, to anyone. */
  partitionSendFrom(ip: string, durationMs?: number): void;
  /** Holds everything sent to `ip`, by anyone. */
  partitionRecvTo(ip: string, durationMs?: number): void;
  healSendFrom(ip: string): void;
  healRecvTo(ip: string): void;
  /**
   * Reboots the process at `ip` with the default delays (recovery 1000..10000 ms, grace
   * 2000..5000 ms). Returns false when it was ignored: the process is already dead, or the cutoff
   * passed.
   */
  reboot(ip: string, kind: RebootKind): boolean;
  /**
   * `reboot` with these delays: fixed milliseconds or `[minMs, maxMs]` drawn per reboot. The
   * grace period only matters for a graceful reboot (default 2000..5000 ms); a crash has none.
   */
  rebootWithDelays(ip: string, kind: RebootKind, recoveryDelayMs: DelayRangeMs, gracePeriodMs?: DelayRangeMs): boolean;
  /** Reboots one live process drawn uniformly (sim stream); returns its IP, or null if none is live (or after the cutoff). */
  rebootRandom(kind: RebootKind): string | null;
  /** Reboots every live process whose tag `key` is `value`; returns their IPs. */
  rebootTagged(key: string, value: string, kind: RebootKind): string[];
  /** Reboots every live process of cluster machine `id` (e.g. "dc1-z2-m1"); returns their IPs. */
  rebootMachine(id: string, kind: RebootKind): string[];
  /** Reboots every live process of a datacenter, zone or machine of the cluster; returns their IPs. */
  rebootDomain(level: DomainLevel, id: string, kind: RebootKind): string[];
  /** Processes rebooted and not yet restarted. */
  deadCount(): number;
  /** Whether the process at `ip` is dead (rebooted and not yet restarted). */
  isDead(ip: string): boolean;
}

function checkIp(ip: string, call: string): string {
  try {
    parseSimAddr(`${ip}:1`);
  } catch {
    throw new RangeError(
      `FaultContext.${call}: ${JSON.stringify(ip)} is not an IPv4 address; use an IP from ctx.processIps() or ctx.topology`,
    );
  }
  return ip;
}

function checkKind(kind: unknown, call: string): asserts kind is RebootKind {
  if (!isRebootKind(kind)) {
    throw new RangeError(
      `FaultContext.${call}: kind must be one of ${REBOOT_KINDS.map((k) => `"${k}"`).join(", ")}, got ${JSON.stringify(kind) ?? String(kind)}`,
    );
  }
}

function checkDelay(range: DelayRangeMs, what: string, call: string): readonly [number, number] {
  const error = delayRangeError(range, what);
  if (error !== null) throw new RangeError(`FaultContext.${call}: ${error}`);
  return normalizeDelayRange(range);
}

function durationUs(durationMs: number | undefined, call: string): number {
  const ms = durationMs ?? DEFAULT_MANUAL_PARTITION_MS;
  if (typeof ms !== "number" || !(ms >= 0) || !Number.isFinite(ms)) {
    throw new RangeError(
      `FaultContext.${call}: durationMs must be a finite number of milliseconds >= 0, got ${String(durationMs)}`,
    );
  }
  return partitionDurationUs(ms);
}

export class FaultContextImpl implements FaultContext {
  constructor(
    private readonly world: World,
    private readonly scope: ActorScope,
    readonly chaosShutdown: AbortSignal,
    readonly topology: Topology,
    private readonly lifecycle: ProcessLifecycle,
  ) {}

  get time(): TimeProvider {
    return this.scope.time;
  }

  get random(): RandomProvider {
    return this.scope.random;
  }

  get trace(): Tracer {
    return this.scope.trace;
  }

  processIps(): string[] {
    return this.topology.allProcessIps();
  }

  /** After the cutoff nothing new may be injected: the call is traced and ignored. */
  private allowed(call: string): boolean {
    if (!this.world.inRecoveryMode && !this.chaosShutdown.aborted) return true;
    this.world.emit(this.scope.actor, "warn", "fault_ignored_after_cutoff", { call });
    return false;
  }

  partition(fromIp: string, toIp: string, durationMs?: number): void {
    const us = durationUs(durationMs, "partition");
    checkIp(fromIp, "partition");
    checkIp(toIp, "partition");
    if (this.allowed("partition")) this.world.network.partitions.cutPair(fromIp, toIp, us, "manual");
  }

  partitionBetween(a: string, b: string, durationMs?: number): void {
    this.partition(a, b, durationMs);
    this.partition(b, a, durationMs);
  }

  healPartition(fromIp: string, toIp: string): void {
    this.world.network.partitions.healPair(checkIp(fromIp, "healPartition"), checkIp(toIp, "healPartition"));
  }

  healBetween(a: string, b: string): void {
    this.healPartition(a, b);
    this.healPartition(b, a);
  }

  isPartitioned(fromIp: string, toIp: string): boolean {
    return this.world.network.partitions.blocks(fromIp, toIp);
  }

  partitionSendFrom(ip: string, durationMs?: number): void {
    const us = durationUs(durationMs, "partitionSendFrom");
    checkIp(ip, "partitionSendFrom");
    if (this.allowed("partitionSendFrom")) this.world.network.partitions.cutSend(ip, us);
  }

  partitionRecvTo(ip: string, durationMs?: number): void {
    const us = durationUs(durationMs, "partitionRecvTo");
    checkIp(ip, "partitionRecvTo");
    if (this.allowed("partitionRecvTo")) this.world.network.partitions.cutRecv(ip, us);
  }

  healSendFrom(ip: string): void {
    this.world.network.partitions.healSend(checkIp(ip, "healSendFrom"));
  }

  healRecvTo(ip: string): void {
    this.world.network.partitions.healRecv(checkIp(ip, "healRecvTo"));
  }

  // --- reboots ---------------------------------------------------------------------------------

  deadCount(): number {
    return this.lifecycle.deadCount();
  }

  isDead(ip: string): boolean {
    return this.lifecycle.isDead(checkIp(ip, "isDead"));
  }

  reboot(ip: string, kind: RebootKind): boolean {
    return this.rebootOne(ip, kind, DEFAULT_RECOVERY_DELAY_MS, DEFAULT_GRACE_PERIOD_MS, "reboot");
  }

  rebootWithDelays(
    ip: string,
    kind: RebootKind,
    recoveryDelayMs: DelayRangeMs,
    gracePeriodMs: DelayRangeMs = DEFAULT_GRACE_PERIOD_MS,
  ): boolean {
    return this.rebootOne(ip, kind, recoveryDelayMs, gracePeriodMs, "rebootWithDelays");
  }

  private rebootOne(
    ip: string,
    kind: RebootKind,
    recoveryDelayMs: DelayRangeMs,
    gracePeriodMs: DelayRangeMs,
    call: string,
  ): boolean {
    checkKind(kind, call);
    const recovery = checkDelay(recoveryDelayMs, "recoveryDelayMs", call);
    const grace = checkDelay(gracePeriodMs, "gracePeriodMs", call);
    this.checkProcessIp(ip, call);
    if (!this.allowed(call)) return false;
    return this.lifecycle.reboot(ip, kind, recovery, grace, "injector");
  }

  rebootRandom(kind: RebootKind): string | null {
    checkKind(kind, "rebootRandom");
    if (!this.allowed("rebootRandom")) return null;
    const live = this.topology.allProcessIps().filter((ip) => !this.lifecycle.isDead(ip));
    if (live.length === 0) return null;
    const ip = live[this.world.engine.streams.sim.rangeInt(0, live.length)]!;
    return this.rebootAll([ip], kind)[0] ?? null;
  }

  rebootTagged(key: string, value: string, kind: RebootKind): string[] {
    checkKind(kind, "rebootTagged");
    if (!this.allowed("rebootTagged")) return [];
    return this.rebootAll(this.topology.ipsTagged(key, value), kind);
  }

  rebootMachine(id: string, kind: RebootKind): string[] {
    return this.rebootDomain("machine", id, kind);
  }

  rebootDomain(level: DomainLevel, id: string, kind: RebootKind): string[] {
    checkKind(kind, "rebootDomain");
    if (level !== "datacenter" && level !== "zone" && level !== "machine") {
      throw new RangeError(
        `FaultContext.rebootDomain: level must be "datacenter", "zone" or "machine", got ${JSON.stringify(level) ?? String(level)}`,
      );
    }
    if (!this.allowed("rebootDomain")) return [];
    return this.rebootAll(this.topology.ipsInDomain(level, id), kind);
  }

  /** Reboots each live IP of `ips` (default delays); returns those rebooted. Dead ones are ignored (and counted). */
  private rebootAll(ips: readonly string[], kind: RebootKind): string[] {
    const done: string[] = [];
    for (const ip of ips) {
      if (this.lifecycle.reboot(ip, kind, DEFAULT_RECOVERY_DELAY_MS, DEFAULT_GRACE_PERIOD_MS, "injector"))
        done.push(ip);
    }
    return done;
  }

  private checkProcessIp(ip: string, call: string): void {
    checkIp(ip, call);
    if (!this.lifecycle.has(ip)) {
      throw new RangeError(
        `FaultContext.${call}: ${ip} is not a process IP (workloads cannot be rebooted); use an IP from ctx.processIps() or ctx.topology`,
      );
    }
  }
}
