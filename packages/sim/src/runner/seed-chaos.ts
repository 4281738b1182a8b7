/**
 * The chaos of one seed, as the seed runner drives it:
 *
 * 1. `setUpSeedChaos` (right after the topology is resolved): draws the network configuration
 *    (baseline, random, swarm, knobs), then the storage configuration, then attrition's swarm
 *    masks, installs them into the world, wires the cluster's link latency, and returns what to
 *    record in the `SeedResult`.
 * 2. `ChaosWindow.start()` (when the run phase starts): schedules the cutoff at
 *    run start + `chaosDuration`, starts a fresh fault injector and the attrition loops.
 * 3. At the cutoff: `world.enterRecoveryMode()` (no new configuration-driven fault, partitions
 *    healed), `chaosShutdown` aborted, the injector asked to stop, attrition stopped (reboots
 *    already under way still restart their process); a `chaos_ended` trace event and
 *    the built-in reachable assertion "phase: chaos ended".
 * 4. `ChaosWindow.end()` (when the run phase is over): the injector is stopped, chaos events still
 *    queued are dropped, and faults stay off for settle and check (processes are gone by then).
 */
import { abortError, assertReachable, isAbortError } from "@moonpool/core";
import { msToUs } from "../engine/engine.ts";
import { Incarnation, never, type PendingOp, type TaskState } from "../engine/incarnation.ts";
import type { Buggify } from "../chaos/buggify.ts";
import {
  clockDriftMaxUs,
  describeNetworkChaos,
  installNetworkChaos,
  resolveNetworkChaos,
  type NetworkChaosRecord,
} from "../chaos/network-chaos.ts";
import {
  describeStorageChaos,
  installStorageChaos,
  resolveStorageChaos,
  type StorageChaosRecord,
} from "../chaos/storage-config.ts";
import { describeClockChaos, resolveClockChaos, SeedClocks, type ClockChaosRecord } from "../chaos/clock-chaos.ts";
import { describeDnsChaos, resolveDnsChaos, type DnsChaosRecord } from "../chaos/dns-chaos.ts";
import { buildNameTable } from "./dns-options.ts";
import { describeAttritionChaos, resolveAttritionChaos, type AttritionChaosRecord } from "../chaos/attrition.ts";
import { AttritionInjector } from "./attrition-injector.ts";
import { LivenessWatch } from "./liveness.ts";
import type { SeedFailureKind } from "./seed-result.ts";
import type { ProcessLifecycle, RebootStats } from "./process-lifecycle.ts";
import { ActorScope } from "../world/scope.ts";
import { ProcessClock } from "../world/time.ts";
import { EventTag, type World } from "../world/world.ts";
import { NETWORK_NO_FAULTS } from "../world/network/config.ts";
import { DEFAULT_STORAGE_CONFIG } from "../world/storage/config.ts";
import type { SimulationConfig } from "./config.ts";
import { FaultContextImpl, type FaultInjector } from "./fault-context.ts";
import { linkLatencySampler } from "./locality.ts";
import { NO_OVERRIDES, overrideClockConfig, overrideNetworkConfig, overrideStorageConfig } from "./shrink/overrides.ts";
import { Topology, type TopologyRegistry } from "./topology.ts";
import { thrownFields as errorText } from "./thrown.ts";

/** What a seed ran with, chaos-wise: in `SeedResult.chaos` and `report.toJSON()`. */
export interface SeedChaosRecord {
  readonly network: NetworkChaosRecord;
  readonly storage: StorageChaosRecord;
  /** The seed's clock faults (absent in records read back from older report files). */
  readonly clock?: ClockChaosRecord;
  /** The seed's DNS faults (absent in records read back from older report files). */
  readonly dns?: DnsChaosRecord;
  /** The `Chaos.attrition` entries as this seed runs them (mode, swarm mask, values); empty without attrition. */
  readonly attrition: readonly AttritionChaosRecord[];
  /** The reboots that happened this seed (by injectors and attrition); filled in when the seed ends. */
  readonly reboots: RebootStats | null;
  /** The cutoff after the run phase starts, or null (faults for the whole run, no injectors). */
  readonly chaosDurationMs: number | null;
  /** The fault injector's name, or null without `faultFactory`. */
  readonly faultInjector: string | null;
}

/**
 * The chaos of a seed whose worker died or was stopped before the seed drew its chaos (while its
 * workload factories ran): no fault had been switched on yet.
 */
