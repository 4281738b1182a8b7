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
 * event. Reboots (`reboot`, `rebootRandom`, `rebootMachine`, `deadCount`, ...) come with the
 * process lifecycle issue and will join this interface.
 */
import type { RandomProvider, TimeProvider, Tracer } from "@moonpool/core";
import { parseAddr } from "../world/network.ts";
import { partitionDurationUs } from "../world/partitions.ts";
import type { ActorScope } from "../world/scope.ts";
import type { World } from "../world/world.ts";
import type { Topology } from "./topology.ts";

/** How long a partition lasts when no duration is given (moonpool: one hour; the cutoff heals it earlier). */
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
  // Reboot methods (issue 4: process lifecycle) go here.
}

function checkIp(ip: string, call: string): string {
  try {
    parseAddr(`${ip}:1`);
  } catch {
    throw new RangeError(`FaultContext.${call}: ${JSON.stringify(ip)} is not an IPv4 address; use an IP from ctx.processIps() or ctx.topology`);
  }
  return ip;
}

function durationUs(durationMs: number | undefined, call: string): number {
  const ms = durationMs ?? DEFAULT_MANUAL_PARTITION_MS;
  if (typeof ms !== "number" || !(ms >= 0) || !Number.isFinite(ms)) {
    throw new RangeError(`FaultContext.${call}: durationMs must be a finite number of milliseconds >= 0, got ${String(durationMs)}`);
  }
  return partitionDurationUs(ms);
}

export class FaultContextImpl implements FaultContext {
  constructor(
    private readonly world: World,
    private readonly scope: ActorScope,
    readonly chaosShutdown: AbortSignal,
    readonly topology: Topology,
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
}
