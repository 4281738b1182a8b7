/**
 * The simulation: the room as one process (`ws` on `node:http`), three members as workloads, on
 * the virtual Node runtime (ws draws its handshake keys and frame masks from `node:crypto`; the
 * heartbeats and backoffs are Node timers). Network chaos during the chaos window; the room's
 * process crashes now and then and comes back as a new life of the room.
 */
// The simulator first: its wrappers must be in place before ws captures `node:crypto`'s functions.
import {
  AttritionVictims,
  Chaos,
  SimulationBuilder,
  WorkloadCount,
  type Process,
  type SimContext,
} from "@moonpool/sim";
import { CATCH_UP_WITHIN_MS, Member, Referee, Roster } from "./member.ts";
import { createRoom, ROOM_PORT, type RoomOptions } from "./room.ts";

export const CHAOS_MS = 4_000;
export const MEMBERS = 3;

class RoomProcess implements Process {
  readonly name = "room";
  constructor(private readonly options: RoomOptions) {}

  async run(ctx: SimContext): Promise<void> {
    const room = createRoom(this.options);
    room.server.listen(ROOM_PORT);
    await new Promise((resolve) => ctx.shutdown.addEventListener("abort", resolve, { once: true }));
    room.close();
  }
}

export function wsChatSimulation(options: RoomOptions = {}): SimulationBuilder {
  // The members and the referee of one seed share its roster.
  let roster = new Roster();
  return new SimulationBuilder()
    .nodeRuntime()
    .beforeIteration(() => {
      roster = new Roster();
    })
    .processes(1, () => new RoomProcess(options))
    .workloads(WorkloadCount.fixed(MEMBERS), (index) => new Member(index, CHAOS_MS, roster))
    .workloadFactory(() => new Referee(CHAOS_MS, MEMBERS, roster))
    .chaosDuration(CHAOS_MS)
    .enableChaos([
      Chaos.network("random"),
      Chaos.attrition(
        {
          maxDead: 1,
          probGraceful: 0,
          probCrash: 1,
          probWipe: 0,
          victims: AttritionVictims.group("room"),
          recoveryDelayMs: [200, 1_500],
        },
        "swarm",
      ),
    ])
    .runTimeBudget(CHAOS_MS + CATCH_UP_WITHIN_MS + 10_000);
}