export const NO_CHAOS_DRAWN: SeedChaosRecord = Object.freeze({
  network: Object.freeze({
    mode: "none",
    swarmMask: null,
    buggifyKnobs: false,
    spikedKnobs: {},
    config: NETWORK_NO_FAULTS,
  }),
  storage: Object.freeze({
    mode: "baseline",
    swarmMask: null,
    buggifyKnobs: false,
    spikedKnobs: {},
    config: DEFAULT_STORAGE_CONFIG,
  }),
  attrition: [],
  reboots: null,
  chaosDurationMs: null,
  faultInjector: null,
});

/** One line for the text report of a failing seed: which faults were on. */
export function describeSeedChaos(record: SeedChaosRecord): string {
  const window =
    record.chaosDurationMs === null ? "window=none (faults for the whole run)" : `window=${record.chaosDurationMs}ms`;
  const injector = record.faultInjector === null ? "" : ` injector=${record.faultInjector}`;
  const storage = record.storage.mode === "baseline" ? "" : ` ${describeStorageChaos(record.storage)}`;
  const clockLine = record.clock === undefined ? "" : describeClockChaos(record.clock);
  const clock = clockLine === "" ? "" : ` ${clockLine}`;
  const dnsLine = record.dns === undefined ? "" : describeDnsChaos(record.dns);
  const dns = dnsLine === "" ? "" : ` ${dnsLine}`;
  // Records read back from older report files may lack the lifecycle fields.
  const attrition = (record.attrition ?? []).map((a) => ` ${describeAttritionChaos(a)}`).join("");
  const r = record.reboots;
  const reboots =
    r === null || r === undefined || r.graceful + r.crash + r.crashAndWipe + r.ignored === 0
      ? ""
      : ` reboots=[graceful:${r.graceful},crash:${r.crash},wipe:${r.crashAndWipe},forceKills:${r.forceKills},ignored:${r.ignored}]`;
  return `${describeNetworkChaos(record.network)}${storage}${clock}${dns}${attrition} ${window}${injector}${reboots}`;
}

/** The built-in reachable assertion at the chaos cutoff: shows in every report that the cutoff was reached. */
export const CHAOS_ENDED_ASSERTION = "phase: chaos ended";
/** The IP an injector's scope uses (it has no network of its own). */
export const FAULT_INJECTOR_IP = "0.0.0.0";

type Fail = (
  kind: SeedFailureKind,
  message: string,
  extra: { actor?: string; stack?: string; property?: string; waitedMs?: number },
) => void;

/**
 * Draws and installs the seed's chaos; returns the record, each process clock's drift bound and
 * the seed's clocks (each IP's skew).
 */
export function setUpSeedChaos(
  world: World,
  config: SimulationConfig,
  registry: TopologyRegistry,
  buggify: Buggify,
  lifecycle: { isDead(ip: string): boolean },
): { record: SeedChaosRecord; driftMaxUs: number; clocks: SeedClocks } {
  const sim = world.engine.streams.sim;
  const overrides = config.overrides ?? NO_OVERRIDES;
  const drawn = resolveNetworkChaos(config.chaos, config.networkFaults, world.engine.streams, buggify);
  // A shrunk run's overrides apply after the draws, so the seed's other draws stay where they were.
  const network = { ...drawn, config: overrideNetworkConfig(drawn.config, overrides) };
  installNetworkChaos(world, network, buggify);
  // Storage draws after the network's, and none at all without a Chaos.storage entry.
  const streams = world.engine.streams;
  const knobs = config.chaos.buggifyKnobs;
  const storageSetting = config.storageFaults ?? null;
  const drawnStorage = resolveStorageChaos(config.chaos.storage ?? null, knobs, streams, buggify, storageSetting);
  const storage = { ...drawnStorage, config: overrideStorageConfig(drawnStorage.config, overrides) };
  installStorageChaos(world, storage);
  // Attrition's swarm masks: 4 config-stream draws per swarm entry, after storage's.
  const drawnAttrition = resolveAttritionChaos(config.chaos.attrition ?? [], world.engine.streams.config);
  const attrition = overrides.attritionOff ? [] : drawnAttrition;
  // Clocks draw last (nothing at all with exact clocks), so the other surfaces' draws are unchanged.
  const drawnClock = resolveClockChaos(
    config.chaos.clock ?? null,
    config.clockFaults ?? "baseline",
    knobs,
    streams,
    buggify,
  );
  const clockRecord = { ...drawnClock, config: overrideClockConfig(drawnClock.config, overrides) };
  // DNS draws after the clocks, and nothing at all without a Chaos.dns entry.
  const dns = resolveDnsChaos(config.chaos.dns ?? null, config.dnsFaults ?? "none", streams);
  world.dns = buildNameTable(world, registry, config.hostAliases ?? {}, dns.config, (ip) => lifecycle.isDead(ip));
  if (overrides.skipFaults.length > 0) world.faultSkips = new Set(overrides.skipFaults);
  if (overrides.quickRestarts.length > 0) world.quickRestarts = new Set(overrides.quickRestarts);
  const ips = [...registry.processes.map((p) => p.ip), ...registry.workloadIps];
  const clocks = new SeedClocks(clockRecord, world, ips);
  if (config.linkLatency !== null) {
    world.network.linkLatencyUs = linkLatencySampler(config.linkLatency, (ip) => registry.byIp(ip)?.locality, sim);
  }
  const record: SeedChaosRecord = Object.freeze({
    network,
    storage,
    clock: clockRecord,
    ...(dns.mode !== "none" ? { dns } : {}),
    attrition,
    reboots: null,
    chaosDurationMs: config.chaosDurationMs,
    faultInjector: null,
  });
  return { record, driftMaxUs: clockDriftMaxUs(network.config), clocks };
}

