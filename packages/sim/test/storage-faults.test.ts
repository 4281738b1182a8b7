/**
 * Storage fault families: each fires, with its `sim_fault` event and its effect on
 * the bytes, when its probability is on; none fires when it is off; recovery mode turns them all
 * off; per-IP overrides stay on their IP. Plus ownership (files per IP, surviving reboots), crash
 * and wipe, waits that graceful shutdown does not abort, and determinism of the trace hash.
 */
import { describe, expect, it } from "vitest";
import { IoError, OpenOptions, type StorageFile } from "@moonpool/core";
import { DEFAULT_STORAGE_CONFIG, FAST_LOCAL_STORAGE_CONFIG, type StorageConfig } from "../src/world/storage/config.ts";
import { STORAGE_FAULT_KINDS } from "../src/world/storage/faults.ts";
import { SECTOR_SIZE_BYTES } from "../src/world/storage/sectors.ts";
import { MAX_UNSYNCED_CHANGES_PER_FILE } from "../src/world/storage/file.ts";
import type { ActorScope } from "../src/world/scope.ts";
import type { World } from "../src/world/world.ts";
import { Actor, boot, faults, hashedWorld, NODE_IP, OTHER_IP, pattern, runActor, runWorld } from "./storage-helpers.ts";

const S = SECTOR_SIZE_BYTES;

/** Bits that differ between two equal-length byte arrays, per sector. */
function flippedBitsPerSector(a: Uint8Array, b: Uint8Array): number[] {
  const out = new Array<number>(Math.ceil(a.length / S)).fill(0);
  for (let i = 0; i < a.length; i++) {
    let x = a[i]! ^ b[i]!;
    while (x !== 0) {
      out[Math.floor(i / S)]! += x & 1;
      x >>>= 1;
    }
  }
  return out;
}

function config(patch: Partial<StorageConfig>): StorageConfig {
  return { ...FAST_LOCAL_STORAGE_CONFIG, ...patch };
}

/** Writes `data` at 0 with faults off, syncs, then switches `config` on; returns the open handle. */
async function prepared(
  world: World,
  scope: ActorScope,
  data: Uint8Array,
  faulty: StorageConfig,
): Promise<StorageFile> {
  const f = await scope.storage.open("f", OpenOptions.readWriteCreate);
  await f.write(0, data);
  await f.sync();
  world.storage.setConfig(faulty);
  return f;
}

