/**
 * An open simulated file (`StorageFile`). Reads, writes, syncs and `setLength` take simulated
 * time (see `latency.ts`) and apply when they complete, where the fault families strike
 * (`faults.ts`); `size()` and `close()` answer at once.
 *
 * A handle's operations belong to the scope that opened the file (like a connection's), and the
 * handle dies with its disk's epoch: after a crash or wipe of its IP it answers EBADF.
 */
import { checkLength, checkReadRange, checkWriteArgs, IoError, type StorageFile } from "@moonpool/core";
import { Incarnation, type PendingOp } from "../../engine/incarnation.ts";
import type { ActorScope } from "../scope.ts";
import { sampleLatencyUs } from "../network/config.ts";
import {
  decideMisdirectedRead,
  decideSyncFailure,
  decideWriteFate,
  misdirectedOffset,
  pickFaultedSectors,
  STORAGE_FAULT_KINDS,
} from "./faults.ts";
import { MAX_UNSYNCED_CHANGES_PER_FILE, type SimFile } from "./file.ts";
import { syncLatencyUs, transferLatencyUs, type EpisodeKind } from "./latency.ts";
import { failed, issue, settled, type StorageRequest } from "./ops.ts";
import { MAX_SIM_FILE_SIZE_BYTES, SECTOR_SIZE_BYTES, sectorSpan } from "./sectors.ts";
import type { Disk, SimStorage } from "./storage.ts";

function tooBig(path: string, endBytes: number): IoError {
  return new IoError(
    "EFBIG",
    `${path}: ${endBytes} bytes is past the simulator's file size limit of ${MAX_SIM_FILE_SIZE_BYTES} bytes`,
  );
}

class ReadRequest implements StorageRequest<Uint8Array> {
  constructor(
    readonly storage: SimStorage,
    readonly disk: Disk,
    readonly epoch: number,
    readonly op: PendingOp<Uint8Array>,
    readonly handle: SimFileHandle,
    readonly offsetBytes: number,
    readonly lengthBytes: number,
  ) {}
  complete(): void {
    Incarnation.resolve(this.op, this.handle.completeRead(this.offsetBytes, this.lengthBytes));
  }
}

class WriteRequest implements StorageRequest<void> {
  constructor(
    readonly storage: SimStorage,
    readonly disk: Disk,
    readonly epoch: number,
    readonly op: PendingOp<void>,
    readonly handle: SimFileHandle,
    readonly offsetBytes: number,
    readonly bytes: Uint8Array,
  ) {}
  complete(): void {
    const error = this.handle.completeWrite(this.offsetBytes, this.bytes);
    if (error === null) Incarnation.resolve(this.op, undefined);
    else Incarnation.reject(this.op, error);
  }
}

class SyncRequest implements StorageRequest<void> {
  constructor(
    readonly storage: SimStorage,
    readonly disk: Disk,
    readonly epoch: number,
    readonly op: PendingOp<void>,
    readonly handle: SimFileHandle,
    /** The file's newest change when the sync was issued: what it makes durable. */
    readonly throughSeq: number,
  ) {}
  complete(): void {
    const error = this.handle.completeSync(this.throughSeq);
    if (error === null) Incarnation.resolve(this.op, undefined);
    else Incarnation.reject(this.op, error);
  }
}

class SetLengthRequest implements StorageRequest<void> {
  constructor(
    readonly storage: SimStorage,
    readonly disk: Disk,
    readonly epoch: number,
    readonly op: PendingOp<void>,
    readonly file: SimFile,
    readonly sizeBytes: number,
  ) {}
  complete(): void {
    this.file.resize(this.sizeBytes);
    Incarnation.resolve(this.op, undefined);
  }
}

export class SimFileHandle implements StorageFile {
  private closed = false;
  private readonly epoch: number;

