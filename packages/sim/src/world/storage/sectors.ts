/**
 * The content of one simulated file (TigerBeetle's in-memory storage pattern):
 *
 * - `pristine` bytes: what was written, as written. Bytes past `sizeBytes` are always zero.
 * - 512-byte sectors with two flags each: `written` (some write landed in the sector since it was
 *   last truncated away) and `faulted` (the sector is corrupt until rewritten).
 * - overlays: up to `MAX_OVERLAYS_PER_FILE` misdirected writes kept apart from `pristine`.
 *
 * What a read returns, in order: the pristine bytes; the overlays patched in; every never-written
 * sector replaced by deterministic noise from the file's seed (`seed`, drawn from the sim stream
 * when the file is created or truncated); and in every faulted sector exactly one bit flipped, at a
 * position derived from the sector's content, so retrying the read gives the same wrong bytes.
 *
 * Overlays keep `pristine` equal to what the application meant to write: a misdirected write puts
 * its bytes in `pristine` at the intended place (where the overlay shows the old bytes instead)
 * and the overlay shows them at the mistaken place. An overlay is folded into `pristine`
 * (`flatten`) as soon as a write, a resize or a crash touches it, or when a newer one needs its
 * slot; reads are the same before and after folding.
 *
 * The arrays grow with the highest written byte, not with `sizeBytes`: extending a file with
 * `setLength` costs nothing until the new bytes are written.
 */
export const SECTOR_SIZE_BYTES = 512;
/** Misdirected writes kept as overlays per file; the oldest is folded in beyond that. */
export const MAX_OVERLAYS_PER_FILE = 2;
/** Largest simulated file, so that a stray offset cannot allocate the machine's memory. */
export const MAX_SIM_FILE_SIZE_BYTES = 1 << 30;

const INITIAL_CAPACITY_BYTES = 4 * SECTOR_SIZE_BYTES;
/** What a never-written file holds (shared: it has no capacity, so nothing ever writes into it). */
const NO_BYTES = new Uint8Array(0);
/** One sector of noise, filled and copied out within one synchronous call (so one is enough). */
const NOISE_SCRATCH = new Uint8Array(SECTOR_SIZE_BYTES);

/** A misdirected write: `intended` shows `oldBytes`, `mistaken` shows `newBytes` (raw, pre-noise). */
export interface Overlay {
  readonly intendedOffsetBytes: number;
  readonly mistakenOffsetBytes: number;
  /** What `pristine` held at the intended place before the write (`newBytes.length` long). */
  readonly oldBytes: Uint8Array;
  /** The written bytes, clipped to the file at the mistaken place. */
  readonly newBytes: Uint8Array;
}

/** What a write changed, so a crash can take it back (sector flags of its sectors, bytes of its range). */
export interface WriteUndo {
  readonly offsetBytes: number;
  readonly oldBytes: Uint8Array;
  readonly firstSector: number;
  readonly oldWritten: Uint8Array;
  readonly oldFaulted: Uint8Array;
}

export function sectorOf(offsetBytes: number): number {
  return Math.floor(offsetBytes / SECTOR_SIZE_BYTES);
}

/** Sectors touched by `[offset, offset + length)`: `[first, end)`; empty for length 0. */
export function sectorSpan(offsetBytes: number, lengthBytes: number): [first: number, end: number] {
  if (lengthBytes === 0) return [sectorOf(offsetBytes), sectorOf(offsetBytes)];
  return [sectorOf(offsetBytes), sectorOf(offsetBytes + lengthBytes - 1) + 1];
}

function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Noise of a never-written sector: a function of the file seed and the sector index only. */
function fillNoise(seed: number, sector: number, out: Uint8Array): void {
  let state = mix32(seed ^ Math.imul(sector + 1, 0x9e3779b9));
  for (let i = 0; i < SECTOR_SIZE_BYTES; i += 4) {
    state = (state + 0x6d2b79f5) | 0;
    const word = mix32(state);
    out[i] = word & 0xff;
    out[i + 1] = (word >>> 8) & 0xff;
    out[i + 2] = (word >>> 16) & 0xff;
    out[i + 3] = word >>> 24;
  }
}

