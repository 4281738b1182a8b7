/**
 * One seed, start to finish: boot processes → concurrent workload
 * setup with a barrier → run (the first finished workload triggers shutdown) → stop processes →
 * settle → concurrent checks. Every way user code can go wrong becomes a `SeedFailure` of this
 * seed; nothing here throws for a user error, so the campaign always continues with the next seed.
 */
import { abortError, isAbortError, type SimulationEscape, type TraceLevel } from "@moonpool/core";
import { Incarnation } from "../engine/incarnation.ts";
import { wallNowMs, natives } from "../engine/natives.ts";
import type { RunUntilResult } from "../engine/engine.ts";
import { msToUs } from "../engine/engine.ts";
import { Buggify } from "../chaos/buggify.ts";
import type { AssertionTable } from "../chaos/assertions/index.ts";
import { ProcessClock } from "../world/time.ts";
import type { SeedClocks } from "../chaos/clock-chaos.ts";
import { CONSOLE_EVENT_NAME, CONSOLE_LEVEL } from "../world/trace-log.ts";
import { lowerLevel } from "./trace-printing.ts";
import { EventTag, World } from "../world/world.ts";
import { SETTLE_BUDGET_MS, type SimulationConfig } from "./config.ts";
import { SimContextImpl } from "./context.ts";
import type { Discovery, SeedFailure, SeedFailureKind, SeedResult } from "./seed-result.ts";
import { StateBoard } from "./state-board.ts";
import { Topology, TopologyRegistry } from "./topology.ts";
import { ChaosWindow, setUpSeedChaos, type SeedChaosRecord } from "./seed-chaos.ts";
import { resolveLocalities, type Locality } from "./locality.ts";
import { ProcessLifecycle } from "./process-lifecycle.ts";
import { startNodeRuntime, type NodeRuntime } from "./node-fs-settings.ts";
import type { Process, Workload } from "./user-interfaces.ts";
import { thrownFields as errorText } from "./thrown.ts";
import { lazyStack } from "./failure-stack.ts";
import { WorkloadSizes } from "./shrink/sizes.ts";
import { ProcessErrors } from "./process-errors.ts";

/** Per-seed options the explorer and replay set. */
export interface SeedOptions {
  /** Reseed points of the sim stream (a recipe). */
  readonly breakpoints?: readonly { count: number; seed: number }[];
  /** Sees every draw of the sim stream before it happens (determinism checks). */
  readonly drawObserver?: (session: SeedSession) => (segment: number, calls: number) => void;
  /** Called once the seed has drawn its chaos, before any process boots (a pool worker posts it). */
  readonly onChaos?: (record: SeedChaosRecord) => void;
  /**
   * Also keep events from this level up for the caller to read (replay, the HTML timeline). Below
   * the simulation's own trace level they are kept aside, so the seed runs and hashes as in the run.
   */
  readonly keepLevel?: TraceLevel;
}

interface ProcessSlot {
  readonly group: string;
  readonly index: number;
  readonly groupSize: number;
  readonly ip: string;
  readonly actor: string;
  readonly factory: () => Process;
  incarnation: Incarnation | null;
}

interface WorkloadSlot {
  readonly workload: Workload;
  readonly index: number;
  readonly ip: string;
  readonly actor: string;
  incarnation: Incarnation;
  ctx: SimContextImpl;
  setupDone: boolean;
  runDone: boolean;
  checkDone: boolean;
}

// Phase conditions are checked before every step: module-level predicates, no closure per check.
const isSetupDone = (w: WorkloadSlot): boolean => w.setupDone;
const isRunDone = (w: WorkloadSlot): boolean => w.runDone;

/**
 * The running seed. The campaign keeps a reference to the current one so the simulation hook
 * (assertions, buggify, select) and the escape guard can reach it.
 */
