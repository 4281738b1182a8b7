/**
 * One simulated file: its sector image and the log of changes a sync has not made durable yet.
 *
 * Writes land in the image when they complete, so every reader sees them at once (a page cache).
 * A write that lands while crash faults are on is exposed: until a sync covers it, it keeps what
 * it overwrote (`WriteUndo`), so a crash can lose it exactly. The crash reverts lost writes newest
 * first, skipping bytes that a later surviving write covers, which leaves every byte holding the
 * newest surviving write or the durable content. The
 * file size after a crash is the size the surviving changes give, replayed from the size before
 * the oldest unsynced change. Size changes (`setLength`, and the extension done by a write that
 * the disk dropped or misdirected) are metadata and always survive.
 *
 * The log is bounded: past `MAX_UNSYNCED_CHANGES_PER_FILE` entries the oldest becomes durable, as a
 * kernel's background writeback would make it.
 */
import { SectorImage, SECTOR_SIZE_BYTES, sectorSpan, type WriteUndo } from "./sectors.ts";

/** Unsynced changes remembered per file before the oldest is written back (made durable). */
export const MAX_UNSYNCED_CHANGES_PER_FILE = 1024;

interface UnsyncedWrite {
  readonly kind: "write";
  readonly seq: number;
  readonly offsetBytes: number;
  readonly lengthBytes: number;
  /** What the write overwrote; null when crash damage was off as it landed (it can never be lost or torn). */
  readonly undo: WriteUndo | null;
  /** A later shrink cut the file here: bytes from this offset on are not restored. */
  undoLimitBytes: number;
}

interface UnsyncedResize {
  /** `set`: `setLength`; `extend`: a write that the disk dropped or misdirected still grew the file. */
  readonly kind: "set" | "extend";
  readonly seq: number;
  readonly sizeBytes: number;
}

type UnsyncedChange = UnsyncedWrite | UnsyncedResize;

/** What a crash does to one unsynced write. */
export type CrashFate = "kept" | "lost" | "torn";

/** Damage a crash did to a file, for its `sim_fault` events. */
export interface CrashDamage {
  readonly fate: "lost" | "torn";
  /** The lost write's range, or the torn sector. */
  readonly offsetBytes: number;
  readonly lengthBytes: number;
}

/** An unsynced write as a crash sees it (the crash decides its fate in this order). */
export interface UnsyncedWriteView {
  readonly offsetBytes: number;
  readonly lengthBytes: number;
}

type Range = readonly [start: number, end: number];

/** `[start, end)` minus every range of `cut`, as sorted disjoint ranges. */
export function subtractRanges(start: number, end: number, cut: readonly Range[]): Range[] {
  const overlapping = cut.filter(([s, e]) => s < end && e > start).sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  let at = start;
  for (const [s, e] of overlapping) {
    if (s > at) out.push([at, Math.min(s, end)]);
    if (e > at) at = e;
    if (at >= end) break;
  }
  if (at < end) out.push([at, end]);
  return out;
}

export class SimFile {
  readonly image: SectorImage;
  private unsynced: UnsyncedChange[] = [];
  /** Size before the oldest unsynced change. */
  private baseSizeBytes = 0;
  /** Sequence number of the last change (syncs cover changes up to a number). */
  private lastSeq = 0;
  /** Unsynced changes made durable because the log was full (background writeback). */
  writebacks = 0;

  constructor(
    /** Unique within the world, in creation order (for `sim_fault` events: paths change with renames). */
    readonly id: number,
    /** Current path (a rename changes it). */
    public path: string,
    seed: number,
  ) {
    this.image = new SectorImage(seed);
  }

  get sizeBytes(): number {
    return this.image.sizeBytes;
  }

  /** Number of the newest change: a sync started now covers changes up to it. */
  get changeSeq(): number {
    return this.lastSeq;
  }

  /** Whether some change is not durable yet (a sync would have work to do). */
  get hasUnsyncedChanges(): boolean {
    return this.unsynced.length > 0;
  }

  get unsyncedWriteCount(): number {
    let n = 0;
    for (const c of this.unsynced) if (c.kind === "write") n++;
    return n;
  }

  /**
   * A write that landed where it was meant to. `exposed`: whether a crash may damage it (crash
   * faults are on); only then is what it overwrote kept, which is most of the cost of a write.
   */
  write(offsetBytes: number, bytes: Uint8Array, exposed: boolean): void {
    if (bytes.length === 0) return; // a write of nothing changes nothing (not even the size)
    const sizeBefore = this.image.sizeBytes;
    const undo = exposed ? this.image.captureUndo(offsetBytes, bytes.length) : null;
    this.image.write(offsetBytes, bytes);
    this.log(sizeBefore, {
      kind: "write",
      seq: ++this.lastSeq,
      offsetBytes,
      lengthBytes: bytes.length,
      undo,
      undoLimitBytes: Infinity,
    });
  }

  /** The file metadata grew to cover a write whose bytes did not land as meant (phantom, misdirected). */
  extendTo(sizeBytes: number, sizeBefore: number): void {
    if (sizeBytes <= sizeBefore) return;
    this.image.grow(sizeBytes);
    this.log(sizeBefore, { kind: "extend", seq: ++this.lastSeq, sizeBytes });
  }