export class SectorImage {
  sizeBytes = 0;
  /** Seed of the noise in never-written sectors. */
  seed: number;
  // Allocated on the first write: many files are opened and never written (or only read), and
  // three fresh buffers per open showed in campaign profiles.
  private pristine = NO_BYTES;
  private written = NO_BYTES;
  private faulted = NO_BYTES;
  readonly overlays: Overlay[] = [];

  constructor(seed: number) {
    this.seed = seed >>> 0;
  }

  /** Empties the file and gives it a new noise seed (open with `truncate`). */
  reset(seed: number): void {
    this.seed = seed >>> 0;
    this.sizeBytes = 0;
    this.pristine = NO_BYTES;
    this.written = NO_BYTES;
    this.faulted = NO_BYTES;
    this.overlays.length = 0;
  }

  get sectorCount(): number {
    return Math.ceil(this.sizeBytes / SECTOR_SIZE_BYTES);
  }

  isWritten(sector: number): boolean {
    return this.written[sector] === 1;
  }

  isFaulted(sector: number): boolean {
    return this.faulted[sector] === 1;
  }

  /** Marks `sector` corrupt until it is rewritten. */
  markFaulted(sector: number): void {
    this.ensureCapacity((sector + 1) * SECTOR_SIZE_BYTES);
    this.faulted[sector] = 1;
  }

  /** The bytes a read of `[offset, offset + length)` returns, clipped to the file. */
  read(offsetBytes: number, lengthBytes: number): Uint8Array {
    const end = Math.min(offsetBytes + lengthBytes, this.sizeBytes);
    if (end <= offsetBytes) return new Uint8Array(0);
    return this.readClipped(offsetBytes, end - offsetBytes);
  }

  /** A normal write: auto-extends, marks its sectors written and clears their faults. */
  write(offsetBytes: number, bytes: Uint8Array): void {
    const end = offsetBytes + bytes.length;
    this.flattenOverlapping(offsetBytes, end);
    this.ensureCapacity(end);
    this.pristine.set(bytes, offsetBytes);
    const [first, last] = sectorSpan(offsetBytes, bytes.length);
    this.written.fill(1, first, last);
    this.faulted.fill(0, first, last);
    if (end > this.sizeBytes) this.sizeBytes = end;
  }

  /** Captures what `write(offset, length bytes)` is about to change (call just before it). */
  captureUndo(offsetBytes: number, lengthBytes: number): WriteUndo {
    this.flattenOverlapping(offsetBytes, offsetBytes + lengthBytes);
    const [first, last] = sectorSpan(offsetBytes, lengthBytes);
    return {
      offsetBytes,
      oldBytes: this.rawSlice(offsetBytes, lengthBytes),
      firstSector: first,
      oldWritten: this.flagSlice(this.written, first, last),
      oldFaulted: this.flagSlice(this.faulted, first, last),
    };
  }

  /** Puts back the bytes `undo` saved within `[from, to)` (a crash skips what later surviving writes cover). */
  restoreBytes(undo: WriteUndo, from: number, to: number): void {
    const start = Math.max(from, undo.offsetBytes);
    const end = Math.min(to, undo.offsetBytes + undo.oldBytes.length);
    if (end <= start) return;
    this.ensureCapacity(end);
    this.pristine.set(undo.oldBytes.subarray(start - undo.offsetBytes, end - undo.offsetBytes), start);
  }

  /** Puts back the sector flags `undo` saved, for the sectors `restoreSector` accepts. */
  restoreFlags(undo: WriteUndo, restoreSector: (sector: number) => boolean): void {
    for (let i = 0; i < undo.oldWritten.length; i++) {
      const sector = undo.firstSector + i;
      if (!restoreSector(sector)) continue;
      this.ensureCapacity((sector + 1) * SECTOR_SIZE_BYTES);
      this.written[sector] = undo.oldWritten[i]!;
      this.faulted[sector] = undo.oldFaulted[i]!;
    }
  }

