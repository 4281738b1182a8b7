/**
 * The virtual Node runtime of one seed: the escape guard's wrappers ask it for a virtual answer to
 * each guarded call, given to the simulated process whose code is running (the owner of the event
 * being applied). Each process draws from its own random stream, derived from the seed and its
 * actor name, so two processes never draw the same ids and a reboot continues its stream.
 */
import { activeVirtualDispatch, type VirtualCall, type VirtualDispatch } from "../../engine/escape-guard.ts";
import type { EventOwner } from "../../engine/event-queue.ts";
import { deriveSeed, RandomStream } from "../../engine/rng.ts";
import { ProcessClock } from "../time.ts";
import type { World } from "../world.ts";
import "./builtin-calls.ts";
import "./wasm.ts";
import { virtualImplementation } from "./registry.ts";
import type { TimerIds } from "./timers.ts";
import { VirtualProcess } from "./virtual-process.ts";

/** Key of the per-process streams ("nodertm\0"), independent of the engine's own streams. */
const PROCESS_STREAM_KEY = 0x6e6f646572746d00n;

/** 32-bit FNV-1a of an actor name: its index in the seed's family of process streams. */
function actorIndex(actor: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < actor.length; i++) h = Math.imul(h ^ actor.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class NodeRuntime implements VirtualDispatch {
  private readonly processes = new Map<EventOwner, VirtualProcess>();
  private readonly streams = new Map<string, RandomStream>();
  private readonly timerIds: TimerIds = new Map();
  /** Code that runs outside any process (the runner's own events) uses exact clocks. */
  private readonly outside: VirtualProcess;

  constructor(
    private readonly world: World,
    /** A callback the runtime called threw (in Node: an uncaught exception). */
    private readonly onUncaught: (process: VirtualProcess, error: unknown, where: string) => void,
  ) {
    this.outside = this.create(null, "runner", new ProcessClock(""), "");
  }

  /** Makes `owner` (an incarnation of `actor`) a process of this runtime; call before its code runs. */
  register(owner: EventOwner, clock: ProcessClock, ip: string): VirtualProcess {
    const process = this.create(owner, owner.actor, clock, ip);
    this.processes.set(owner, process);
    return process;
  }

  /** The virtual process of `owner`, or null when it is none of this runtime's. */
  processOf(owner: EventOwner): VirtualProcess | null {
    return this.processes.get(owner) ?? null;
  }

  /** The process whose code is running now. */
  current(): VirtualProcess {
    const owner = this.world.engine.currentOwner;
    return (owner !== null ? this.processes.get(owner) : undefined) ?? this.outside;
  }

  implementation(call: string): VirtualCall | undefined {
    const implementation = virtualImplementation(call);
    if (implementation === undefined) return undefined;
    const process = this.current();
    return (thisArg, args) => implementation(process, thisArg, args);
  }

  /** The random stream of `actor` (created at its first process). */
  streamOf(actor: string): RandomStream {
    let stream = this.streams.get(actor);
    if (stream === undefined) {
      stream = new RandomStream(deriveSeed(this.world.engine.seed, actorIndex(actor)), PROCESS_STREAM_KEY);
      this.streams.set(actor, stream);
    }
    return stream;
  }

  private create(owner: EventOwner | null, actor: string, clock: ProcessClock, ip: string): VirtualProcess {
    return new VirtualProcess(
      this.world,
      owner,
      actor,
      clock,
      ip,
      this.streamOf(actor),
      this.timerIds,
      this.onUncaught,
    );
  }
}

/** The simulated process whose code is running, when a seed with the Node runtime runs; else null. */
export function currentVirtualProcess(): VirtualProcess | null {
  const dispatch = activeVirtualDispatch();
  return dispatch instanceof NodeRuntime ? dispatch.current() : null;
}
