/**
 * The sector model and the unsynced-write log, unit by unit: noise in never-written sectors,
 * one-bit faults, overlays of misdirected writes, what a crash keeps, loses and tears, and the
 * fault decisions' draw discipline.
 */
import { describe, expect, it } from "vitest";
import { RandomStream, STREAM_KEYS } from "../src/engine/rng.ts";
import { DEFAULT_STORAGE_CONFIG } from "../src/world/storage/config.ts";
import {
  decideCrashFates,
  decideMisdirectedRead,
  decideSyncFailure,
  decideWriteFate,
  misdirectedOffset,
  pickFaultedSectors,
} from "../src/world/storage/faults.ts";
import { MAX_UNSYNCED_CHANGES_PER_FILE, SimFile, subtractRanges } from "../src/world/storage/file.ts";
import { MAX_OVERLAYS_PER_FILE, SECTOR_SIZE_BYTES, SectorImage } from "../src/world/storage/sectors.ts";
import { pattern } from "./storage-helpers.ts";

const S = SECTOR_SIZE_BYTES;

describe("SectorImage", () => {
  it("never-written sectors read as noise from the file seed: stable, different per sector and per seed", () => {
    const a = new SectorImage(1);
    a.resize(4 * S);
    const first = a.read(0, 4 * S);
    expect(a.read(0, 4 * S)).toEqual(first);
    expect(first.subarray(0, S)).not.toEqual(first.subarray(S, 2 * S));
    expect(first.some((b) => b !== 0)).toBe(true);
    const b = new SectorImage(2);
    b.resize(4 * S);
    expect(b.read(0, 4 * S)).not.toEqual(first);
    // A partial read sees the same noise as a full one.
    expect(a.read(S + 100, 50)).toEqual(first.subarray(S + 100, S + 150));
  });

  it("a write marks its sectors written: the untouched rest of a partly written sector reads zero", () => {
    const image = new SectorImage(3);
    image.write(10, new Uint8Array([1, 2, 3]));
    expect(image.sizeBytes).toBe(13);
    expect(image.read(0, 13)).toEqual(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]));
    image.write(3 * S, new Uint8Array([9]));
    expect(image.isWritten(0) && !image.isWritten(1) && !image.isWritten(2) && image.isWritten(3)).toBe(true);
  });

  it("a faulted sector shows exactly one flipped bit inside the file, the same every time, until rewritten", () => {
    const image = new SectorImage(4);
    const data = pattern(S + 40, 1); // the second sector is only 40 bytes long
    image.write(0, data);
    image.markFaulted(0);
    image.markFaulted(1);
    const read = image.read(0, data.length);
    let bits = 0;
    for (let i = 0; i < data.length; i++) bits += popcount(read[i]! ^ data[i]!);
    expect(bits).toBe(2);
    expect(image.read(0, data.length)).toEqual(read);
    image.write(0, data.subarray(0, S));
    expect(image.isFaulted(0)).toBe(false);
    expect(image.read(0, S)).toEqual(data.subarray(0, S));
  });

  it("overlays: the intended place shows old bytes, the mistaken place new ones; folding them changes no read", () => {
    const image = new SectorImage(5);
    const base = pattern(8 * S, 2);
    image.write(0, base);
    image.misdirect(S, 4 * S, pattern(100, 3));
    expect(image.overlays).toHaveLength(1);
    const view = image.read(0, 8 * S);
    expect(view.subarray(S, S + 100)).toEqual(base.subarray(S, S + 100));
    expect(view.subarray(4 * S, 4 * S + 100)).toEqual(pattern(100, 3));
    image.flattenAll();
    expect(image.overlays).toHaveLength(0);
    expect(image.read(0, 8 * S)).toEqual(view);
  });

  it(`keeps at most ${MAX_OVERLAYS_PER_FILE} overlays, folding the oldest (and older ones with any it folds)`, () => {
    const image = new SectorImage(6);
    image.write(0, pattern(8 * S, 4));
    image.misdirect(0, 2 * S, pattern(10, 5));
    image.misdirect(S, 3 * S, pattern(10, 6));
    const twoOverlays = image.read(0, 8 * S);
    image.misdirect(5 * S, 6 * S, pattern(10, 7));
    expect(image.overlays.map((o) => o.intendedOffsetBytes)).toEqual([S, 5 * S]);
    const threeApplied = image.read(0, 8 * S);
    expect(threeApplied.subarray(0, 5 * S)).toEqual(twoOverlays.subarray(0, 5 * S));
    // A write over the newest overlay's range folds both overlays (oldest first) before landing.
    image.write(6 * S, pattern(10, 8));
    expect(image.overlays).toHaveLength(0);
    const expected = threeApplied.slice();
    expected.set(pattern(10, 8), 6 * S);
    expect(image.read(0, 8 * S)).toEqual(expected);
  });

  it("shrinking forgets the cut sectors: growing again shows a hole, not the old bytes", () => {
    const image = new SectorImage(7);
    const data = pattern(4 * S, 9);
    image.write(0, data);
    image.resize(S + 10);
    image.resize(4 * S);
    const read = image.read(0, 4 * S);
    expect(read.subarray(0, S + 10)).toEqual(data.subarray(0, S + 10));
    expect(read.subarray(S + 10, 2 * S)).toEqual(new Uint8Array(S - 10)); // rest of a written sector: zeros
    expect(read.subarray(2 * S)).not.toEqual(data.subarray(2 * S)); // whole cut sectors: noise
  });
});

