/**
 * The built-in attrition injector: one loop per `Chaos.attrition` entry, from the
 * start of the run phase to the chaos cutoff. Each loop sleeps 1000..5000 ms (sim stream), then:
 *
 * - scope "process": if the pool already has `maxDead` dead processes, it does nothing
 *   (reachable "attrition: max_dead limit enforced"); else it draws a kind (weights) and a victim
 *   uniformly among the live processes of the pool, and reboots it.
 * - scope "machine" / "zone" / "datacenter": it draws one domain among those (sorted) that hold a
 *   live process of the pool; if rebooting all of them would take the pool above `maxDead` it
 *   does nothing ("attrition: max_dead limit enforced (group)"); else one kind for all, each
 *   rebooted (each with its own delays).
 *
 * Buckets `attrition_reboot_kind {kind}`, `attrition_process_targeted {group, index}` and
 * `attrition_domain_targeted {scope, groupSize}` record what was chosen.
 */
import { assertReachable, assertSometimesEach } from "@moonpool/core";
import { msToUs } from "../engine/engine.ts";
import { drawRebootKind, victimsKey, type AttritionChaosRecord } from "../chaos/attrition.ts";
import { EventTag, type World } from "../world/world.ts";
import { domainId } from "./locality.ts";
import type { ProcessLifecycle } from "./process-lifecycle.ts";
import type { ProcessEntry, TopologyRegistry } from "./topology.ts";

/** Time between two attrition steps of one entry, in ms (both inclusive). */
export const ATTRITION_INTERVAL_MS: readonly [number, number] = Object.freeze([1_000, 5_000] as const);

export const ATTRITION_ASSERTIONS = Object.freeze({
  maxDeadEnforced: "attrition: max_dead limit enforced",
  maxDeadEnforcedGroup: "attrition: max_dead limit enforced (group)",
  rebootKind: "attrition_reboot_kind",
  processTargeted: "attrition_process_targeted",
  domainTargeted: "attrition_domain_targeted",
});

/** The processes an entry may reboot, in process (IP) order. */
export function attritionPool(record: AttritionChaosRecord, registry: TopologyRegistry): ProcessEntry[] {
  const v = record.victims;
  switch (v.kind) {
    case "any":
      return registry.processes.slice();
    case "group":
      return registry.processes.filter((p) => p.group === v.group);
    case "tagged":
      return registry.processes.filter((p) => p.tags[v.key] === v.value);
  }
}

export class AttritionInjector {
  /** Owner of the loops' events: dead at the cutoff. */
  private readonly owner = { actor: "attrition", alive: true };

  constructor(
    private readonly world: World,
    private readonly lifecycle: ProcessLifecycle,
    private readonly registry: TopologyRegistry,
    private readonly records: readonly AttritionChaosRecord[],
  ) {}

  /** Starts one loop per entry (the run phase starts). */
  start(): void {
    for (const record of this.records) {
      const pool = attritionPool(record, this.registry);
      if (pool.length === 0) {
        this.world.emit("attrition", "info", "attrition_no_victims", { victims: victimsKey(record.victims) });
        continue;
      }
      this.scheduleNext(record, pool);
    }
  }

  /** The chaos cutoff: no step from now on (reboots already started run their course). */
  stop(): void {
    this.owner.alive = false;
  }

  private scheduleNext(record: AttritionChaosRecord, pool: readonly ProcessEntry[]): void {
    const sim = this.world.engine.streams.sim;
    const [lo, hi] = ATTRITION_INTERVAL_MS;
    const delayMs = sim.rangeInt(lo, hi + 1);
    this.world.engine.schedule(
      msToUs(delayMs),
      () => {
        if (!this.owner.alive || !this.lifecycle.active) return;
        this.step(record, pool);
        this.scheduleNext(record, pool);
      },
      null,
      EventTag.runner,
      this.owner,
    );
  }

  private step(record: AttritionChaosRecord, pool: readonly ProcessEntry[]): void {
    const lifecycle = this.lifecycle;
    const sim = this.world.engine.streams.sim;
    let deadInPool = 0;
    for (const p of pool) if (lifecycle.isDead(p.ip)) deadInPool++;
    if (record.scope === "process") {
      if (deadInPool >= record.maxDead) {
        assertReachable(ATTRITION_ASSERTIONS.maxDeadEnforced);
        return;
      }
      const live = pool.filter((p) => !lifecycle.isDead(p.ip));
      if (live.length === 0) return;
      const kind = drawRebootKind(sim, record);
      const victim = live[sim.rangeInt(0, live.length)]!;
      assertSometimesEach(ATTRITION_ASSERTIONS.rebootKind, { kind });
      assertSometimesEach(ATTRITION_ASSERTIONS.processTargeted, { group: victim.group, index: victim.index });
      lifecycle.reboot(victim.ip, kind, record.recoveryDelayMs, record.gracePeriodMs, "attrition");
      return;
    }
    const level = record.scope;
    const liveByDomain = new Map<string, ProcessEntry[]>();
    for (const p of pool) {
      if (p.locality === undefined || lifecycle.isDead(p.ip)) continue;
      const id = domainId(p.locality, level);
      let list = liveByDomain.get(id);
      if (list === undefined) liveByDomain.set(id, (list = []));
      list.push(p);
    }
    const domains = this.registry.domains(level).filter((id) => liveByDomain.has(id));
    if (domains.length === 0) return;
    const domain = domains[sim.rangeInt(0, domains.length)]!;
    const targets = liveByDomain.get(domain)!;
    if (deadInPool + targets.length > record.maxDead) {
      assertReachable(ATTRITION_ASSERTIONS.maxDeadEnforcedGroup);
      return;
    }
    const kind = drawRebootKind(sim, record);
    assertSometimesEach(ATTRITION_ASSERTIONS.rebootKind, { kind });
    assertSometimesEach(ATTRITION_ASSERTIONS.domainTargeted, { scope: level, groupSize: targets.length });
    this.world.emit("attrition", "info", "attrition_domain_reboot", {
      scope: level,
      domain,
      kind,
      ips: targets.map((p) => p.ip).join(","),
    });
    for (const p of targets) lifecycle.reboot(p.ip, kind, record.recoveryDelayMs, record.gracePeriodMs, "attrition");
  }
}
