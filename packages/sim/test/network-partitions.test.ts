/**
 * Partitions cut traffic between IPs, whichever side opened the connection, in the directions
 * cut; bytes and connects wait (in order) and move on when the partition heals or expires.
 * Random partitions split the sorted set of connected IPs by their strategy.
 */
import { describe, expect, it } from "vitest";
import { abortError, type Connection } from "@moonpool/core";
import { Incarnation } from "../src/engine/incarnation.ts";
import { NETWORK_FAULT_KINDS, type PartitionStrategy } from "../src/index.ts";
import { ActorScope } from "../src/world/scope.ts";
import { ProcessClock } from "../src/world/time.ts";
import { compareIps } from "../src/world/network/partitions.ts";
import {
  Actor,
  bytesOf,
  CLIENT_IP,
  harness,
  ioCode,
  readChunks,
  run,
  SERVER_ADDR,
  SERVER_IP,
  type Harness,
} from "./fixtures/world-harness.ts";

const K = NETWORK_FAULT_KINDS;
const MS = 1000;

/** A connection from `a` to a listener of `b` (`b:port`), both ends returned once accepted. */
async function pair(
  h: Harness,
  from: ActorScope,
  to: ActorScope,
  port: number,
): Promise<{ a: Connection; b: Connection }> {
  let b: Connection | undefined;
  let a: Connection | undefined;
  new Actor(async () => {
    const listener = await to.network.bind(`${to.ip}:${port}`);
    b = await listener.accept();
  });
  new Actor(async () => {
    await from.time.sleep(1);
    a = await from.network.connect(`${to.ip}:${port}`);
  });
  expect(await run(h.world, () => a !== undefined && b !== undefined)).toBe("done");
  return { a: a!, b: b! };
}

/** Everything `conn` receives, collected by one reader for the whole test. */
const received = new Map<Connection, number[]>();
function collect(conn: Connection): number[] {
  let got = received.get(conn);
  if (got === undefined) {
    const list: number[] = [];
    received.set(conn, (got = list));
    new Actor(async () => {
      for (let c = await conn.read(); c !== null; c = await conn.read()) list.push(...c);
    });
  }
  return got;
}

/** Writes `bytes` on `conn`, waits `ms`, and returns what `reader` received since the last call. */
async function sendAndWait(
  h: Harness,
  writer: ActorScope,
  conn: Connection,
  reader: Connection,
  bytes: number[],
  ms: number,
): Promise<number[]> {
  const got = collect(reader);
  const before = got.length;
  const w = new Actor(async () => {
    await conn.write(Uint8Array.from(bytes));
    await writer.time.sleep(ms);
  });
  expect(await run(h.world, () => w.done)).toBe("done");
  return got.slice(before);
}