describe("SimFile crash", () => {
  it("subtractRanges leaves what the cuts do not cover", () => {
    expect(subtractRanges(0, 100, [])).toEqual([[0, 100]]);
    expect(
      subtractRanges(0, 100, [
        [10, 20],
        [50, 60],
        [15, 30],
      ]),
    ).toEqual([
      [0, 10],
      [30, 50],
      [60, 100],
    ]);
    expect(subtractRanges(10, 20, [[0, 100]])).toEqual([]);
  });

  it("losing an older write keeps a newer surviving one over it; losing the newer brings back the older", () => {
    const run = (fates: ("kept" | "lost")[]): Uint8Array => {
      const file = new SimFile(1, "f", 1);
      file.write(0, new Uint8Array(30).fill(1), true);
      file.syncThrough(file.changeSeq);
      file.write(0, new Uint8Array(20).fill(2), true);
      file.write(10, new Uint8Array(20).fill(3), true);
      file.crash(fates, () => 0);
      return file.image.read(0, 30);
    };
    const bytes = (...parts: [number, number][]): Uint8Array =>
      Uint8Array.from(parts.flatMap(([v, n]) => new Array<number>(n).fill(v)));
    expect(run(["kept", "kept"])).toEqual(bytes([2, 10], [3, 20]));
    expect(run(["lost", "kept"])).toEqual(bytes([1, 10], [3, 20]));
    expect(run(["kept", "lost"])).toEqual(bytes([2, 20], [1, 10]));
    expect(run(["lost", "lost"])).toEqual(bytes([1, 30]));
  });

  it("a write that landed with crash faults off is not exposed: it survives, and shields what it covers", () => {
    const file = new SimFile(1, "f", 1);
    file.write(0, new Uint8Array(20).fill(1), true);
    file.write(10, new Uint8Array(20).fill(2), false);
    expect(file.unsyncedWrites()).toHaveLength(1);
    expect(file.unsyncedWriteCount).toBe(2);
    const damage = file.crash(["lost"], () => 0);
    expect(damage).toEqual([{ fate: "lost", offsetBytes: 0, lengthBytes: 20 }]);
    expect(file.sizeBytes).toBe(30);
    expect(file.image.read(10, 20)).toEqual(new Uint8Array(20).fill(2));
  });

  it("the size after a crash is the size the surviving changes give; setLength always survives", () => {
    const file = new SimFile(1, "f", 1);
    file.write(0, new Uint8Array(100).fill(1), true);
    file.syncThrough(file.changeSeq);
    file.write(100, new Uint8Array(100).fill(2), true); // lost: back to 100
    file.resize(150); // survives: 150
    file.write(150, new Uint8Array(50).fill(3), true); // kept: 200
    file.write(500, new Uint8Array(10).fill(4), true); // lost
    const damage = file.crash(["lost", "kept", "lost"], () => 0);
    expect(file.sizeBytes).toBe(200);
    expect(damage.map((d) => [d.fate, d.offsetBytes])).toEqual([
      ["lost", 500],
      ["lost", 100],
    ]);
    expect(file.image.read(0, 100)).toEqual(new Uint8Array(100).fill(1));
    expect(file.image.read(150, 50)).toEqual(new Uint8Array(50).fill(3));
    expect(file.unsyncedWriteCount).toBe(0);
  });

  it(`remembers at most ${MAX_UNSYNCED_CHANGES_PER_FILE} unsynced changes: older ones are written back (durable)`, () => {
    const file = new SimFile(1, "f", 1);
    for (let i = 0; i < MAX_UNSYNCED_CHANGES_PER_FILE + 10; i++) file.write(i, new Uint8Array([i & 0xff]), true);
    expect(file.unsyncedWriteCount).toBe(MAX_UNSYNCED_CHANGES_PER_FILE);
    file.crash(new Array(MAX_UNSYNCED_CHANGES_PER_FILE).fill("lost"), () => 0);
    expect(file.sizeBytes).toBe(10);
    expect(file.image.read(0, 10)).toEqual(Uint8Array.from({ length: 10 }, (_, i) => i));
  });
});