  /**
   * A misdirected write meant for `intended`, landing at `mistaken` (clipped to `sizeBytes`, which
   * the caller has already extended to cover the intended range). Sector flags change where the
   * bytes really landed.
   */
  misdirect(intendedOffsetBytes: number, mistakenOffsetBytes: number, bytes: Uint8Array): void {
    const end = intendedOffsetBytes + bytes.length;
    if (end > this.sizeBytes) this.sizeBytes = end;
    this.flattenOverlapping(intendedOffsetBytes, end);
    const landedLength = Math.max(0, Math.min(bytes.length, this.sizeBytes - mistakenOffsetBytes));
    this.flattenOverlapping(mistakenOffsetBytes, mistakenOffsetBytes + landedLength);
    if (this.overlays.length >= MAX_OVERLAYS_PER_FILE) this.flatten(this.overlays.shift()!);
    this.ensureCapacity(Math.max(end, mistakenOffsetBytes + landedLength));
    const overlay: Overlay = {
      intendedOffsetBytes,
      mistakenOffsetBytes,
      oldBytes: this.rawSlice(intendedOffsetBytes, bytes.length),
      newBytes: bytes.slice(0, landedLength),
    };
    this.pristine.set(bytes, intendedOffsetBytes);
    const [first, last] = sectorSpan(mistakenOffsetBytes, landedLength);
    this.written.fill(1, first, last);
    this.faulted.fill(0, first, last);
    this.overlays.push(overlay);
  }

  /** Grows the file to `sizeBytes` without writing (the new bytes are a hole); never shrinks. */
  grow(sizeBytes: number): void {
    if (sizeBytes > this.sizeBytes) this.sizeBytes = sizeBytes;
  }

  /** Truncates or extends to `sizeBytes`; sectors cut away forget that they were written or faulted. */
  resize(sizeBytes: number): void {
    this.flattenAll();
    if (sizeBytes < this.sizeBytes) {
      if (sizeBytes < this.pristine.length) this.pristine.fill(0, sizeBytes);
      const keep = Math.ceil(sizeBytes / SECTOR_SIZE_BYTES);
      if (keep < this.written.length) {
        this.written.fill(0, keep);
        this.faulted.fill(0, keep);
      }
    }
    this.sizeBytes = sizeBytes;
  }

  /** Folds every overlay into `pristine` (before a crash reverts writes). */
  flattenAll(): void {
    while (this.overlays.length > 0) this.flatten(this.overlays.shift()!);
  }

  /**
   * Folds the overlays that `[from, to)` touches, and every older one with them: overlays apply in
   * age order, so folding a newer one while an older one stays would let the older win.
   */
  private flattenOverlapping(from: number, to: number): void {
    let last = -1;
    this.overlays.forEach((o, i) => {
      const hitsIntended = o.intendedOffsetBytes < to && from < o.intendedOffsetBytes + o.oldBytes.length;
      const hitsMistaken = o.mistakenOffsetBytes < to && from < o.mistakenOffsetBytes + o.newBytes.length;
      if (hitsIntended || hitsMistaken) last = i;
    });
    for (const o of this.overlays.splice(0, last + 1)) this.flatten(o);
  }

  private flatten(o: Overlay): void {
    this.pristine.set(o.oldBytes, o.intendedOffsetBytes);
    this.pristine.set(o.newBytes, o.mistakenOffsetBytes);
    // Bytes past the end of the file must stay zero.
    if (this.sizeBytes < this.pristine.length) this.pristine.fill(0, this.sizeBytes);
  }

  private readClipped(offsetBytes: number, lengthBytes: number): Uint8Array {
    const out = this.rawSlice(offsetBytes, lengthBytes);
    const end = offsetBytes + lengthBytes;
    for (const o of this.overlays) {
      patch(out, offsetBytes, o.intendedOffsetBytes, o.oldBytes);
      patch(out, offsetBytes, o.mistakenOffsetBytes, o.newBytes);
    }
    const [first, last] = sectorSpan(offsetBytes, lengthBytes);
    for (let sector = first; sector < last; sector++) {
      const sectorStart = sector * SECTOR_SIZE_BYTES;
      const from = Math.max(sectorStart, offsetBytes);
      const to = Math.min(sectorStart + SECTOR_SIZE_BYTES, end);
      if (this.written[sector] !== 1) {
        fillNoise(this.seed, sector, NOISE_SCRATCH);
        out.set(NOISE_SCRATCH.subarray(from - sectorStart, to - sectorStart), from - offsetBytes);
      }
      if (this.faulted[sector] === 1) this.flipBit(sector, out, offsetBytes, from, to);
    }
    return out;
  }

