/**
 * The bundled examples' campaigns for the determinism matrix, each in both stepping modes. The
 * seed count and base seed come from the command line (`--iterations`, `--base-seed`).
 */
import { leaderElection, leaderElectionVoteTwice } from "../../examples/leader-election/leader-election.sim.ts";
import { grpcService } from "../../examples/grpc-service/grpc-service.sim.ts";
import { kv } from "../../examples/kv/kv.sim.ts";
import { retryStorm } from "../../examples/retry-storm/retry-storm.sim.ts";
import { topology } from "../../examples/topology/topology.sim.ts";
import { transport } from "../../examples/transport/transport.sim.ts";
import { paxos } from "../../examples/paxos/paxos.sim.ts";
import { webService } from "../../examples/web-service/web-service.sim.ts";
import { wsChat } from "../../examples/ws-chat/ws-chat.sim.ts";
import { yjsSync } from "../../examples/yjs-sync/yjs-sync.sim.ts";
import { lowdbStore } from "../../examples/lowdb-store/lowdb-store.sim.ts";
import { rejoin } from "../../examples/rejoin/rejoin.sim.ts";
import { inMode } from "./in-mode.ts";


export const leaderElectionFast = inMode(leaderElection, "fast");
export const leaderElectionParanoid = inMode(leaderElection, "paranoid");
export const voteTwiceFast = inMode(leaderElectionVoteTwice, "fast");
export const voteTwiceParanoid = inMode(leaderElectionVoteTwice, "paranoid");
export const paxosFast = inMode(paxos, "fast");
export const paxosParanoid = inMode(paxos, "paranoid");
export const webServiceFast = inMode(webService, "fast");
export const webServiceParanoid = inMode(webService, "paranoid");
export const yjsSyncFast = inMode(yjsSync, "fast");
export const yjsSyncParanoid = inMode(yjsSync, "paranoid");
export const grpcServiceFast = inMode(grpcService, "fast");
export const grpcServiceParanoid = inMode(grpcService, "paranoid");
export const wsChatFast = inMode(wsChat, "fast");
export const wsChatParanoid = inMode(wsChat, "paranoid");
export const kvFast = inMode(kv, "fast");
export const kvParanoid = inMode(kv, "paranoid");
export const retryStormFast = inMode(retryStorm, "fast");
export const retryStormParanoid = inMode(retryStorm, "paranoid");
export const topologyFast = inMode(topology, "fast");
export const topologyParanoid = inMode(topology, "paranoid");
export const transportFast = inMode(transport, "fast");
export const transportParanoid = inMode(transport, "paranoid");
export const lowdbStoreFast = inMode(lowdbStore, "fast");
export const lowdbStoreParanoid = inMode(lowdbStore, "paranoid");
export const rejoinFast = inMode(rejoin, "fast");
export const rejoinParanoid = inMode(rejoin, "paranoid");