describe("partitions", () => {
  for (const opener of ["client", "server"] as const) {
    it(`cut both directions of a connection opened by the ${opener}, and heal restores it with every byte in order`, async () => {
      const h = harness(1);
      const [from, to] = opener === "client" ? [h.client, h.server] : [h.server, h.client];
      const { a, b } = await pair(h, from, to, 4600);
      const net = h.world.network;
      net.partitions.cutPair(CLIENT_IP, SERVER_IP, 10_000 * MS, "manual");
      net.partitions.cutPair(SERVER_IP, CLIENT_IP, 10_000 * MS, "manual");
      // Nothing crosses, either way, while the partition holds.
      expect(await sendAndWait(h, from, a, b, [1, 2, 3], 500)).toEqual([]);
      expect(await sendAndWait(h, to, b, a, [9], 500)).toEqual([]);
      expect(net.partitions.blocks(CLIENT_IP, SERVER_IP) && net.partitions.blocks(SERVER_IP, CLIENT_IP)).toBe(true);
      const createdAtMs = h.world.nowMs;
      // Heal: the held bytes arrive, in order, and new ones flow.
      net.partitions.healPair(CLIENT_IP, SERVER_IP);
      net.partitions.healPair(SERVER_IP, CLIENT_IP);
      expect(await sendAndWait(h, from, a, b, [4, 5], 100)).toEqual([1, 2, 3, 4, 5]);
      await sendAndWait(h, to, b, a, [10], 100);
      expect(collect(a)).toEqual([9, 10]);
      const created = h.faults(K.partitionCreated).map((e) => [e.str("from"), e.str("to"), e.str("cause")]);
      const healed = h.faults(K.partitionHealed).map((e) => [e.str("from"), e.str("to"), e.str("cause")]);
      expect(created).toEqual([
        [CLIENT_IP, SERVER_IP, "manual"],
        [SERVER_IP, CLIENT_IP, "manual"],
      ]);
      expect(healed).toEqual([
        [CLIENT_IP, SERVER_IP, "healed"],
        [SERVER_IP, CLIENT_IP, "healed"],
      ]);
      expect(h.faults(K.partitionHealed)[0]!.timeMs).toBeGreaterThan(createdAtMs - 1);
    });
  }

  it("a directed partition holds one direction only", async () => {
    const h = harness(2);
    const { a, b } = await pair(h, h.client, h.server, 4600);
    h.world.network.partitions.cutPair(CLIENT_IP, SERVER_IP, 10_000 * MS, "manual");
    expect(await sendAndWait(h, h.client, a, b, [1], 200)).toEqual([]);
    expect(await sendAndWait(h, h.server, b, a, [2], 200)).toEqual([2]);
  });

  it("expires after its duration (partition_healed cause=expired) and traffic resumes", async () => {
    const h = harness(3);
    const { a, b } = await pair(h, h.client, h.server, 4600);
    const cutAtMs = h.world.nowMs;
    h.world.network.partitions.cutPair(CLIENT_IP, SERVER_IP, 300 * MS, "manual");
    expect(await sendAndWait(h, h.client, a, b, [7], 200)).toEqual([]);
    expect(await sendAndWait(h, h.client, a, b, [8], 200)).toEqual([7, 8]);
    const [healed] = h.faults(K.partitionHealed);
    expect(healed!.str("cause")).toBe("expired");
    expect(healed!.timeMs).toBeCloseTo(cutAtMs + 300, 3);
  });

  it("send and receive partitions hold everything from / to one IP", async () => {
    const h = harness(4);
    const { a, b } = await pair(h, h.client, h.server, 4600);
    const parts = h.world.network.partitions;
    parts.cutSend(CLIENT_IP, 10_000 * MS);
    expect(await sendAndWait(h, h.client, a, b, [1], 100)).toEqual([]);
    expect(await sendAndWait(h, h.server, b, a, [2], 100)).toEqual([2]);
    parts.healSend(CLIENT_IP);
    parts.cutRecv(CLIENT_IP, 10_000 * MS);
    expect(await sendAndWait(h, h.server, b, a, [3], 100)).toEqual([]);
    parts.healRecv(CLIENT_IP);
    expect(await sendAndWait(h, h.server, b, a, [4], 100)).toEqual([3, 4]);
    expect(h.faults().map((e) => e.str("kind"))).toEqual([
      K.sendPartitionCreated,
      K.sendPartitionHealed,
      K.recvPartitionCreated,
      K.recvPartitionHealed,
    ]);
    expect(h.faults(K.sendPartitionCreated)[0]!.fields).toMatchObject({ ip: CLIENT_IP, durationMs: 10_000 });
  });

  it("holds a connect across a partition until it heals; a caller that gives up is never orphaned", async () => {
    const h = harness(5);
    let accepted = 0;
    new Actor(async () => {
      const listener = await h.server.network.bind(SERVER_ADDR);
      for (;;) {
        await listener.accept();
        accepted++;
      }
    });
    h.world.network.partitions.cutPair(SERVER_IP, CLIENT_IP, 10_000 * MS, "manual"); // the reply direction is enough
    const cli = new Actor(async () => {
      await h.client.time.sleep(1);
      return (await h.client.network.connect(SERVER_ADDR)).localAddr;
    });
    expect(await run(h.world, () => cli.done, 2_000 * MS)).toBe("deadline");
    expect(cli.done).toBe(false);
    h.world.network.partitions.healPair(SERVER_IP, CLIENT_IP);
    expect(await run(h.world, () => cli.done)).toBe("done");
    expect(cli.value).toBe(`${CLIENT_IP}:40000`);

    // A second connect held by a partition, whose caller shuts down: AbortError, and its port is freed.
    h.world.network.partitions.cutPair(CLIENT_IP, SERVER_IP, 10_000 * MS, "manual");
    const other = new Incarnation(`other@${CLIENT_IP}`);
    const scope = new ActorScope(h.world, other, null, new ProcessClock(CLIENT_IP), CLIENT_IP);
    const held = new Actor(async () => scope.network.connect(SERVER_ADDR));
    expect(await run(h.world, () => held.done, h.world.engine.nowUs + 100 * MS)).toBe("deadline");
    other.beginShutdown(abortError());
    expect(await run(h.world, () => held.done)).toBe("done");
    expect((held.error as Error).name).toBe("AbortError");
    h.world.network.partitions.healPair(CLIENT_IP, SERVER_IP);
    const again = new Actor(async () => (await h.client.network.connect(SERVER_ADDR)).localAddr);
    expect(await run(h.world, () => again.done)).toBe("done");
    expect(again.value).toBe(`${CLIENT_IP}:40002`);
    // The abandoned attempt was dropped when the partition healed: it never reached the listener.
    expect(await run(h.world, () => false)).toBe("idle");
    expect(accepted).toBe(2);
    expect(other.pendingCount).toBe(0);
  });

  it("recovery mode heals every partition in both directions (cause=recovery) and releases held bytes", async () => {
    const h = harness(6);
    const { a, b } = await pair(h, h.client, h.server, 4600);
    const parts = h.world.network.partitions;
    parts.cutPair(CLIENT_IP, SERVER_IP, 10_000 * MS, "manual");
    parts.cutPair(SERVER_IP, CLIENT_IP, 10_000 * MS, "manual");
    parts.cutSend("10.0.1.9", 10_000 * MS);
    expect(await sendAndWait(h, h.client, a, b, [1, 2], 50)).toEqual([]);
    h.world.enterRecoveryMode();
    expect(h.faults(K.partitionHealed).map((e) => [e.str("from"), e.str("to"), e.str("cause")])).toEqual([
      [CLIENT_IP, SERVER_IP, "recovery"],
      [SERVER_IP, CLIENT_IP, "recovery"],
    ]);
    expect(h.faults(K.sendPartitionHealed)).toHaveLength(1);
    expect(parts.empty).toBe(true);
    expect(await sendAndWait(h, h.client, a, b, [3], 50)).toEqual([1, 2, 3]);
  });
});