describe("storage fault families fire when on, with their sim_fault event", () => {
  it("read corruption: each sector read goes bad with one flipped bit, the same on every retry, until rewritten", async () => {
    const world = hashedWorld(1, FAST_LOCAL_STORAGE_CONFIG);
    const { scope } = boot(world);
    const data = pattern(4 * S, 1);
    await runActor(world, async () => {
      const f = await prepared(world, scope, data, config({ readFaultProbability: 1 }));
      const first = await f.read(0, data.length);
      world.storage.setConfig(FAST_LOCAL_STORAGE_CONFIG);
      expect(flippedBitsPerSector(first, data)).toEqual([1, 1, 1, 1]);
      expect(await f.read(0, data.length)).toEqual(first); // persistent and stable
      await f.write(S, data.subarray(S, 2 * S)); // rewriting a sector heals it
      expect(flippedBitsPerSector(await f.read(0, data.length), data)).toEqual([1, 0, 1, 1]);
    });
    const events = faults(world, STORAGE_FAULT_KINDS.readFault);
    expect(
      events.map((e) => [e.str("readKind"), e.num("offsetBytes"), e.num("lengthBytes"), e.str("path"), e.str("ip")]),
    ).toEqual([0, 1, 2, 3].map((i) => ["corruption", i * S, S, "f", NODE_IP]));
  });

  it("write corruption: every sector written goes bad right after the write", async () => {
    const world = hashedWorld(2, config({ writeFaultProbability: 1 }));
    const { scope } = boot(world);
    const data = pattern(3 * S, 2);
    const read = await runActor(world, async () => {
      const f = await scope.storage.open("f", OpenOptions.readWriteCreate);
      await f.write(0, data);
      return f.read(0, data.length);
    });
    expect(flippedBitsPerSector(read, data)).toEqual([1, 1, 1]);
    expect(
      faults(world, STORAGE_FAULT_KINDS.writeFault).map((e) => [e.str("writeKind"), e.num("offsetBytes")]),
    ).toEqual([
      ["corruption", 0],
      ["corruption", S],
      ["corruption", 2 * S],
    ]);
  });

  it("phantom write: reported done, never applied (the size still grows)", async () => {
    const world = hashedWorld(3, FAST_LOCAL_STORAGE_CONFIG);
    const { scope } = boot(world);
    const data = pattern(2 * S, 3);
    await runActor(world, async () => {
      const f = await prepared(world, scope, data, config({ phantomWriteProbability: 1 }));
      await f.write(0, pattern(S, 99));
      await f.write(2 * S, pattern(100, 98));
      expect(await f.size()).toBe(2 * S + 100);
      expect(await f.read(0, 2 * S)).toEqual(data);
    });
    expect(
      faults(world, STORAGE_FAULT_KINDS.writeFault).map((e) => [
        e.str("writeKind"),
        e.num("offsetBytes"),
        e.num("lengthBytes"),
      ]),
    ).toEqual([
      ["phantom", 0, S],
      ["phantom", 2 * S, 100],
    ]);
  });

  it("misdirected write: the intended place keeps its old bytes, the mistaken place (whole sectors away) gets the new ones", async () => {
    const world = hashedWorld(4, FAST_LOCAL_STORAGE_CONFIG);
    const { scope } = boot(world);
    const data = pattern(8 * S, 4);
    const update = pattern(100, 40);
    const after = await runActor(world, async () => {
      const f = await prepared(world, scope, data, config({ misdirectedWriteProbability: 1 }));
      await f.write(3 * S + 10, update);
      world.storage.setConfig(FAST_LOCAL_STORAGE_CONFIG);
      return f.read(0, data.length);
    });
    const [event] = faults(world, STORAGE_FAULT_KINDS.writeFault);
    expect(event!.str("writeKind")).toBe("misdirected");
    const mistaken = event!.num("mistakenOffsetBytes")!;
    expect(Math.abs(mistaken - (3 * S + 10)) % S).toBe(0);
    expect(mistaken).not.toBe(3 * S + 10);
    expect(after.subarray(3 * S + 10, 3 * S + 110)).toEqual(data.subarray(3 * S + 10, 3 * S + 110));
    expect(after.subarray(mistaken, mistaken + 100)).toEqual(update.subarray(0, Math.min(100, data.length - mistaken)));
  });

  it("misdirected read: one read returns bytes from whole sectors away; the disk is unchanged", async () => {
    const world = hashedWorld(5, FAST_LOCAL_STORAGE_CONFIG);
    const { scope } = boot(world);
    const data = pattern(8 * S, 5);
    const [wrong, right] = await runActor(world, async () => {
      const f = await prepared(world, scope, data, config({ misdirectedReadProbability: 1 }));
      const misread = await f.read(2 * S + 7, 64);
      world.storage.setConfig(FAST_LOCAL_STORAGE_CONFIG);
      return [misread, await f.read(2 * S + 7, 64)];
    });
    const [event] = faults(world, STORAGE_FAULT_KINDS.readFault);
    expect(event!.str("readKind")).toBe("misdirected");
    const mistaken = event!.num("mistakenOffsetBytes")!;
    expect(wrong).toEqual(data.subarray(mistaken, mistaken + 64));
    expect(wrong).not.toEqual(right);
    expect(right).toEqual(data.subarray(2 * S + 7, 2 * S + 71));
  });

  it("sync failure: EIO, and the writes stay unsynced (a crash can still lose them)", async () => {
    const world = hashedWorld(6, FAST_LOCAL_STORAGE_CONFIG);
    const node = boot(world);
    const error = await runActor(world, async () => {
      const f = await prepared(
        world,
        node.scope,
        pattern(S, 6),
        config({ syncFailureProbability: 1, crashFaultProbability: 1, crashLostWriteRatio: 1 }),
      );
      await f.write(0, pattern(S, 60));
      return f.sync().then(
        () => null,
        (e: unknown) => e,
      );
    });
    expect(error).toBeInstanceOf(IoError);
    expect((error as IoError).code).toBe("EIO");
    expect(faults(world, STORAGE_FAULT_KINDS.syncFault).map((e) => e.str("path"))).toEqual(["f"]);
    world.crash(node.incarnation);
    world.storage.crash(NODE_IP);
    const reboot = boot(world);
    const content = await runActor(world, async () =>
      (await reboot.scope.storage.open("f", OpenOptions.readOnly)).read(0, S),
    );
    expect(content).toEqual(pattern(S, 6)); // the unsynced overwrite was lost
    expect(faults(world, STORAGE_FAULT_KINDS.lostWrite)).toHaveLength(1);
  });

  it("crash, lost writes: unsynced writes are undone, synced data stays, the size goes back", async () => {
    const world = hashedWorld(7, FAST_LOCAL_STORAGE_CONFIG);
    const node = boot(world);
    await runActor(world, async () => {
      const f = await prepared(
        world,
        node.scope,
        pattern(2 * S, 7),
        config({ crashFaultProbability: 1, crashLostWriteRatio: 1 }),
      );
      await f.write(S / 2, pattern(S, 70)); // overwrites synced bytes
      await f.write(2 * S, pattern(3 * S, 71)); // extends the file
    });
    world.crash(node.incarnation);
    world.storage.crash(NODE_IP);
    const reboot = boot(world);
    const [size, content] = await runActor(world, async () => {
      const f = await reboot.scope.storage.open("f", OpenOptions.readOnly);
      return [await f.size(), await f.read(0, 10 * S)] as const;
    });
    expect(size).toBe(2 * S);
    expect(content).toEqual(pattern(2 * S, 7));
    expect(
      faults(world, STORAGE_FAULT_KINDS.lostWrite).map((e) => [e.num("offsetBytes"), e.num("lengthBytes")]),
    ).toEqual([
      [2 * S, 3 * S],
      [S / 2, S],
    ]);
    expect(
      faults(world, STORAGE_FAULT_KINDS.crash).map((e) => [
        e.num("unsyncedWrites"),
        e.num("lostWrites"),
        e.num("tornWrites"),
      ]),
    ).toEqual([[2, 2, 0]]);
  });

  it("crash, torn writes: one sector of each unsynced write goes bad; its other bytes survive", async () => {
    const world = hashedWorld(8, FAST_LOCAL_STORAGE_CONFIG);
    const node = boot(world);
    const update = pattern(4 * S, 80);
    await runActor(world, async () => {
      const f = await prepared(
        world,
        node.scope,
        pattern(4 * S, 8),
        config({ crashFaultProbability: 1, crashLostWriteRatio: 0 }),
      );
      await f.write(0, update);
    });
    world.crash(node.incarnation);
    world.storage.crash(NODE_IP);
    const reboot = boot(world);
    const content = await runActor(world, async () =>
      (await reboot.scope.storage.open("f", OpenOptions.readOnly)).read(0, 4 * S),
    );
    const [torn] = faults(world, STORAGE_FAULT_KINDS.tornWrite);
    const tornSector = torn!.num("offsetBytes")! / S;
    expect(flippedBitsPerSector(content, update)).toEqual([0, 1, 2, 3].map((i) => (i === tornSector ? 1 : 0)));
  });

  it("stall: operations issued during the episode wait for its end", async () => {
    const stallUs = 50_000;
    const world = hashedWorld(9, config({ stallProbability: 1, stallDurationUs: stallUs }));
    const { scope } = boot(world);
    const elapsedUs = await runActor(world, async () => {
      const f = await scope.storage.open("f", OpenOptions.readWriteCreate);
      const start = world.engine.nowUs;
      await f.write(0, pattern(10, 9));
      return world.engine.nowUs - start;
    });
    expect(elapsedUs).toBeGreaterThanOrEqual(stallUs);
    expect(faults(world, STORAGE_FAULT_KINDS.stall).map((e) => [e.str("ip"), e.num("durationMs")])).toEqual([
      [NODE_IP, 50],
    ]);
  });

  it("throttle: IOPS and bandwidth are divided during the episode", async () => {
    const world = hashedWorld(
      10,
      config({
        iops: 1_000,
        bandwidthBytesPerSec: 1_000_000,
        throttleProbability: 1,
        throttleDurationUs: 10_000_000,
        throttleIopsMultiplier: 4,
        throttleBandwidthMultiplier: 8,
      }),
    );
    const { scope } = boot(world);
    const elapsedUs = await runActor(world, async () => {
      const f = await scope.storage.open("f", OpenOptions.readWriteCreate);
      const start = world.engine.nowUs;
      await f.write(0, new Uint8Array(1000));
      return world.engine.nowUs - start;
    });
    // 1 µs base + 1e6 / (1000 / 4) + 1000 · 1e6 / (1e6 / 8)
    expect(elapsedUs).toBe(1 + 4_000 + 8_000);
    expect(
      faults(world, STORAGE_FAULT_KINDS.throttle).map((e) => [
        e.num("iopsMultiplier"),
        e.num("bandwidthMultiplier"),
        e.num("durationMs"),
      ]),
    ).toEqual([[4, 8, 10_000]]);
  });
});