export class SeedSession {
  readonly world: World;
  readonly buggify: Buggify;
  readonly failures: SeedFailure[] = [];
  readonly registry = new TopologyRegistry();
  readonly state = new StateBoard();
  readonly discoveries: Discovery[] = [];
  /** Reboots and the dead count of the processes (runner/process-lifecycle.ts). */
  readonly processLifecycle: ProcessLifecycle;
  private readonly processes: ProcessSlot[] = [];
  private readonly workloads: WorkloadSlot[] = [];
  private readonly clocks = new Map<string, ProcessClock>();
  private shutdownTriggered = false;
  private readonly brokenInvariants = new Set<string>();
  /** The seed's chaos (set right after the topology) and its window (cutoff, fault injector). */
  private chaosRecord: SeedChaosRecord | null = null;
  private readonly chaosWindow: ChaosWindow;
  private readonly onChaos: ((record: SeedChaosRecord) => void) | undefined;
  /** Clock drift bound of every actor's clock this seed. */
  private clockDriftMaxUs = 0;
  /** Each IP's clock faults this seed (set with the chaos). */
  private seedClocks: SeedClocks | null = null;
  /** The virtual Node runtime of this seed (`nodeRuntime()`), or null: guarded calls escape. */
  readonly nodeRuntime: NodeRuntime | null;
  /** Uncaught exceptions and unhandled rejections of simulated code. */
  readonly processErrors: ProcessErrors;
  /** What `ctx.size` answered this seed (lowered by a shrunk run's overrides). */
  private readonly sizes: WorkloadSizes;

  constructor(
    readonly config: SimulationConfig,
    readonly seed: number,
    readonly table: AssertionTable,
    options: SeedOptions = {},
  ) {
    const kept = lowerLevel(config.printTrace?.level, options.keepLevel);
    this.world = new World({
      seed,
      mode: config.steppingMode,
      traceLevel: config.traceLevel,
      ...(kept !== undefined ? { printLevel: kept } : {}),
    });
    if (options.breakpoints !== undefined && options.breakpoints.length > 0) {
      this.world.engine.streams.clock.setBreakpoints(options.breakpoints);
    }
    this.buggify = new Buggify(this.world.engine.streams.sim);
    if (options.drawObserver !== undefined) this.world.engine.streams.sim.observer = options.drawObserver(this);
    this.onChaos = options.onChaos;
    this.sizes = new WorkloadSizes(config.overrides?.sizes ?? {});
    const engine = this.world.engine;
    // Callbacks via locals: a function literal assigned to a property is allocated old (see World's constructor).
    const afterStep = (): void => this.checkInvariants();
    engine.afterStep = afterStep;
    if (config.taskFailuresFailSeed !== false) {
      const onTaskFailed = (actor: string, task: string, error: unknown): void => {
        const { message, stack } = errorText(error);
        this.fail(
          "task",
          `task '${task}' of ${actor} failed: ${message}. Catch inside the task what it may meet, or allowTaskFailures()`,
          { actor, stack },
        );
      };
      this.world.onTaskFailed = onTaskFailed;
    }
    this.processErrors = new ProcessErrors(this.world, config.processErrors ?? "failSeed", this.processes, this);
    this.nodeRuntime = startNodeRuntime(this.world, config, this.processErrors.ofRuntime);
    this.processErrors.runtime = this.nodeRuntime;
    this.processLifecycle = new ProcessLifecycle(this.world, (slot) => this.bootProcess(slot as ProcessSlot));
    this.chaosWindow = new ChaosWindow(
      this.world,
      config,
      this.registry,
      (kind, message, extra) => this.fail(kind, message, extra),
      this.processLifecycle,
    );
  }

  get nowMs(): number {
    return this.world.nowMs;
  }

  fail(
    kind: SeedFailureKind,
    message: string,
    extra: { actor?: string; stack?: string | (() => string | undefined); property?: string; waitedMs?: number } = {},
  ): void {
    // Picked field by field: an object with a `message` of its own must not replace the one given.
    const { actor, stack, property, waitedMs } = extra;
    const failure: SeedFailure = {
      kind,
      message,
      timeMs: this.nowMs,
      ...(actor !== undefined ? { actor } : {}),
      ...(typeof stack === "string" ? { stack } : {}),
      ...(property !== undefined ? { property } : {}),
      ...(waitedMs !== undefined ? { waitedMs } : {}),
    };
    if (typeof stack === "function") lazyStack(failure, stack);
    this.failures.push(failure);
    this.world.emit("runner", "error", "seed_failure", { kind, message });
  }