describe("random partitions", () => {
  /** Four processes, every pair connected, then random partitions rolled on deliveries. */
  async function roll(strategy: PartitionStrategy, seed: number) {
    const h = harness(seed);
    const ips = ["10.0.1.10", "10.0.1.2", "10.0.1.3", "10.0.1.1"];
    const scopes = ips.map((ip) => new ActorScope(h.world, new Incarnation(`n@${ip}`), null, new ProcessClock(ip), ip));
    const conns: Connection[] = [];
    for (let i = 0; i < scopes.length; i++) {
      for (let j = i + 1; j < scopes.length; j++) {
        const { a, b } = await pair(h, scopes[i]!, scopes[j]!, 5000 + i * 10 + j);
        conns.push(a, b);
      }
    }
    h.world.network.config = {
      ...h.world.network.config,
      partitionProbability: 1,
      partitionDurationUs: [100 * MS, 100 * MS],
      partitionStrategy: strategy,
    };
    const readers = conns.map((c) => new Actor(() => readChunks(c)));
    const writer = new Actor(async () => {
      for (let round = 0; round < 5; round++) {
        for (const c of conns) await c.write(Uint8Array.of(round));
        await scopes[0]!.time.sleep(150);
      }
      for (const c of conns) await c.close();
    });
    expect(await run(h.world, () => writer.done && readers.every((r) => r.done))).toBe("done");
    // No byte lost or reordered by any partition.
    for (const r of readers) expect(bytesOf(r.value!)).toEqual([0, 1, 2, 3, 4]);
    const created = h.faults(K.partitionCreated);
    expect(created.every((e) => e.str("cause") === "random" && e.num("durationMs") === 100)).toBe(true);
    // Group the creation events by instant: each instant is one random partition.
    const byInstant = new Map<number, [string, string][]>();
    for (const e of created) {
      const list = byInstant.get(e.timeMs) ?? [];
      list.push([e.str("from")!, e.str("to")!]);
      byInstant.set(e.timeMs, list);
    }
    return { h, partitions: [...byInstant.values()], all: [...ips].sort(compareIps) };
  }

  function sides(cuts: [string, string][]): string[] {
    // The side that was cut off: the `from` of the first half of the events (a→b, then b→a, per pair).
    return [...new Set(cuts.filter((_, i) => i % 2 === 0).map(([from]) => from))];
  }

  it("isolateSingle cuts one IP from all others, in both directions", async () => {
    const { partitions, all } = await roll("isolateSingle", 11);
    expect(partitions.length).toBeGreaterThanOrEqual(2);
    for (const cuts of partitions) {
      const side = sides(cuts);
      expect(side).toHaveLength(1);
      expect(cuts).toHaveLength(2 * (all.length - 1));
      for (const [from, to] of cuts) expect(cuts.some(([f, t]) => f === to && t === from)).toBe(true);
    }
  });

  it("uniformSize and random cut a proper, sorted subset from the rest", async () => {
    for (const strategy of ["uniformSize", "random"] as const) {
      const { partitions, all } = await roll(strategy, 12);
      expect(partitions.length).toBeGreaterThanOrEqual(1);
      for (const cuts of partitions) {
        const side = sides(cuts);
        expect(side.length).toBeGreaterThanOrEqual(1);
        expect(side.length).toBeLessThan(all.length);
        expect(side).toEqual([...side].sort(compareIps));
        expect(cuts).toHaveLength(2 * side.length * (all.length - side.length));
      }
    }
  });

  it("is deterministic per seed (IP sets are sorted, not in hash order)", async () => {
    const first = (await roll("random", 13)).h.faults().map((e) => e.format());
    const second = (await roll("random", 13)).h.faults().map((e) => e.format());
    expect(second).toEqual(first);
  });

  it("never rolls at probability 0", async () => {
    const h = harness(14);
    const { a, b } = await pair(h, h.client, h.server, 4600);
    for (let i = 0; i < 20; i++) expect(await sendAndWait(h, h.client, a, b, [i], 10)).toEqual([i]);
    expect(h.faults()).toHaveLength(0);
    void ioCode;
  });
});