/** A mixed workload with a crash in the middle: every family has a chance to strike. */
async function exercise(world: World, seed: number): Promise<void> {
  const first = boot(world);
  await runActor(world, async () => {
    const f = await first.scope.storage.open("w", OpenOptions.readWriteCreate);
    for (let i = 0; i < 40; i++) {
      await f.write((i * 777) % (16 * S), pattern(700, seed * 100 + i));
      await f.read((i * 333) % (16 * S), 900);
      if (i % 4 === 3) await f.sync().catch(() => {});
    }
    await f.write(0, pattern(3 * S, seed)); // unsynced at the crash
  });
  world.crash(first.incarnation);
  world.storage.crash(NODE_IP);
  const second = boot(world);
  await runActor(world, async () => {
    const f = await second.scope.storage.open("w", OpenOptions.readOnly);
    await f.read(0, 16 * S);
  });
}

const FAMILIES: {
  name: string;
  on: Partial<StorageConfig>;
  fired: (kind: string | undefined, e: { str(k: string): string | undefined }) => boolean;
}[] = [
  {
    name: "read corruption",
    on: { readFaultProbability: 0.3 },
    fired: (k, e) => k === "storage_read_fault" && e.str("readKind") === "corruption",
  },
  {
    name: "misdirected read",
    on: { misdirectedReadProbability: 0.3 },
    fired: (k, e) => k === "storage_read_fault" && e.str("readKind") === "misdirected",
  },
  {
    name: "write corruption",
    on: { writeFaultProbability: 0.3 },
    fired: (k, e) => k === "storage_write_fault" && e.str("writeKind") === "corruption",
  },
  {
    name: "phantom write",
    on: { phantomWriteProbability: 0.3 },
    fired: (k, e) => k === "storage_write_fault" && e.str("writeKind") === "phantom",
  },
  {
    name: "misdirected write",
    on: { misdirectedWriteProbability: 0.3 },
    fired: (k, e) => k === "storage_write_fault" && e.str("writeKind") === "misdirected",
  },
  { name: "sync failure", on: { syncFailureProbability: 0.3 }, fired: (k) => k === "storage_sync_fault" },
  {
    name: "crash damage",
    on: { crashFaultProbability: 1 },
    fired: (k) => k === "storage_lost_write" || k === "storage_torn_write",
  },
  { name: "stall", on: { stallProbability: 0.3, stallDurationUs: 1_000 }, fired: (k) => k === "storage_stall" },
  {
    name: "throttle",
    on: {
      throttleProbability: 0.3,
      throttleDurationUs: 1_000,
      throttleIopsMultiplier: 2,
      throttleBandwidthMultiplier: 2,
    },
    fired: (k) => k === "storage_throttle",
  },
];