  // --- hooks used by the campaign -------------------------------------------------------------

  escaped(error: SimulationEscape): void {
    this.fail("escape", error.message, { actor: error.actor, stack: error.stack });
  }

  console(level: string, text: string): void {
    this.world.emit(this.world.engine.currentActor, CONSOLE_LEVEL[level] ?? "info", CONSOLE_EVENT_NAME, {
      stream: level,
      text,
    });
  }

  // --- lifecycle ------------------------------------------------------------------------------

  async run(): Promise<SeedResult> {
    const wallStart = wallNowMs();
    const engine = this.world.engine;
    try {
      this.table.beginSeed(this.seed, engine.streams.clock, (message, stack, property) =>
        this.fail("assertion", message, { actor: engine.currentActor, stack, property }),
      );
      for (const inv of this.config.invariants) {
        try {
          inv.reset?.();
        } catch (error) {
          const { message, stack } = errorText(error);
          this.fail("invariant", `invariant '${inv.name}' reset() threw: ${message}`, { stack });
        }
      }
      this.resolveTopology();
      this.setUpChaos();
      this.onChaos?.(this.chaosRecord!);
      await this.lifecycle();
    } finally {
      this.discoveries.push(...this.table.endSeed());
    }
    return {
      seed: this.seed,
      ok: this.failures.length === 0,
      failures: this.failures.slice(),
      simulatedTimeMs: this.nowMs,
      eventsProcessed: engine.steps,
      wallTimeMs: wallNowMs() - wallStart,
      traceHash: engine.traceHash.toString(16).padStart(8, "0"),
      simDraws: engine.streams.sim.totalCalls,
      recipeDraws: engine.streams.clock.totalCalls,
      discoveries: this.discoveries.slice(),
      chaos: {
        ...this.chaosRecord!,
        faultInjector: this.chaosWindow.injectorName,
        reboots: { ...this.processLifecycle.stats },
      },
      ...(this.world.metrics.series.length > 0 ? { metrics: this.world.metrics.report(this.nowMs) } : {}),
      ...(this.world.attachments.length > 0 ? { attachments: this.world.attachments.slice() } : {}),
      ...(this.sizes.report() !== undefined ? { sizes: this.sizes.report() } : {}),
    };
  }

  /** Draws and installs the seed's network chaos (after the topology: the draws depend on it). */
  private setUpChaos(): void {
    const seed = setUpSeedChaos(this.world, this.config, this.registry, this.buggify, this.processLifecycle);
    ({ record: this.chaosRecord, driftMaxUs: this.clockDriftMaxUs, clocks: this.seedClocks } = seed);
    // Workloads' clocks exist already.
    for (const clock of this.clocks.values()) this.configureClock(clock);
  }

  private configureClock(clock: ProcessClock): void {
    clock.driftMaxUs = this.clockDriftMaxUs;
    const skew = this.seedClocks?.skewOf(clock.ip) ?? null;
    if (skew !== null) clock.setSkew(skew.skew, skew.steps, skew.firstStepAtUs);
  }