  constructor(
    private readonly storage: SimStorage,
    private readonly disk: Disk,
    private readonly file: SimFile,
    private readonly scope: ActorScope,
    readonly path: string,
    private readonly readable: boolean,
    private readonly writable: boolean,
    private readonly appending: boolean,
  ) {
    this.epoch = disk.epoch;
  }

  read(offset: number, length: number): Promise<Uint8Array> {
    const refused = checkReadRange(offset, length) ?? this.access("read", this.readable);
    if (refused !== null) return failed(this.scope, refused);
    const delayUs = this.transferDelayUs("read", length);
    return issue(
      this.storage,
      this.scope,
      "storage read of",
      this.path,
      delayUs,
      (op) => new ReadRequest(this.storage, this.disk, this.epoch, op, this, offset, length),
    );
  }

  write(offset: number, bytes: Uint8Array): Promise<void> {
    const refused = checkWriteArgs(offset, bytes) ?? this.access("write", this.writable);
    if (refused !== null) return failed(this.scope, refused);
    if (!this.appending && offset + bytes.length > MAX_SIM_FILE_SIZE_BYTES)
      return failed(this.scope, tooBig(this.path, offset + bytes.length));
    // The caller may reuse its buffer before the write lands. (Not `slice`: a Buffer's is a view.)
    const copy = new Uint8Array(bytes);
    const delayUs = this.transferDelayUs("write", bytes.length);
    return issue(
      this.storage,
      this.scope,
      "storage write to",
      this.path,
      delayUs,
      (op) => new WriteRequest(this.storage, this.disk, this.epoch, op, this, offset, copy),
    );
  }

  sync(): Promise<void> {
    const refused = this.access("sync", true);
    if (refused !== null) return failed(this.scope, refused);
    const sim = this.storage.world.engine.streams.sim;
    const nowUs = this.storage.world.engine.nowUs;
    this.advanceEpisodes(nowUs);
    const delayUs = syncLatencyUs(nowUs, this.disk.config, this.disk.episodes, sim);
    const throughSeq = this.file.changeSeq;
    return issue(
      this.storage,
      this.scope,
      "storage sync of",
      this.path,
      delayUs,
      (op) => new SyncRequest(this.storage, this.disk, this.epoch, op, this, throughSeq),
    );
  }

  size(): Promise<number> {
    const refused = this.access("size", true);
    if (refused !== null) return failed(this.scope, refused);
    return settled(this.scope, this.file.sizeBytes);
  }

  setLength(sizeBytes: number): Promise<void> {
    const refused = checkLength(sizeBytes) ?? this.access("setLength", true);
    if (refused !== null) return failed(this.scope, refused);
    if (!this.writable)
      return failed(
        this.scope,
        new IoError("EINVAL", `setLength on ${this.path}: the file was not opened with write or append`),
      );
    if (sizeBytes > MAX_SIM_FILE_SIZE_BYTES) return failed(this.scope, tooBig(this.path, sizeBytes));
    const delayUs = sampleLatencyUs(this.disk.config.writeLatencyUs, this.storage.world.engine.streams.sim);
    return issue(
      this.storage,
      this.scope,
      "storage setLength of",
      this.path,
      delayUs,
      (op) => new SetLengthRequest(this.storage, this.disk, this.epoch, op, this.file, sizeBytes),
    );
  }

  close(): Promise<void> {
    this.closed = true;
    return settled(this.scope, undefined);
  }

  // --- completions (called by the requests when their event fires) -----------------------------

  /** Whether a sync would have work to do (some change of the file is not durable yet). */
  get hasUnsyncedChanges(): boolean {
    return this.file.hasUnsyncedChanges;
  }

  /** The newest change of the file: a sync now covers changes up to it. */
  get changeSeq(): number {
    return this.file.changeSeq;
  }

