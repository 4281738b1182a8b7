/**
 * The durability contract over many seeds of a write / sync / crash / read workload, at the world
 * level (World + Incarnation + ActorScope, no runner):
 *
 * - data written and synced survives a crash, unless a `sim_fault` event says it was damaged
 *   (read or write corruption, phantom or misdirected write, torn write);
 * - unsynced data may be lost or torn, never replaced by anything else;
 * - while a process runs, reads return the latest write (same exceptions, plus misdirected reads);
 * - the size after a crash lies between the size at the last durable point and the largest size
 *   reached since;
 * - a wipe deletes everything the process owned.
 *
 * The model keeps, per byte: the latest value written, the value at the last durable point (or
 * "unknown" for bytes never written, whose content the contract leaves open), and the writes made
 * since that point. Lost-write events excuse nothing: losing unsynced data is already allowed.
 */
import { describe, expect, it } from "vitest";
import { IoError, OpenOptions, type StorageFile, type StorageProvider } from "@moonpool/core";
import { swarmStorageConfig } from "../src/chaos/storage-config.ts";
import { DEFAULT_STORAGE_CONFIG, type StorageConfig } from "../src/world/storage/config.ts";
import { STORAGE_FAULT_KINDS } from "../src/world/storage/faults.ts";
import type { World } from "../src/world/world.ts";
import type { TraceEvent } from "../src/world/trace-log.ts";
import { Actor, boot, faults, hashedWorld, NODE_IP, runWorld } from "./storage-helpers.ts";

const SEEDS = 1_000;
const FILES = ["wal", "data/table"] as const;
const MAX_FILE_BYTES = 16 * 1024;
const MAX_WRITE_BYTES = 2048;
const ROUNDS = 3;
const OPS_PER_ROUND = 24;
const UNKNOWN = -1;

/** A small seeded PRNG for the workload's own choices (kept off the simulation's streams). */
class WorkloadRandom {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo));
  }
}

/** What the workload knows about one file. */
class FileModel {
  /** Latest value written per byte (UNKNOWN for bytes never written). */
  latest = new Int16Array(MAX_FILE_BYTES + MAX_WRITE_BYTES).fill(UNKNOWN);
  /** Value at the last durable point per byte. */
  durable = new Int16Array(MAX_FILE_BYTES + MAX_WRITE_BYTES).fill(UNKNOWN);
  /** Writes since the last durable point (including writes that may still be in flight). */
  unsynced: { offset: number; bytes: Uint8Array }[] = [];
  sizeBytes = 0;
  /** Size bounds after a crash: at the last durable point, and the largest since. */
  minSizeBytes = 0;
  maxSizeBytes = 0;

  wrote(offset: number, bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) this.latest[offset + i] = bytes[i]!;
    this.unsynced.push({ offset, bytes });
    this.sizeBytes = Math.max(this.sizeBytes, offset + bytes.length);
    this.maxSizeBytes = Math.max(this.maxSizeBytes, this.sizeBytes);
  }

  synced(): void {
    this.durable.set(this.latest);
    this.unsynced = [];
    this.minSizeBytes = this.maxSizeBytes = this.sizeBytes;
  }

  /**
   * `setLength` is durable when it resolves: the size cannot go back below or above it, bytes past
   * it are gone, and earlier unsynced writes below it stay unsynced.
   */
  resized(sizeBytes: number): void {
    for (let i = sizeBytes; i < this.latest.length; i++) this.latest[i] = this.durable[i] = UNKNOWN;
    this.unsynced = this.unsynced
      .filter((w) => w.offset < sizeBytes)
      .map((w) => ({ offset: w.offset, bytes: w.bytes.subarray(0, sizeBytes - w.offset) }));
    this.sizeBytes = this.minSizeBytes = this.maxSizeBytes = sizeBytes;
  }

  /** Whether `value` at byte `i` after a crash is something the contract allows. */
  allowedAfterCrash(i: number, value: number): boolean {
    if (this.durable[i] === UNKNOWN || this.durable[i] === value || this.latest[i] === value) return true;
    for (const w of this.unsynced)
      if (i >= w.offset && i < w.offset + w.bytes.length && w.bytes[i - w.offset] === value) return true;
    return false;
  }
}