  private resolveTopology(): void {
    const sim = this.world.engine.streams.sim;
    // Workloads first, then process groups, each drawing its count in registration order.
    let workloadIndex = 0;
    const workloadObjects: Workload[] = [];
    for (const spec of this.config.workloads) {
      const count = spec.count.isFixed ? spec.count.min : sim.rangeInt(spec.count.min, spec.count.maxExclusive);
      for (let i = 0; i < count; i++) {
        const index = workloadIndex++;
        try {
          workloadObjects.push(spec.create(index));
        } catch (error) {
          // A "setup" failure: the run phase is skipped and the seed fails, not the campaign.
          const { message, stack } = errorText(error);
          this.fail("setup", `creating workload #${index} (its factory) threw: ${message}`, { stack });
        }
      }
    }
    this.config.groups.forEach((group, g) => {
      // A cluster group's size is the product of its locality counts, drawn per seed.
      const localities: Locality[] | null =
        group.locality !== undefined ? resolveLocalities(group.locality, sim) : null;
      const range = typeof group.count === "number" ? null : group.count;
      let drawn: number;
      if (localities !== null) drawn = localities.length;
      else if (range === null) drawn = group.count as number;
      else drawn = sim.rangeInt(range[0], range[1] + 1);
      // A shrunk run may cap a ranged group (after its draw, so later draws stay in place).
      const cap = range !== null && localities === null ? this.config.overrides?.processes[group.name] : undefined;
      const count = cap !== undefined ? Math.min(drawn, Math.max(cap, range![0])) : drawn;
      for (let i = 0; i < count; i++) {
        const ip = `10.0.${g + 1}.${i + 1}`;
        const name = count === 1 ? group.name : `${group.name}-${i}`;
        const tags: Record<string, string> = {};
        for (const [key, values] of Object.entries(group.tags)) tags[key] = values[i % values.length]!;
        const slot: ProcessSlot = {
          group: group.name,
          index: i,
          groupSize: count,
          ip,
          actor: `${name}@${ip}`,
          factory: group.factory,
          incarnation: null,
        };
        this.processes.push(slot);
        this.processLifecycle.add(slot);
        this.registry.addProcess({
          ip,
          group: group.name,
          index: i,
          actor: slot.actor,
          tags,
          ...(localities !== null ? { locality: localities[i]! } : {}),
        });
      }
    });
    workloadObjects.forEach((workload, i) => {
      const ip = `10.0.0.${i + 1}`;
      this.registry.workloadIps.push(ip);
      const actor = `${workload.name}@${ip}`;
      const incarnation = new Incarnation(actor);
      const ctx = this.context(incarnation, ip, i, workloadObjects.length);
      this.workloads.push({
        workload,
        index: i,
        ip,
        actor,
        incarnation,
        ctx,
        setupDone: false,
        runDone: false,
        checkDone: false,
      });
    });
  }

  private context(incarnation: Incarnation, ip: string, clientId: number, clientCount: number): SimContextImpl {
    let clock = this.clocks.get(ip);
    if (clock === undefined) {
      clock = new ProcessClock(ip);
      this.configureClock(clock);
      this.clocks.set(ip, clock);
    }
    const topology = new Topology(this.registry, ip);
    const chaosWindow = this.chaosWindow.viewFor(incarnation, null);
    this.nodeRuntime?.register(incarnation, clock, ip);
    return new SimContextImpl(
      this.world,
      incarnation,
      clock,
      ip,
      clientId,
      clientCount,
      topology,
      this.state,
      chaosWindow,
      this.sizes,
    );
  }

  /** Starts (or restarts) a process: a fresh instance from its factory and a new incarnation. */
  bootProcess(slot: ProcessSlot): void {
    const incarnation = new Incarnation(slot.actor);
    slot.incarnation = incarnation;
    // A process restarted after the first workload finished starts with its shutdown signalled.
    if (this.shutdownTriggered)
      incarnation.signalShutdown(abortError("simulation shutdown: the first workload finished"));
    const ctx = this.context(incarnation, slot.ip, slot.index, slot.groupSize);
    this.world.engine.schedule(
      0,
      () => {
        if (!incarnation.alive) return;
        let instance: Process;
        try {
          instance = slot.factory();
        } catch (error) {
          const { message, stack } = errorText(error);
          const where = `process factory for '${slot.group}' threw while booting ${slot.actor}`;
          this.fail("process", `${where}: ${message}`, { actor: slot.actor, stack });
          return;
        }
        this.world.emit(slot.actor, "info", "process_started", { ip: slot.ip });
        this.invoke(() => instance.run(ctx)).then(
          () => {
            this.processLifecycle.processExited(slot, incarnation);
            if (incarnation.alive) this.world.emit(slot.actor, "info", "process_exited", { ip: slot.ip });
          },
          (error: unknown) => {
            this.processLifecycle.processExited(slot, incarnation);
            if (!incarnation.alive) return;
            // Rejections caused by graceful shutdown are the expected way out.
            if (incarnation.shuttingDown && isAbortError(error)) return;
            const { message, stack } = errorText(error);
            if (this.processErrors.runRejected(incarnation, slot.ip, `run() rejected: ${message}`)) return;
            this.fail(
              "process",
              `process ${slot.actor} run() rejected: ${message}. A process should handle the I/O errors it can meet; crashes are simulated by the runner.`,
              { actor: slot.actor, stack },
            );
          },
        );
      },
      null,
      EventTag.lifecycle,
      incarnation,
    );
  }

