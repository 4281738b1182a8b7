/**
 * The storage latency model: the FDB formula (base + 1e6/iops + size·1e6/bandwidth; sync = its own
 * sample; metadata 1 µs), and stall/throttle episodes that belong to a disk (an owner IP): every
 * file of that IP waits out the same stall and runs at the same throttled speed, other IPs do not.
 */
import { describe, expect, it } from "vitest";
import { OpenOptions, type StorageFile } from "@moonpool/core";
import { RandomStream, STREAM_KEYS } from "../src/engine/rng.ts";
import { uniform } from "../src/world/network/config.ts";
import { DEFAULT_STORAGE_CONFIG, METADATA_LATENCY_US, type StorageConfig } from "../src/world/storage/config.ts";
import { STORAGE_FAULT_KINDS } from "../src/world/storage/faults.ts";
import { DiskEpisodes, transferUs } from "../src/world/storage/latency.ts";
import type { ActorScope } from "../src/world/scope.ts";
import type { World } from "../src/world/world.ts";
import { boot, faults, hashedWorld, NODE_IP, OTHER_IP, runActor } from "./storage-helpers.ts";

const FIXED: StorageConfig = {
  ...DEFAULT_STORAGE_CONFIG,
  iops: 2_000,
  bandwidthBytesPerSec: 4_000_000,
  readLatencyUs: uniform([70, 70]),
  writeLatencyUs: uniform([150, 150]),
  syncLatencyUs: uniform([3_000, 3_000]),
};

/** Simulated µs `op` takes. */
async function timed(world: World, op: () => Promise<unknown>): Promise<number> {
  const start = world.engine.nowUs;
  await op();
  return world.engine.nowUs - start;
}

async function openFile(scope: ActorScope, path: string): Promise<StorageFile> {
  return scope.storage.open(path, OpenOptions.readWriteCreate);
}

describe("storage latency formula", () => {
  it("read and write: base + 1e6/iops + sizeBytes·1e6/bandwidth; sync: its sample; metadata: 1 µs", async () => {
    const world = hashedWorld(1, FIXED);
    const { scope } = boot(world);
    const measured = await runActor(world, async () => {
      const openUs = await timed(world, () => scope.storage.open("f", OpenOptions.readWriteCreate));
      const f = await openFile(scope, "f");
      const out: Record<string, number> = { openUs };
      for (const sizeBytes of [0, 1, 4096, 100_000]) {
        out[`write${sizeBytes}`] = await timed(world, () => f.write(0, new Uint8Array(sizeBytes)));
        out[`read${sizeBytes}`] = await timed(world, () => f.read(0, sizeBytes));
      }
      out.syncUs = await timed(world, () => f.sync());
      out.setLengthUs = await timed(world, () => f.setLength(10));
      out.existsUs = await timed(world, () => scope.storage.exists("f"));
      out.sizeUs = await timed(world, () => f.size());
      return out;
    });
    const expected = (baseUs: number, sizeBytes: number): number =>
      baseUs + Math.round(1e6 / 2_000 + (sizeBytes * 1e6) / 4_000_000);
    expect(measured).toEqual({
      openUs: METADATA_LATENCY_US,
      write0: expected(150, 0),
      read0: expected(70, 0),
      write1: expected(150, 1),
      read1: expected(70, 1),
      write4096: expected(150, 4096), // 150 + 500 + 1024
      read4096: expected(70, 4096),
      write100000: expected(150, 100_000),
      read100000: expected(70, 100_000),
      syncUs: 3_000,
      setLengthUs: 150,
      existsUs: METADATA_LATENCY_US,
      sizeUs: 0,
    });
    expect(expected(150, 4096)).toBe(1_674);
    expect(transferUs(4096, 2_000, 4_000_000)).toBe(1_524);
  });

  it("the baseline draws base latencies uniformly from the default ranges", async () => {
    const world = hashedWorld(2, DEFAULT_STORAGE_CONFIG);
    const { scope } = boot(world);
    const samples = await runActor(world, async () => {
      const f = await openFile(scope, "f");
      const reads: number[] = [];
      const syncs: number[] = [];
      for (let i = 0; i < 300; i++) {
        reads.push(await timed(world, () => f.read(0, 0)));
        syncs.push(await timed(world, () => f.sync()));
      }
      return { reads, syncs };
    });
    // Empty reads cost the base (50–200 µs) plus the IOPS term 1e6 / 25,000 = 40 µs.
    expect(Math.min(...samples.reads)).toBeGreaterThanOrEqual(90);
    expect(Math.max(...samples.reads)).toBeLessThan(240);
    expect(new Set(samples.reads).size).toBeGreaterThan(50);
    expect(Math.min(...samples.syncs)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...samples.syncs)).toBeLessThan(5_000);
  });

  it("exponential and bimodal shapes stay within their bounds and show their slow modes", async () => {
    const world = hashedWorld(3, {
      ...FIXED,
      readLatencyUs: { shape: "exponential", minUs: 100, meanUs: 50 },
      syncLatencyUs: { shape: "bimodal", fastUs: [1_000, 2_000], slowUs: [20_000, 40_000], slowProbability: 0.1 },
    });
    const { scope } = boot(world);
    const { reads, syncs } = await runActor(world, async () => {
      const f = await openFile(scope, "f");
      const reads: number[] = [];
      const syncs: number[] = [];
      for (let i = 0; i < 500; i++) {
        reads.push((await timed(world, () => f.read(0, 0))) - 500);
        syncs.push(await timed(world, () => f.sync()));
      }
      return { reads, syncs };
    });
    expect(Math.min(...reads)).toBeGreaterThanOrEqual(100);
    const meanRead = reads.reduce((a, b) => a + b, 0) / reads.length;
    expect(meanRead).toBeGreaterThan(130);
    expect(meanRead).toBeLessThan(170);
    const slow = syncs.filter((us) => us >= 20_000).length;
    expect(syncs.every((us) => (us >= 1_000 && us < 2_000) || (us >= 20_000 && us < 40_000))).toBe(true);
    expect(slow).toBeGreaterThan(25);
    expect(slow).toBeLessThan(80);
  });
});