/** Byte ranges of a file that fault events say are damaged (lost writes excuse nothing). */
function damagedRanges(world: World, path: string): [number, number][] {
  const out: [number, number][] = [];
  for (const e of faults(world)) {
    if (e.str("path") !== path) continue;
    const kind = e.str("kind");
    const offset = e.num("offsetBytes") ?? 0;
    const length = e.num("lengthBytes") ?? 0;
    if (kind === STORAGE_FAULT_KINDS.readFault && e.str("readKind") === "misdirected") continue; // one read only
    if (
      kind === STORAGE_FAULT_KINDS.readFault ||
      kind === STORAGE_FAULT_KINDS.writeFault ||
      kind === STORAGE_FAULT_KINDS.tornWrite
    ) {
      out.push([offset, offset + length]);
      const mistaken = e.num("mistakenOffsetBytes");
      if (mistaken !== undefined) out.push([mistaken, mistaken + length]);
    }
  }
  return out;
}

function covered(ranges: readonly [number, number][], i: number): boolean {
  return ranges.some(([s, e]) => i >= s && i < e);
}

function misdirectedReadsOf(world: World, path: string): number {
  return faults(world, STORAGE_FAULT_KINDS.readFault).filter(
    (e: TraceEvent) => e.str("path") === path && e.str("readKind") === "misdirected",
  ).length;
}

/** The fault rates of a swarm seed, raised so that a 24-operation round meets them. */
function hostileSwarmConfig(world: World): StorageConfig {
  const { config } = swarmStorageConfig(world.engine.streams.sim, world.engine.streams.config);
  const raise = (p: number, factor: number): number => Math.min(0.5, p * factor);
  return {
    ...config,
    readFaultProbability: raise(config.readFaultProbability, 200),
    writeFaultProbability: raise(config.writeFaultProbability, 200),
    phantomWriteProbability: raise(config.phantomWriteProbability, 1000),
    misdirectedWriteProbability: raise(config.misdirectedWriteProbability, 1000),
    misdirectedReadProbability: raise(config.misdirectedReadProbability, 1000),
    syncFailureProbability: raise(config.syncFailureProbability, 500),
    crashFaultProbability: raise(config.crashFaultProbability, 1500),
    crashLostWriteRatio: world.engine.streams.config.ratio(),
  };
}

interface SeedOutcome {
  lostWrites: number;
  tornWrites: number;
  /** Bytes that came back from a crash different from the latest write (lost or torn data). */
  bytesNotLatestAfterCrash: number;
  faultEvents: number;
}

class Violation extends Error {}