  /** `setLength`: earlier unsynced writes cannot bring back bytes a shrink cut away. */
  resize(sizeBytes: number): void {
    const sizeBefore = this.image.sizeBytes;
    this.image.resize(sizeBytes);
    for (const change of this.unsynced) {
      if (change.kind === "write" && change.undoLimitBytes > sizeBytes) change.undoLimitBytes = sizeBytes;
    }
    this.log(sizeBefore, { kind: "set", seq: ++this.lastSeq, sizeBytes });
  }

  /** `open` with `truncate`: empty, with a new noise seed; nothing is left to sync. */
  truncate(seed: number): void {
    this.image.reset(seed);
    this.unsynced = [];
    this.baseSizeBytes = 0;
  }

  /** A sync that covered changes up to `seq` completed: they are durable. */
  syncThrough(seq: number): void {
    let n = 0;
    while (n < this.unsynced.length && this.unsynced[n]!.seq <= seq) n++;
    if (n === 0) return;
    this.baseSizeBytes = this.sizeAfter(this.unsynced.slice(0, n), this.baseSizeBytes, null);
    this.unsynced = n === this.unsynced.length ? [] : this.unsynced.slice(n);
  }

  /** The unsynced writes a crash may damage, oldest first: a crash decides their fates in this order. */
  unsyncedWrites(): UnsyncedWriteView[] {
    return this.unsynced.filter((c): c is UnsyncedWrite => c.kind === "write" && c.undo !== null);
  }

  /**
   * Applies a crash: `fates[i]` is the fate of `unsyncedWrites()[i]`; `pickSector(first, end)`
   * chooses the faulted sector of a torn write in `[first, end)`. Afterwards nothing is unsynced.
   */
  crash(fates: readonly CrashFate[], pickSector: (first: number, end: number) => number): CrashDamage[] {
    const writes = this.unsyncedWrites();
    if (fates.length !== writes.length)
      throw new Error(`crash: ${fates.length} fates for ${writes.length} unsynced writes`);
    const fateOf = new Map<UnsyncedWrite, CrashFate>();
    writes.forEach((w, i) => {
      fateOf.set(w as UnsyncedWrite, fates[i]!);
    });
    const damage: CrashDamage[] = [];
    this.image.flattenAll();
    // Newest first: a lost write puts back what it overwrote, except where a later write survives.
    const survivors: Range[] = [];
    for (let i = this.unsynced.length - 1; i >= 0; i--) {
      const change = this.unsynced[i]!;
      if (change.kind !== "write") continue;
      const end = change.offsetBytes + change.lengthBytes;
      if (change.undo === null || fateOf.get(change) !== "lost") {
        survivors.push([change.offsetBytes, end]);
        continue;
      }
      const limit = Math.min(end, change.undoLimitBytes);
      for (const [from, to] of subtractRanges(change.offsetBytes, limit, survivors))
        this.image.restoreBytes(change.undo, from, to);
      this.image.restoreFlags(change.undo, (sector) => {
        const start = sector * SECTOR_SIZE_BYTES;
        return start < limit && !survivors.some(([s, e]) => s < start + SECTOR_SIZE_BYTES && e > start);
      });
      damage.push({ fate: "lost", offsetBytes: change.offsetBytes, lengthBytes: change.lengthBytes });
    }
    const sizeBytes = this.sizeAfter(this.unsynced, this.baseSizeBytes, fateOf);
    this.image.resize(sizeBytes);
    for (const w of writes) {
      if (fateOf.get(w as UnsyncedWrite) !== "torn") continue;
      const [first, end] = sectorSpan(w.offsetBytes, w.lengthBytes);
      const last = Math.min(end, this.image.sectorCount);
      if (last <= first) continue; // the torn part lies past the end of the file now
      const sector = pickSector(first, last);
      this.image.markFaulted(sector);
      damage.push({ fate: "torn", offsetBytes: sector * SECTOR_SIZE_BYTES, lengthBytes: SECTOR_SIZE_BYTES });
    }
    this.unsynced = [];
    this.baseSizeBytes = sizeBytes;
    return damage;
  }

  private log(sizeBefore: number, change: UnsyncedChange): void {
    if (this.unsynced.length === 0) this.baseSizeBytes = sizeBefore;
    this.unsynced.push(change);
    if (this.unsynced.length > MAX_UNSYNCED_CHANGES_PER_FILE) {
      this.writebacks++;
      this.syncThrough(this.unsynced[0]!.seq);
    }
  }

  /** The size `changes` give from `startBytes`, skipping lost writes. */
  private sizeAfter(
    changes: readonly UnsyncedChange[],
    startBytes: number,
    fateOf: Map<UnsyncedWrite, CrashFate> | null,
  ): number {
    let size = startBytes;
    for (const c of changes) {
      if (c.kind === "write") {
        if (fateOf?.get(c) !== "lost") size = Math.max(size, c.offsetBytes + c.lengthBytes);
      } else if (c.kind === "set") size = c.sizeBytes;
      else size = Math.max(size, c.sizeBytes);
    }
    return size;
  }
}