const ALL_ON: Partial<StorageConfig> = Object.assign({}, ...FAMILIES.map((f) => f.on));

describe("storage fault families never fire when off", () => {
  it("the baseline (every family off) records no storage fault event and makes no fault draw", async () => {
    const world = hashedWorld(11, DEFAULT_STORAGE_CONFIG);
    await exercise(world, 11);
    expect(faults(world).map((e) => e.str("kind"))).toEqual([STORAGE_FAULT_KINDS.crash]);
  });

  for (const family of FAMILIES) {
    it(`${family.name}: fires with only it on, never with every other family on`, async () => {
      const only = hashedWorld(12, config(family.on));
      await exercise(only, 12);
      expect(faults(only).filter((e) => family.fired(e.str("kind"), e)).length).toBeGreaterThan(0);
      const offPatch = Object.fromEntries(
        Object.keys(family.on)
          .filter((k) => k.endsWith("Probability"))
          .map((k) => [k, 0]),
      );
      const others = hashedWorld(13, config({ ...ALL_ON, ...offPatch }));
      await exercise(others, 13);
      expect(faults(others).length).toBeGreaterThan(5); // the other families did fire
      expect(faults(others).filter((e) => family.fired(e.str("kind"), e))).toEqual([]);
    });
  }

  it("recovery mode turns every family off for good; an episode already running ends on its own", async () => {
    const world = hashedWorld(14, config({ ...ALL_ON, stallProbability: 1, stallDurationUs: 40_000 }));
    const { scope } = boot(world);
    await runActor(world, async () => {
      const f = await scope.storage.open("f", OpenOptions.readWriteCreate);
      await f.write(0, pattern(S, 1)); // starts a 40 ms stall
      world.enterRecoveryMode();
      const before = faults(world).length;
      const start = world.engine.nowUs;
      await f.read(0, S); // issued inside the stall: still waits for it
      expect(world.engine.nowUs).toBeGreaterThan(start);
      for (let i = 0; i < 50; i++) {
        await f.write(i * 100, pattern(600, i));
        await f.read(0, 4 * S);
        await f.sync();
      }
      expect(faults(world).length).toBe(before);
    });
    expect(world.storage.inRecovery).toBe(true);
    expect(world.storage.configFor(NODE_IP).readFaultProbability).toBe(0);
  });

  it("a per-IP override applies to that IP only, and can be removed", async () => {
    const world = hashedWorld(15, FAST_LOCAL_STORAGE_CONFIG);
    world.storage.setIpConfig(OTHER_IP, config({ writeFaultProbability: 1 }));
    const a = boot(world, NODE_IP);
    const b = boot(world, OTHER_IP);
    await runActor(world, async () => {
      for (const scope of [a.scope, b.scope])
        await (await scope.storage.open("f", OpenOptions.readWriteCreate)).write(0, pattern(S, 1));
    });
    expect(faults(world).map((e) => e.str("ip"))).toEqual([OTHER_IP]);
    world.storage.setIpConfig(OTHER_IP, null);
    await runActor(world, async () => (await b.scope.storage.open("f", OpenOptions.readWrite)).write(0, pattern(S, 2)));
    expect(faults(world)).toHaveLength(1);
  });
});

