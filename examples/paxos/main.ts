/**
 * The production entry point: the same `PaxosNode` the simulator tests, on real TCP sockets and
 * real files (`createNodeContext` with the production providers).
 *
 *   node --import tsx examples/paxos/main.ts --id 1 \
 *     --peers 127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003 --data /var/lib/paxos-1
 *
 * `--peers` lists every node in id order, this one included (node `--id N` listens on the N-th
 * address); `--data` is the directory of its durable state (created if missing). Events go to
 * stderr as JSON lines. SIGTERM or SIGINT stops the node gracefully (exit code 0); a second
 * signal kills it.
 */
import { parseArgs } from "node:util";
import { createNodeContext, parseAddr } from "@moonpool/core";
import { PaxosNode, PAXOS_BUGS, type PaxosBug } from "./node.ts";

const USAGE = "usage: main.ts --id N --peers ip:port,ip:port,... --data DIR [--trace-level info] [--bug NAME]";

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

let values: { id?: string; peers?: string; data?: string; "trace-level"?: string; bug?: string };
try {
  ({ values } = parseArgs({
    options: {
      id: { type: "string" },
      peers: { type: "string" },
      data: { type: "string" },
      "trace-level": { type: "string" },
      bug: { type: "string" },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.id === undefined || values.peers === undefined || values.data === undefined)
  fail("--id, --peers and --data are required");
const peers = values.peers.split(",").map((p) => p.trim());
const id = Number(values.id);
if (!Number.isSafeInteger(id) || id < 1 || id > peers.length)
  fail(`--id must be 1..${peers.length} (a position in --peers), got '${values.id}'`);
let myIp: string;
try {
  for (const peer of peers) parseAddr(peer);
  myIp = parseAddr(peers[id - 1]!).ip;
} catch (error) {
  fail(`--peers: ${(error as Error).message}`);
}
const level = values["trace-level"] ?? "info";
if (!["trace", "debug", "info", "warn", "error"].includes(level))
  fail(`--trace-level must be trace, debug, info, warn or error, got '${level}'`);
if (values.bug !== undefined && !(PAXOS_BUGS as readonly string[]).includes(values.bug))
  fail(`--bug must be one of ${PAXOS_BUGS.join(", ")}`);

const ctx = createNodeContext({
  myIp,
  shutdown: true,
  storageRoot: values.data,
  traceLevel: level as "info",
});
const node = new PaxosNode({
  id,
  addresses: peers,
  options: values.bug === undefined ? {} : { bug: values.bug as PaxosBug },
});
try {
  await node.run(ctx);
  ctx.trace.info("stopped", { node: id });
} catch (error) {
  ctx.trace.error("crashed", { node: id, error: String(error) });
  process.exitCode = 1;
} finally {
  ctx.dispose();
}