/** One round of operations by one incarnation; ends with writes still in flight. */
async function round(
  storage: StorageProvider,
  world: World,
  models: Map<string, FileModel>,
  rnd: WorkloadRandom,
  fails: (msg: string) => never,
): Promise<void> {
  const handles = new Map<string, StorageFile>();
  for (const path of FILES) handles.set(path, await storage.open(path, OpenOptions.readWriteCreate));
  for (let op = 0; op < OPS_PER_ROUND; op++) {
    const path = FILES[rnd.int(0, FILES.length)]!;
    const file = handles.get(path)!;
    const model = models.get(path)!;
    const choice = rnd.next();
    if (choice < 0.5) {
      const offset = rnd.int(0, MAX_FILE_BYTES);
      const bytes = new Uint8Array(rnd.int(1, MAX_WRITE_BYTES));
      for (let i = 0; i < bytes.length; i++) bytes[i] = rnd.int(0, 256);
      await file.write(offset, bytes);
      model.wrote(offset, bytes);
    } else if (choice < 0.75) {
      // Retry a failed sync: EIO leaves everything unsynced, which the model still says.
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          await file.sync();
          model.synced();
          break;
        } catch (error) {
          if (!(error instanceof IoError && error.code === "EIO")) throw error;
        }
      }
    } else if (choice < 0.95) {
      const offset = rnd.int(0, Math.max(1, model.sizeBytes));
      const length = rnd.int(1, 4096);
      const misdirectedBefore = misdirectedReadsOf(world, path);
      const bytes = await file.read(offset, length);
      const expectedLength = Math.max(0, Math.min(length, model.sizeBytes - offset));
      if (bytes.length !== expectedLength)
        fails(`${path}: read(${offset}, ${length}) returned ${bytes.length} bytes, expected ${expectedLength}`);
      if (misdirectedReadsOf(world, path) !== misdirectedBefore) continue; // this read came from elsewhere, as an event says
      const damaged = damagedRanges(world, path);
      for (let i = 0; i < bytes.length; i++) {
        const at = offset + i;
        const expected = model.latest[at]!;
        if (expected !== UNKNOWN && bytes[i] !== expected && !covered(damaged, at)) {
          fails(
            `${path}: byte ${at} read ${bytes[i]} while the latest write put ${expected} there, and no fault event covers it`,
          );
        }
      }
    } else {
      const sizeBytes = rnd.int(0, MAX_FILE_BYTES);
      await file.setLength(sizeBytes);
      model.resized(sizeBytes);
    }
  }
  // Writes still in flight when the crash comes: they may land or not; the model allows both.
  for (let i = rnd.int(0, 3); i > 0; i--) {
    const path = FILES[rnd.int(0, FILES.length)]!;
    const offset = rnd.int(0, MAX_FILE_BYTES);
    const bytes = new Uint8Array(rnd.int(1, MAX_WRITE_BYTES)).fill(rnd.int(0, 256));
    models.get(path)!.wrote(offset, bytes);
    void handles
      .get(path)!
      .write(offset, bytes)
      .catch(() => {});
  }
}

/** After a crash: every byte is allowed by the model or damaged by an event; the size is in bounds. */
async function verifyAfterCrash(
  storage: StorageProvider,
  world: World,
  models: Map<string, FileModel>,
  fails: (msg: string) => never,
): Promise<number> {
  let notLatest = 0;
  for (const path of FILES) {
    const model = models.get(path)!;
    const file = await storage.open(path, OpenOptions.readOnly);
    const sizeBytes = await file.size();
    if (sizeBytes < model.minSizeBytes || sizeBytes > model.maxSizeBytes) {
      fails(`${path}: size ${sizeBytes} after the crash is outside [${model.minSizeBytes}, ${model.maxSizeBytes}]`);
    }
    let bytes: Uint8Array;
    for (;;) {
      const misdirectedBefore = misdirectedReadsOf(world, path);
      bytes = await file.read(0, sizeBytes);
      if (misdirectedReadsOf(world, path) === misdirectedBefore) break;
    }
    const damaged = damagedRanges(world, path);
    for (let i = 0; i < sizeBytes; i++) {
      const value = bytes[i]!;
      if (model.latest[i] !== UNKNOWN && value !== model.latest[i]) notLatest++;
      if (!model.allowedAfterCrash(i, value) && !covered(damaged, i)) {
        fails(
          `${path}: byte ${i} is ${value} after the crash; durable ${model.durable[i]}, latest ${model.latest[i]}; no fault event covers it`,
        );
      }
    }
    // What is on disk now is the new durable state. Bytes that were not durable before the crash
    // become unknown: a lost write into a hole leaves a hole, whatever its bytes happen to be.
    for (let i = 0; i < model.latest.length; i++) {
      model.latest[i] = i < sizeBytes && model.durable[i] !== UNKNOWN ? bytes[i]! : UNKNOWN;
    }
    model.sizeBytes = sizeBytes;
    model.synced();
    await file.close();
  }
  return notLatest;
}