  /**
   * Simulated time a read, write or sync issued `afterUs` from now would take (stall and throttle
   * episodes apply as of then), for callers that apply operations at once, one after the other, and
   * pay their time afterwards: each is issued when the one before it would have completed.
   */
  ioDelayUs(kind: "read" | "write" | "sync", sizeBytes: number, afterUs = 0): number {
    const world = this.storage.world;
    const atUs = world.engine.nowUs + afterUs;
    this.advanceEpisodes(atUs);
    const config = this.disk.config;
    const sim = world.engine.streams.sim;
    if (kind === "sync") return syncLatencyUs(atUs, config, this.disk.episodes, sim);
    const base = kind === "read" ? config.readLatencyUs : config.writeLatencyUs;
    return transferLatencyUs(base, sizeBytes, atUs, config, this.disk.episodes, sim);
  }

  /** `setLength` applied at once. */
  resizeSync(sizeBytes: number): void {
    this.file.resize(sizeBytes);
  }

  completeRead(offset: number, length: number): Uint8Array {
    const image = this.file.image;
    const n = Math.max(0, Math.min(length, image.sizeBytes - offset));
    if (n === 0) return new Uint8Array(0);
    const config = this.disk.config;
    const sim = this.storage.world.engine.streams.sim;
    if (decideMisdirectedRead(config, sim)) {
      const mistaken = misdirectedOffset(offset, image.sizeBytes, sim);
      if (this.skipFault(STORAGE_FAULT_KINDS.readFault)) return image.read(offset, n);
      this.recordFault(STORAGE_FAULT_KINDS.readFault, {
        readKind: "misdirected",
        offsetBytes: offset,
        lengthBytes: n,
        mistakenOffsetBytes: mistaken,
      });
      // Whatever lies past the end of the file there comes back as zeros.
      const out = new Uint8Array(n);
      out.set(image.read(mistaken, n));
      return out;
    }
    const [first, end] = sectorSpan(offset, n);
    for (const sector of pickFaultedSectors(config.readFaultProbability, first, end, sim)) {
      if (this.skipFault(STORAGE_FAULT_KINDS.readFault)) continue;
      image.markFaulted(sector);
      this.recordFault(STORAGE_FAULT_KINDS.readFault, { readKind: "corruption", ...sectorRange(sector) });
    }
    return image.read(offset, n);
  }

  completeWrite(requestedOffset: number, bytes: Uint8Array): IoError | null {
    const file = this.file;
    // O_APPEND: the end of the file when the write lands, whatever landed before it.
    const offset = this.appending ? file.sizeBytes : requestedOffset;
    const end = offset + bytes.length;
    if (end > MAX_SIM_FILE_SIZE_BYTES) return tooBig(this.path, end);
    if (bytes.length === 0) return null;
    const config = this.disk.config;
    const sim = this.storage.world.engine.streams.sim;
    const sizeBefore = file.sizeBytes;
    const decided = decideWriteFate(config, sim);
    const mistaken = decided === "misdirected" ? misdirectedOffset(offset, Math.max(sizeBefore, end), sim) : 0;
    // A skipped phantom or misdirected write lands where it should (without the sector draws of a plain write).
    const skipped = decided !== "normal" && this.skipFault(STORAGE_FAULT_KINDS.writeFault);
    const fate = skipped ? "normal" : decided;
    if (fate === "phantom") {
      // The file system recorded the new size; the device dropped the bytes.
      file.extendTo(end, sizeBefore);
      this.recordFault(STORAGE_FAULT_KINDS.writeFault, {
        writeKind: "phantom",
        offsetBytes: offset,
        lengthBytes: bytes.length,
      });
    } else if (fate === "misdirected") {
      file.image.misdirect(offset, mistaken, bytes);
      file.extendTo(end, sizeBefore);
      this.recordFault(STORAGE_FAULT_KINDS.writeFault, {
        writeKind: "misdirected",
        offsetBytes: offset,
        lengthBytes: bytes.length,
        mistakenOffsetBytes: mistaken,
      });
    } else {
      const writebacksBefore = file.writebacks;
      file.write(offset, bytes, config.crashFaultProbability > 0);
      if (writebacksBefore === 0 && file.writebacks > 0) {
        // The bounded unsynced log is full: say so once per file (older writes are now durable).
        this.storage.world.emit("sim", "info", "storage_writeback", {
          ip: this.disk.ip,
          path: file.path,
          fileId: file.id,
          unsyncedLimit: MAX_UNSYNCED_CHANGES_PER_FILE,
        });
      }
      const [first, last] = sectorSpan(offset, bytes.length);
      const sectors = skipped ? [] : pickFaultedSectors(config.writeFaultProbability, first, last, sim);
      for (const sector of sectors) {
        if (this.skipFault(STORAGE_FAULT_KINDS.writeFault)) continue;
        file.image.markFaulted(sector);
        this.recordFault(STORAGE_FAULT_KINDS.writeFault, { writeKind: "corruption", ...sectorRange(sector) });
      }
    }
    return null;
  }

