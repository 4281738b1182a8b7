/**
 * The production entry point for real: three `main.ts` processes on 127.0.0.1 with their own data
 * directories, a client on the production providers, some slots decided, one node restarted from
 * its files, and every process stopped with SIGTERM. Ports come from the OS (bound and released
 * just before the nodes start); the data directories are removed afterwards.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { NullTracer, productionProviders, Transport } from "@moonpool/core";
import { ask, PaxosService, type Reply, type Request } from "./protocol.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLIENT_TIMEOUT_MS = 2_000;
const STARTUP_DEADLINE_MS = 20_000;

interface RunningNode {
  readonly id: number;
  readonly child: ChildProcess;
  readonly events: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
}

async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve) => {
          const server = createServer();
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

function startNode(id: number, peers: readonly string[], dataDir: string): RunningNode {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", MAIN, "--id", String(id), "--peers", peers.join(","), "--data", dataDir],
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const events: Record<string, unknown>[] = [];
  let buffered = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        events.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        events.push({ event: "raw", line });
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { id, child, events, exited };
}

async function stopNode(node: RunningNode): Promise<number | null> {
  if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill("SIGTERM");
  return node.exited;
}

const providers = productionProviders({ tracer: new NullTracer() });
// The test's client: one transport, one resilient connection per node (closed after the test).
const client = new Transport(providers);

async function request(addr: string, body: Request): Promise<Reply | null> {
  return ask(client.stub(PaxosService, addr), body, CLIENT_TIMEOUT_MS);
}

/** Polls `addr` until it answers a read (the node recovered its state and listens). */
async function waitUntilServing(addr: string): Promise<void> {
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  while (Date.now() < deadline) {
    if ((await request(addr, { type: "read", slot: 0 }))?.type === "read") return;
    await providers.time.sleep(100);
  }
  throw new Error(`node at ${addr} did not start within ${STARTUP_DEADLINE_MS} ms`);
}

async function propose(
  addresses: readonly string[],
  value: string,
  first: number,
): Promise<{ slot: number; ballot: number }> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const reply = await request(addresses[(first + attempt) % addresses.length]!, { type: "propose", value });
    if (reply?.type === "proposed" && reply.ok) return { slot: reply.slot, ballot: reply.ballot };
    await providers.time.sleep(50);
  }
  throw new Error(`value ${value} was not decided after 10 attempts`);
}

/** Reads `slot` from `addr` until the node learned it (decide messages are asynchronous). */
async function readDecided(addr: string, slot: number): Promise<string | null> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const reply = await request(addr, { type: "read", slot });
    if (reply?.type === "read" && reply.value !== null) return reply.value;
    await providers.time.sleep(50);
  }
  return null;
}

describe("paxos on real sockets and files (main.ts)", () => {
  const dataDirs: string[] = [];
  const running: RunningNode[] = [];

  afterAll(async () => {
    await client.close();
    await Promise.all(running.map(stopNode));
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("three nodes on 127.0.0.1 decide slots, survive a restart from their files, and stop on SIGTERM", async () => {
    const ports = await freePorts(3);
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    for (let i = 0; i < 3; i++) dataDirs.push(await mkdtemp(join(tmpdir(), `moonpool-paxos-${i + 1}-`)));
    for (let i = 0; i < 3; i++) running.push(startNode(i + 1, addresses, dataDirs[i]!));
    await Promise.all(addresses.map(waitUntilServing));

    // Five values through different nodes: each lands in its own slot, every node agrees.
    const decided = new Map<number, string>();
    for (let i = 0; i < 5; i++) {
      const value = `real-${i}`;
      const { slot } = await propose(addresses, value, i % 3);
      expect(decided.has(slot), `slot ${slot} decided twice`).toBe(false);
      decided.set(slot, value);
    }
    expect([...decided.keys()].sort()).toEqual([0, 1, 2, 3, 4]);
    for (const [slot, value] of decided) {
      for (const addr of addresses) expect(await readDecided(addr, slot), `${addr} slot ${slot}`).toBe(value);
    }
    // A retry of a decided value is answered from the log (idempotency), not decided again.
    const again = await request(addresses[0]!, { type: "propose", value: "real-0" });
    expect(again).toMatchObject({ type: "proposed", ok: true, already: true });

    // Restart node 1 from its data directory: it recovers the promise it persisted.
    const first = running[0]!;
    expect(await stopNode(first)).toBe(0);
    const restarted = startNode(1, addresses, dataDirs[0]!);
    running[0] = restarted;
    await waitUntilServing(addresses[0]!);
    const recovered = restarted.events.find((e) => e.event === "recovered");
    expect(recovered).toBeDefined();
    expect(recovered!.promised as number).toBeGreaterThan(0);
    expect(recovered!.accepted as number).toBeGreaterThan(0);
    expect(recovered!.damaged).toBe(0); // SIGTERM let it finish its appends: nothing torn
    // The cluster, restarted node included, keeps deciding new slots.
    const { slot } = await propose(addresses, "after-restart", 0);
    expect(slot).toBe(5);

    for (const node of running) expect(await stopNode(node)).toBe(0);
    for (const node of running) expect(node.events.some((e) => e.event === "stopped")).toBe(true);
  });
});