describe("stall and throttle episodes, per owner IP", () => {
  it("a stall started by one file delays every file of that IP, and no other IP", async () => {
    const world = hashedWorld(4, FIXED);
    const a = boot(world, NODE_IP, "a");
    const b = boot(world, OTHER_IP, "b");
    const result = await runActor(world, async () => {
      const [wal, table, other] = await Promise.all([
        openFile(a.scope, "wal"),
        openFile(a.scope, "table"),
        openFile(b.scope, "x"),
      ]);
      world.storage.setIpConfig(NODE_IP, { ...FIXED, stallProbability: 1, stallDurationUs: 200_000 });
      const stalled = timed(world, () => wal.write(0, new Uint8Array(10))); // starts the stall
      world.storage.setIpConfig(NODE_IP, FIXED); // no new episode; the running one goes on
      const sameDisk = timed(world, () => table.read(0, 0));
      const otherDisk = timed(world, () => other.read(0, 0));
      return { stalled: await stalled, sameDisk: await sameDisk, otherDisk: await otherDisk };
    });
    expect(result.stalled).toBe(200_000 + 150 + Math.round(500 + 10 / 4));
    expect(result.sameDisk).toBe(200_000 + 70 + 500);
    expect(result.otherDisk).toBe(70 + 500);
    expect(faults(world, STORAGE_FAULT_KINDS.stall).map((e) => e.str("ip"))).toEqual([NODE_IP]);
  });

  it("a throttle slows every file of its IP until it ends; operations after it run at full speed", async () => {
    const world = hashedWorld(5, FIXED);
    const a = boot(world, NODE_IP);
    const b = boot(world, OTHER_IP);
    const throttled: StorageConfig = {
      ...FIXED,
      throttleProbability: 1,
      throttleDurationUs: 50_000,
      throttleIopsMultiplier: 5,
      throttleBandwidthMultiplier: 10,
    };
    const result = await runActor(world, async () => {
      const [f, g, other] = await Promise.all([openFile(a.scope, "f"), openFile(a.scope, "g"), openFile(b.scope, "x")]);
      world.storage.setIpConfig(NODE_IP, throttled);
      const first = await timed(world, () => f.write(0, new Uint8Array(4000))); // starts the throttle
      world.storage.setIpConfig(NODE_IP, FIXED);
      const sameDisk = await timed(world, () => g.write(0, new Uint8Array(4000)));
      const otherDisk = await timed(world, () => other.write(0, new Uint8Array(4000)));
      await a.scope.time.sleep(60); // past the end of the episode
      const after = await timed(world, () => g.write(0, new Uint8Array(4000)));
      return { first, sameDisk, otherDisk, after };
    });
    const slowUs = 150 + Math.round(1e6 / (2_000 / 5) + (4000 * 1e6) / (4_000_000 / 10));
    const fastUs = 150 + Math.round(1e6 / 2_000 + (4000 * 1e6) / 4_000_000);
    expect(result).toEqual({ first: slowUs, sameDisk: slowUs, otherDisk: fastUs, after: fastUs });
  });

  it("the state machine draws only while the disk is calm and some episode probability is on", () => {
    const sim = new RandomStream(7, STREAM_KEYS.sim);
    const episodes = new DiskEpisodes();
    expect(episodes.advance(0, DEFAULT_STORAGE_CONFIG, sim)).toBeNull();
    expect(sim.totalCalls).toBe(0);
    const stalling: StorageConfig = { ...DEFAULT_STORAGE_CONFIG, stallProbability: 1, stallDurationUs: 1_000 };
    expect(episodes.advance(10, stalling, sim)).toBe("stall");
    expect(sim.totalCalls).toBe(1);
    expect(episodes.advance(500, stalling, sim)).toBeNull(); // still stalled: no draw
    expect(sim.totalCalls).toBe(1);
    expect(episodes.stallRemainingUs(500)).toBe(510);
    expect(episodes.advance(1_010, stalling, sim)).toBe("stall"); // over: a new one may start
    expect(sim.totalCalls).toBe(2);
  });
});