async function runSeed(
  seed: number,
  configFor: (world: World) => StorageConfig,
  wipeAtEnd: boolean,
): Promise<SeedOutcome> {
  const world = hashedWorld(seed);
  world.storage.setConfig(configFor(world));
  const rnd = new WorkloadRandom(seed);
  const models = new Map<string, FileModel>(FILES.map((p) => [p, new FileModel()]));
  const fails = (message: string): never => {
    throw new Violation(`seed ${seed}: ${message}`);
  };
  let bytesNotLatestAfterCrash = 0;
  const runIncarnation = async (
    body: (storage: StorageProvider) => Promise<void>,
    extraUs: number,
  ): Promise<ReturnType<typeof boot>> => {
    const booted = boot(world, NODE_IP);
    const actor = new Actor(() => body(booted.scope.storage));
    await runWorld(world, () => actor.done);
    if (!actor.done) throw new Error(`seed ${seed}: the workload did not finish`);
    if (actor.error !== undefined) throw actor.error;
    if (extraUs > 0) await runWorld(world, () => false, world.engine.nowUs + extraUs);
    return booted;
  };
  for (let r = 0; r < ROUNDS; r++) {
    // Let in-flight writes run for a while (0–800 µs: some land, some not), then pull the plug.
    const { incarnation } = await runIncarnation(
      (storage) => round(storage, world, models, rnd, fails),
      rnd.int(0, 800),
    );
    world.crash(incarnation);
    world.storage.crash(NODE_IP);
    const checker = await runIncarnation(async (storage) => {
      bytesNotLatestAfterCrash += await verifyAfterCrash(storage, world, models, fails);
    }, 0);
    world.crash(checker.incarnation);
  }
  if (wipeAtEnd) {
    world.storage.wipe(NODE_IP);
    await runIncarnation(async (storage) => {
      if ((await storage.list()).length !== 0) fails(`files left after a wipe: ${(await storage.list()).join(", ")}`);
      for (const path of FILES) if (await storage.exists(path)) fails(`${path} exists after a wipe`);
    }, 0);
    expect(faults(world, STORAGE_FAULT_KINDS.wipe).map((e) => e.num("files"))).toEqual([FILES.length]);
  }
  return {
    lostWrites: faults(world, STORAGE_FAULT_KINDS.lostWrite).length,
    tornWrites: faults(world, STORAGE_FAULT_KINDS.tornWrite).length,
    bytesNotLatestAfterCrash,
    faultEvents: faults(world).filter(
      (e) => e.str("kind") !== STORAGE_FAULT_KINDS.crash && e.str("kind") !== STORAGE_FAULT_KINDS.wipe,
    ).length,
  };
}

describe("storage durability contract", () => {
  it(`holds over ${SEEDS} seeds of a write-sync-crash-read workload with swarm storage faults (raised)`, async () => {
    let lost = 0;
    let torn = 0;
    let seedsWithDataNotLatest = 0;
    let faultEvents = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const outcome = await runSeed(seed, hostileSwarmConfig, seed % 10 === 0);
      lost += outcome.lostWrites;
      torn += outcome.tornWrites;
      faultEvents += outcome.faultEvents;
      if (outcome.bytesNotLatestAfterCrash > 0) seedsWithDataNotLatest++;
    }
    // The contract was exercised, not vacuously true: crashes lost and tore unsynced writes,
    // faults struck, and data did come back older than the latest write.
    expect(lost).toBeGreaterThan(500);
    expect(torn).toBeGreaterThan(500);
    expect(faultEvents).toBeGreaterThan(5_000);
    expect(seedsWithDataNotLatest).toBeGreaterThan(500);
  });

  it("with faults off (the baseline), nothing is damaged and unsynced writes survive a crash", async () => {
    for (let seed = 1; seed <= 100; seed++) {
      const outcome = await runSeed(seed, () => DEFAULT_STORAGE_CONFIG, seed % 2 === 0);
      expect(outcome.faultEvents, `seed ${seed}`).toBe(0);
      expect(outcome.lostWrites + outcome.tornWrites, `seed ${seed}`).toBe(0);
    }
  });
});