  /**
   * The one flipped bit of a faulted sector: its position is a hash of the seed, the sector and
   * the sector's first 8 bytes as read, so it is stable across retries, and lies within the part
   * of the sector inside the file, so it can be seen.
   */
  private flipBit(sector: number, out: Uint8Array, outOffset: number, from: number, to: number): void {
    const sectorStart = sector * SECTOR_SIZE_BYTES;
    const validBytes = Math.min(SECTOR_SIZE_BYTES, this.sizeBytes - sectorStart);
    if (validBytes <= 0) return;
    let h = mix32(this.seed ^ Math.imul(sector + 1, 0x85ebca6b));
    const head = this.sectorHead(sector);
    for (let i = 0; i < head.length; i++) h = mix32(h ^ head[i]!);
    const bit = h % (validBytes * 8);
    const at = sectorStart + (bit >>> 3);
    if (at >= from && at < to) out[at - outOffset]! ^= 1 << (bit & 7);
  }

  /** The first 8 bytes of `sector` as read, before its fault (what seeds the flip position). */
  private sectorHead(sector: number): Uint8Array {
    const start = sector * SECTOR_SIZE_BYTES;
    const head = this.rawSlice(start, 8);
    for (const o of this.overlays) {
      patch(head, start, o.intendedOffsetBytes, o.oldBytes);
      patch(head, start, o.mistakenOffsetBytes, o.newBytes);
    }
    if (this.written[sector] !== 1) {
      fillNoise(this.seed, sector, NOISE_SCRATCH);
      head.set(NOISE_SCRATCH.subarray(0, 8));
    }
    return head;
  }

  /** A copy of `pristine[offset, offset + length)`, zeros past the allocated bytes. */
  private rawSlice(offsetBytes: number, lengthBytes: number): Uint8Array {
    // The common case is a plain copy (slice skips zero-filling a new array first).
    if (offsetBytes + lengthBytes <= this.pristine.length)
      return this.pristine.slice(offsetBytes, offsetBytes + lengthBytes);
    const out = new Uint8Array(lengthBytes);
    const available = Math.min(lengthBytes, this.pristine.length - offsetBytes);
    if (available > 0) out.set(this.pristine.subarray(offsetBytes, offsetBytes + available));
    return out;
  }

  private flagSlice(flags: Uint8Array, first: number, last: number): Uint8Array {
    const out = new Uint8Array(last - first);
    const available = Math.min(last, flags.length) - first;
    if (available > 0) out.set(flags.subarray(first, first + available));
    return out;
  }

  private ensureCapacity(bytes: number): void {
    if (bytes <= this.pristine.length) return;
    let capacity = Math.max(this.pristine.length, INITIAL_CAPACITY_BYTES);
    while (capacity < bytes) capacity *= 2;
    capacity = Math.ceil(capacity / SECTOR_SIZE_BYTES) * SECTOR_SIZE_BYTES;
    const pristine = new Uint8Array(capacity);
    pristine.set(this.pristine);
    this.pristine = pristine;
    const written = new Uint8Array(capacity / SECTOR_SIZE_BYTES);
    written.set(this.written);
    this.written = written;
    const faulted = new Uint8Array(capacity / SECTOR_SIZE_BYTES);
    faulted.set(this.faulted);
    this.faulted = faulted;
  }
}

/** Copies the part of `src` (placed at `srcOffset`) that falls in `out` (placed at `outOffset`). */
function patch(out: Uint8Array, outOffset: number, srcOffset: number, src: Uint8Array): void {
  const from = Math.max(outOffset, srcOffset);
  const to = Math.min(outOffset + out.length, srcOffset + src.length);
  if (to > from) out.set(src.subarray(from - srcOffset, to - srcOffset), from - outOffset);
}