describe("storage ownership, crashes and shutdown", () => {
  it("files belong to their IP, survive reboots of its process, and a wipe deletes them all", async () => {
    const world = hashedWorld(16, FAST_LOCAL_STORAGE_CONFIG);
    const first = boot(world, NODE_IP);
    await runActor(world, async () => {
      for (const p of ["a", "dir/b"]) {
        const f = await first.scope.storage.open(p, OpenOptions.createWrite);
        await f.write(0, pattern(10, 1));
        await f.sync();
      }
    });
    const other = boot(world, OTHER_IP);
    expect(await runActor(world, () => other.scope.storage.list())).toEqual([]);
    world.crash(first.incarnation);
    world.storage.crash(NODE_IP);
    const second = boot(world, NODE_IP);
    expect(await runActor(world, () => second.scope.storage.list())).toEqual(["a", "dir/b"]);
    world.storage.wipe(NODE_IP);
    expect(await runActor(world, () => second.scope.storage.list())).toEqual([]);
    expect(world.storage.paths(NODE_IP)).toEqual([]);
    expect(faults(world, STORAGE_FAULT_KINDS.wipe).map((e) => [e.str("ip"), e.num("files")])).toEqual([[NODE_IP, 2]]);
  });

  it("a crash stops the process at its pending storage wait; the write in flight never lands", async () => {
    const world = hashedWorld(17, DEFAULT_STORAGE_CONFIG);
    const node = boot(world);
    let inFlight = false;
    let afterWrite = false;
    const actor = new Actor(async () => {
      const f = await node.scope.storage.open("f", OpenOptions.readWriteCreate);
      await f.write(0, pattern(S, 1));
      await f.sync();
      inFlight = true;
      await f.write(0, pattern(S, 2)); // in flight at the crash
      afterWrite = true;
    });
    await runWorld(world, () => inFlight);
    world.crash(node.incarnation);
    world.storage.crash(NODE_IP);
    await runWorld(world, () => false);
    expect(actor.done).toBe(false);
    expect(afterWrite).toBe(false);
    const reboot = boot(world);
    const content = await runActor(world, async () =>
      (await reboot.scope.storage.open("f", OpenOptions.readOnly)).read(0, S),
    );
    expect(content).toEqual(pattern(S, 1));
  });

  it("graceful shutdown does not abort storage waits: a process can flush in its grace period", async () => {
    const world = hashedWorld(18, DEFAULT_STORAGE_CONFIG);
    const node = boot(world);
    let flushed = false;
    const actor = new Actor(async () => {
      const f = await node.scope.storage.open("f", OpenOptions.readWriteCreate);
      const write = f.write(0, pattern(S, 3));
      world.shutdownGracefully(node.incarnation, 100);
      await write; // not rejected by the shutdown
      await f.sync();
      flushed = node.incarnation.shutdown.aborted;
    });
    await runWorld(world, () => actor.done);
    expect(actor.error).toBeUndefined();
    expect(flushed).toBe(true);
  });

  it("a file with more unsynced writes than the log holds says so once; the oldest became durable", async () => {
    const world = hashedWorld(20, config({ crashFaultProbability: 1, crashLostWriteRatio: 1 }));
    const node = boot(world);
    await runActor(world, async () => {
      const f = await node.scope.storage.open("f", OpenOptions.readWriteCreate);
      for (let i = 0; i < MAX_UNSYNCED_CHANGES_PER_FILE + 5; i++) await f.write(i, new Uint8Array([7]));
    });
    expect(world.trace.snapshot("storage_writeback").map((e) => [e.str("path"), e.num("unsyncedLimit")])).toEqual([
      ["f", MAX_UNSYNCED_CHANGES_PER_FILE],
    ]);
    world.crash(node.incarnation);
    world.storage.crash(NODE_IP);
    expect(world.storage.disk(NODE_IP).files.get("f")!.sizeBytes).toBe(5);
  });

  it("a handle opened before its disk crashed answers EBADF", async () => {
    const world = hashedWorld(19, DEFAULT_STORAGE_CONFIG);
    const node = boot(world);
    const handle = await runActor(world, () => node.scope.storage.open("f", OpenOptions.readWriteCreate));
    // The machine lost power; the incarnation is left alive on purpose, to see what the handle says.
    world.storage.crash(NODE_IP);
    const code = await runActor(world, () =>
      handle.size().then(
        () => "ok",
        (e: unknown) => (e as IoError).code,
      ),
    );
    expect(code).toBe("EBADF");
  });
});

describe("storage determinism", () => {
  const hostile = config({
    ...ALL_ON,
    iops: 20_000,
    bandwidthBytesPerSec: 100_000_000,
    readLatencyUs: { shape: "exponential", minUs: 20, meanUs: 200 },
  });

  async function traceOf(seed: number): Promise<{ hash: number; faults: string[] }> {
    const world = hashedWorld(seed, hostile);
    await exercise(world, 3);
    return {
      hash: world.engine.traceHash,
      faults: faults(world).map((e) => `${e.timeMs} ${JSON.stringify(e.fields)}`),
    };
  }

  it("the same seed twice gives the identical trace hash and fault events; different seeds differ", async () => {
    const hashes = new Set<number>();
    for (let seed = 100; seed < 110; seed++) {
      const a = await traceOf(seed);
      const b = await traceOf(seed);
      expect(b.hash).toBe(a.hash);
      expect(b.faults).toEqual(a.faults);
      expect(a.faults.length).toBeGreaterThan(0);
      hashes.add(a.hash);
    }
    expect(hashes.size).toBe(10);
  });
});