/** What a workload or process sees of the chaos window: `ctx.chaosWindow`. */
export interface ChaosWindowView {
  /** The configured window (`.chaosDuration(ms)`), or null: faults last the whole run. */
  readonly durationMs: number | null;
  /** True once the cutoff happened (recovery mode: no new configuration-driven fault). */
  readonly ended: boolean;
  /**
   * Resolves at the cutoff (at once when it already happened). Never resolves without a window.
   * Like every wait it stops when its process crashes and rejects with an `AbortError` on
   * graceful shutdown.
   */
  whenEnded(): Promise<void>;
  /**
   * Simulated ms of the recovery tail left: from the cutoff (or now, once past it) to the end of
   * the run phase's budget (`.runTimeBudget(ms)`). Null without a window or before the run phase.
   */
  recoveryTimeLeftMs(): number | null;
}

/**
 * An actor's view of the window: frozen, its methods callable unbound, `ended` an own enumerable getter. The getter
 * is one shared function: an object literal with a getter of its own gets a hidden class of its own, which holds
 * the getter and so keeps the whole seed reachable for young-generation collections until the next full one.
 */
class WindowView implements ChaosWindowView {
  declare readonly ended: boolean;
  readonly #isEnded: () => boolean;

  private static readonly endedGetter = function (this: WindowView): boolean {
    return this.#isEnded();
  };

  constructor(
    readonly durationMs: number | null,
    isEnded: () => boolean,
    readonly whenEnded: () => Promise<void>,
    readonly recoveryTimeLeftMs: () => number | null,
  ) {
    this.#isEnded = isEnded;
    Object.defineProperty(this, "ended", { get: WindowView.endedGetter, enumerable: true });
    Object.freeze(this);
  }
}

export class ChaosWindow {
  /** Made for the fault injector only: an AbortController per seed was a measurable share of a short seed. */
  private controller: AbortController | null = null;
  private cutOff = false;
  /** True simulated time the run phase started at (µs), once it did. */
  private runStartUs: number | null = null;
  private readonly waiters: PendingOp<void>[] = [];
  /** Owner of the cutoff event: dead once the run phase is over. */
  private readonly cutoffOwner = { actor: "runner", alive: true };
  private injector: { readonly name: string; readonly incarnation: Incarnation } | null = null;
  private attrition: AttritionInjector | null = null;
  /** Name of the injector that ran, for the seed's record. */
  injectorName: string | null = null;
  /** The seed's liveness properties, judged over the recovery tail (null: none, or no chaos window). */
  readonly liveness: LivenessWatch | null;

  constructor(
    private readonly world: World,
    private readonly config: SimulationConfig,
    private readonly registry: TopologyRegistry,
    private readonly fail: Fail,
    /** The processes' reboots (for `FaultContext.reboot*` and attrition). */
    private readonly lifecycle: ProcessLifecycle,
  ) {
    const properties = config.liveness ?? [];
    this.liveness =
      properties.length === 0 || config.chaosDurationMs === null ? null : new LivenessWatch(world, properties, fail);
  }