describe("fault decisions", () => {
  it("draw nothing when their probability is 0 (the baseline costs no randomness)", () => {
    const sim = new RandomStream(1, STREAM_KEYS.sim);
    expect(decideWriteFate(DEFAULT_STORAGE_CONFIG, sim)).toBe("normal");
    expect(decideMisdirectedRead(DEFAULT_STORAGE_CONFIG, sim)).toBe(false);
    expect(decideSyncFailure(DEFAULT_STORAGE_CONFIG, sim)).toBe(false);
    expect(pickFaultedSectors(0, 0, 100, sim)).toEqual([]);
    expect(decideCrashFates(DEFAULT_STORAGE_CONFIG, 50, sim)).toEqual(new Array(50).fill("kept"));
    expect(sim.totalCalls).toBe(0);
  });

  it("phantom is decided before misdirection; a phantom write draws no misdirection", () => {
    const sim = new RandomStream(1, STREAM_KEYS.sim);
    expect(
      decideWriteFate({ ...DEFAULT_STORAGE_CONFIG, phantomWriteProbability: 1, misdirectedWriteProbability: 1 }, sim),
    ).toBe("phantom");
    expect(sim.totalCalls).toBe(1);
    expect(decideWriteFate({ ...DEFAULT_STORAGE_CONFIG, misdirectedWriteProbability: 1 }, sim)).toBe("misdirected");
  });

  it("misdirection moves by a whole, non-zero number of sectors, to every other sector of the file", () => {
    const sim = new RandomStream(2, STREAM_KEYS.sim);
    const targets = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const offset = misdirectedOffset(2 * S + 7, 6 * S, sim);
      expect((offset - 7) % S).toBe(0);
      targets.add(offset);
    }
    expect([...targets].sort((a, b) => a - b)).toEqual([0, 1, 3, 4, 5].map((s) => s * S + 7));
    expect(misdirectedOffset(5, 100, sim)).toBe(S + 5); // one-sector file: lands outside it
  });
});

function popcount(x: number): number {
  let n = 0;
  for (; x !== 0; x >>>= 1) n += x & 1;
  return n;
}