  /** Calls user code, turning a synchronous throw into a rejection. */
  private invoke(fn: () => Promise<void> | void): Promise<void> {
    try {
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private startPhase(phase: "setup" | "run" | "check", slot: WorkloadSlot): void {
    const method = slot.workload[phase];
    const markDone = () => {
      if (phase === "setup") slot.setupDone = true;
      else if (phase === "run") {
        slot.runDone = true;
        this.triggerShutdown(slot.actor);
      } else slot.checkDone = true;
    };
    if (method === undefined) {
      markDone();
      return;
    }
    const incarnation = slot.incarnation;
    this.world.engine.schedule(
      0,
      () => {
        this.invoke(() => method.call(slot.workload, slot.ctx)).then(markDone, (error: unknown) => {
          markDone();
          if (!incarnation.alive) return;
          const { message, stack } = errorText(error);
          this.fail(phase === "run" ? "workload" : phase, `workload ${slot.actor} ${phase}() rejected: ${message}`, {
            actor: slot.actor,
            stack,
          });
        });
      },
      null,
      EventTag.lifecycle,
      incarnation,
    );
  }

  /** The first finished workload asks everyone to wind down. */
  private triggerShutdown(by: string): void {
    if (this.shutdownTriggered) return;
    this.shutdownTriggered = true;
    this.world.emit("runner", "info", "shutdown_triggered", { by });
    // One reason for every incarnation, made at its first use (a DOMException per seed cost a short seed).
    let reason: DOMException | undefined;
    const makeReason = () => (reason ??= abortError("simulation shutdown: the first workload finished"));
    for (const w of this.workloads) w.incarnation.signalShutdownLazily(makeReason);
    for (const p of this.processes) p.incarnation?.signalShutdownLazily(makeReason);
  }

  private checkInvariants(): void {
    this.chaosWindow.liveness?.observe(this.world.trace, this.nowMs);
    const invariants = this.config.invariants;
    if (invariants.length === 0) return;
    const nowMs = this.nowMs;
    for (const inv of invariants) {
      if (this.brokenInvariants.has(inv.name)) continue;
      try {
        inv.observe(this.world.trace, nowMs);
      } catch (error) {
        // A throwing invariant is reported once and then skipped for the rest of the seed.
        this.brokenInvariants.add(inv.name);
        const { message, stack } = errorText(error);
        this.fail(
          "invariant",
          `invariant '${inv.name}' threw: ${message}. Record violations with assertAlways instead of throwing.`,
          { stack },
        );
      }
    }
  }

  private describeWaiting(slots: readonly { actor: string; incarnation: Incarnation | null }[]): string {
    const lines: string[] = [];
    for (const s of slots) {
      const inc = s.incarnation;
      if (inc === null || !inc.alive) continue;
      const waits = inc.waitingOn();
      lines.push(
        `${s.actor} waiting on ${waits.length > 0 ? waits.join(", ") : "a promise no simulated operation will settle"}`,
      );
    }
    return lines.join("; ");
  }

  private async phase(
    name: string,
    done: () => boolean,
    budgetMs: number,
    waiting: () => WorkloadSlot[],
  ): Promise<boolean> {
    const engine = this.world.engine;
    const deadlineUs = engine.nowUs + msToUs(budgetMs);
    const reason: RunUntilResult = await engine.runUntil(done, {
      deadlineUs,
      maxStepsPerInstant: this.config.maxStepsPerInstant,
    });
    if (reason === "done") return true;
    const stuck = this.describeWaiting(waiting());
    if (reason === "idle") {
      this.fail(
        "deadlock",
        `seed ${this.seed}: deadlock in ${name} at ${this.nowMs.toFixed(3)} ms: no pending event while workloads still run: ${stuck}`,
      );
    } else if (reason === "deadline") {
      this.fail(
        "runTimeBudget",
        `seed ${this.seed}: ${name} exceeded its simulated budget of ${budgetMs} ms with workloads still running: ${stuck}. Raise runTimeBudget(ms) if this is expected.`,
      );
    } else {
      this.fail(
        "busyLoop",
        `seed ${this.seed}: busy loop in ${name} at ${this.nowMs.toFixed(3)} ms: ${this.config.maxStepsPerInstant} steps without simulated time advancing (last actor ${engine.currentActor}). Code that polls must sleep between polls.`,
      );
    }
    return false;
  }

  private async lifecycle(): Promise<void> {
    const engine = this.world.engine;
    for (const slot of this.processes) this.bootProcess(slot);

    // Setup: concurrently, then a barrier. A failed setup skips run and check.
    for (const w of this.workloads) this.startPhase("setup", w);
    const setupOk = await this.phase(
      "setup",
      () => this.workloads.every(isSetupDone),
      this.config.runTimeBudgetMs,
      () => this.workloads.filter((w) => !w.setupDone),
    );
    const setupFailed = this.failures.some((f) => f.kind === "setup");

    let runOk = false;
    if (setupOk && !setupFailed) {
      this.chaosWindow.start(this.chaosRecord!.attrition);
      for (const w of this.workloads) this.startPhase("run", w);
      // A shrunk run with `stop=failure` ends at its first failure: what follows is not needed.
      const stop = this.config.overrides?.stopAtFailure === true;
      runOk = await this.phase(
        "run",
        () => this.workloads.every(isRunDone) || (stop && this.failures.length > 0),
        this.config.runTimeBudgetMs,
        () => this.workloads.filter((w) => !w.runDone),
      );
    }

    // No chaos outlives the run phase: injector stopped, chaos events and reboots under way dropped, faults off.
    this.chaosWindow.end(runOk && this.failures.length === 0);
    this.processLifecycle.stop();
    // Stop every process and workload leftover: a kill, not a graceful stop.
    this.triggerShutdown("runner");
    for (const p of this.processes) if (p.incarnation !== null) this.world.crash(p.incarnation);
    for (const w of this.workloads) this.world.crash(w.incarnation);

    // Timers of crashed actors would only be no-ops: drop them so settling ends when the world is really quiet.
    engine.queue.purgeDead();
    const settleDeadlineUs = engine.nowUs + msToUs(SETTLE_BUDGET_MS);
    const settled = await engine.runUntil(() => engine.queue.size === 0, {
      deadlineUs: settleDeadlineUs,
      maxStepsPerInstant: this.config.maxStepsPerInstant,
    });
    if (settled !== "done" && settled !== "idle") {
      this.fail(
        "settleTimeout",
        `seed ${this.seed}: events still pending ${SETTLE_BUDGET_MS} ms after processes stopped (${engine.queue.size} queued)`,
      );
    }

    // Checks run with fresh contexts once the world is quiet, even after a failed run, so the
    // retained model can still be validated; a rejected check fails the seed.
    const stopped = this.config.overrides?.stopAtFailure === true && this.failures.length > 0;
    if (!stopped && (runOk || this.workloads.every((w) => w.runDone))) {
      for (const w of this.workloads) {
        w.incarnation = new Incarnation(`${w.actor}`);
        w.ctx = this.context(w.incarnation, w.ip, w.index, this.workloads.length);
        this.startPhase("check", w);
      }
      await this.phase(
        "check",
        () => this.workloads.every((w) => w.checkDone),
        SETTLE_BUDGET_MS,
        () => this.workloads.filter((w) => !w.checkDone),
      );
      for (const w of this.workloads) w.incarnation.kill();
    }

    // Let Node report rejections nobody handled (it does so once the tick queue drains). This is a
    // trip through the real event loop, so the escape guard stands down meanwhile.
    engine.boundary?.leaveSimulation();
    await new Promise<void>((resolve) => natives.setImmediate(resolve));
    engine.boundary?.enterSimulation();
  }
}