  /** The run phase starts: schedule the cutoff and start this seed's injector and attrition. */
  start(attrition: readonly AttritionChaosRecord[] = []): void {
    const durationMs = this.config.chaosDurationMs;
    this.runStartUs = this.world.engine.nowUs;
    if (durationMs === null) return; // no window: configuration faults for the whole run, injectors never run
    this.liveness?.start(durationMs);
    this.world.engine.schedule(msToUs(durationMs), () => this.cutoff(), null, EventTag.runner, this.cutoffOwner);
    if (this.config.faultFactory !== null) this.startInjector(this.config.faultFactory);
    if (attrition.length > 0) {
      this.attrition = new AttritionInjector(this.world, this.lifecycle, this.registry, attrition);
      this.attrition.start();
    }
  }

  /** The chaos cutoff (also callable directly by tests of the window). */
  cutoff(): void {
    if (this.cutOff) return;
    this.cutOff = true;
    this.world.enterRecoveryMode();
    this.world.emit("runner", "info", "chaos_ended", { chaosDurationMs: this.config.chaosDurationMs ?? -1 });
    assertReachable(CHAOS_ENDED_ASSERTION);
    const reason = abortError("chaos ended: the chaos duration elapsed");
    this.controller?.abort(reason);
    this.injector?.incarnation.beginShutdown(reason);
    this.attrition?.stop();
    for (const op of this.waiters.splice(0)) Incarnation.resolve(op, undefined);
  }

  /** The view of the window the actor of `incarnation` (and task `task`) gets. */
  viewFor(incarnation: Incarnation, task: TaskState | null): ChaosWindowView {
    return new WindowView(
      this.config.chaosDurationMs,
      () => this.cutOff,
      () => this.waitForCutoff(incarnation, task),
      () => this.recoveryTimeLeftMs(),
    );
  }

  private waitForCutoff(incarnation: Incarnation, task: TaskState | null): Promise<void> {
    if (this.cutOff) return Promise.resolve();
    const op = incarnation.begin<void>(task, true, "chaos window end");
    if (op === null) return never<void>();
    if (this.config.chaosDurationMs !== null) this.waiters.push(op);
    return op.promise;
  }

  private recoveryTimeLeftMs(): number | null {
    const durationMs = this.config.chaosDurationMs;
    if (durationMs === null || this.runStartUs === null) return null;
    const budgetEndUs = this.runStartUs + msToUs(this.config.runTimeBudgetMs);
    const fromUs = Math.max(this.world.engine.nowUs, this.runStartUs + msToUs(durationMs));
    return Math.max(0, budgetEndUs - fromUs) / 1000;
  }

  /**
   * The run phase is over: stop the injector, drop chaos events, keep faults off from here on.
   * `judgeLiveness`: the run ended normally, so a liveness property still pending fails.
   */
  end(judgeLiveness = false): void {
    this.liveness?.end(judgeLiveness);
    this.cutoffOwner.alive = false;
    this.world.faultOwner.alive = false;
    this.attrition?.stop();
    if (this.injector !== null) this.world.crash(this.injector.incarnation);
    this.world.enterRecoveryMode();
  }

  private startInjector(factory: () => FaultInjector): void {
    let injector: FaultInjector;
    try {
      injector = factory();
    } catch (error) {
      const { message, stack } = errorText(error);
      this.fail("faultInjector", `faultFactory() threw: ${message}`, { stack });
      return;
    }
    if (
      injector === null ||
      typeof injector !== "object" ||
      typeof injector.name !== "string" ||
      typeof injector.inject !== "function"
    ) {
      this.fail(
        "faultInjector",
        "faultFactory() must return an object with a 'name' and an async 'inject(ctx)' method",
        {},
      );
      return;
    }
    const actor = `${injector.name}@fault-injector`;
    const incarnation = new Incarnation(actor);
    this.injector = { name: injector.name, incarnation };
    this.injectorName = injector.name;
    const scope = new ActorScope(this.world, incarnation, null, new ProcessClock(FAULT_INJECTOR_IP), FAULT_INJECTOR_IP);
    this.controller ??= new AbortController();
    const signal = this.controller.signal;
    const ctx = new FaultContextImpl(this.world, scope, signal, new Topology(this.registry, ""), this.lifecycle);
    this.world.engine.schedule(
      0,
      () => {
        let result: Promise<void>;
        try {
          result = Promise.resolve(injector.inject(ctx));
        } catch (error) {
          result = Promise.reject(error);
        }
        result.then(
          () => undefined,
          (error: unknown) => {
            if (!incarnation.alive) return;
            if (signal.aborted && isAbortError(error)) return; // stopped at the cutoff: the expected way out
            const { message, stack } = errorText(error);
            this.fail("faultInjector", `fault injector '${injector.name}' rejected: ${message}`, { actor, stack });
          },
        );
      },
      null,
      EventTag.runner,
      incarnation,
    );
  }
}