  completeSync(throughSeq: number): IoError | null {
    const failed = decideSyncFailure(this.disk.config, this.storage.world.engine.streams.sim);
    if (failed && !this.skipFault(STORAGE_FAULT_KINDS.syncFault)) {
      this.recordFault(STORAGE_FAULT_KINDS.syncFault, {});
      return new IoError(
        "EIO",
        `sync of ${this.path} failed (simulated I/O error); the writes it covered are not durable, sync again`,
      );
    }
    this.file.syncThrough(throughSeq);
    return null;
  }

  // --- helpers ---------------------------------------------------------------------------------

  /** `EBADF` when closed (or its disk crashed or was wiped) or not opened for this access, else null. */
  private access(op: string, allowed: boolean): IoError | null {
    if (this.closed || this.epoch !== this.disk.epoch) {
      const why = this.closed
        ? "the file handle is closed"
        : `the disk of ${this.disk.ip} crashed or was wiped since it was opened`;
      return new IoError("EBADF", `${op} on ${this.path}: ${why}; open the file again`);
    }
    if (!allowed)
      return new IoError(
        "EBADF",
        `${op} on ${this.path}: the file was not opened with ${op === "read" ? "read" : "write or append"}`,
      );
    return null;
  }

  private transferDelayUs(kind: "read" | "write", sizeBytes: number): number {
    const world = this.storage.world;
    const nowUs = world.engine.nowUs;
    this.advanceEpisodes(nowUs);
    const config = this.disk.config;
    const base = kind === "read" ? config.readLatencyUs : config.writeLatencyUs;
    return transferLatencyUs(base, sizeBytes, nowUs, config, this.disk.episodes, world.engine.streams.sim);
  }

  /** Advances the disk's stall/throttle state machine; an episode that starts is a fault event. */
  private advanceEpisodes(nowUs: number): void {
    const config = this.disk.config;
    const started: EpisodeKind | null = this.disk.episodes.advance(
      nowUs,
      config,
      this.storage.world.engine.streams.sim,
    );
    if (started === "stall") {
      this.storage.world.recordFault(STORAGE_FAULT_KINDS.stall, {
        ip: this.disk.ip,
        durationMs: config.stallDurationUs / 1000,
      });
    } else if (started === "throttle") {
      this.storage.world.recordFault(STORAGE_FAULT_KINDS.throttle, {
        ip: this.disk.ip,
        durationMs: config.throttleDurationUs / 1000,
        iopsMultiplier: config.throttleIopsMultiplier,
        bandwidthMultiplier: config.throttleBandwidthMultiplier,
      });
    }
  }

  private skipFault(kind: string): boolean {
    return this.storage.world.skipFault(kind);
  }

  private recordFault(kind: string, fields: Record<string, string | number>): void {
    this.storage.world.recordFault(kind, { ip: this.disk.ip, path: this.file.path, fileId: this.file.id, ...fields });
  }
}

function sectorRange(sector: number): { offsetBytes: number; lengthBytes: number } {
  return { offsetBytes: sector * SECTOR_SIZE_BYTES, lengthBytes: SECTOR_SIZE_BYTES };
}
