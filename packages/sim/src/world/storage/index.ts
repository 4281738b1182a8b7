/** Simulated storage: one disk per IP, the sector model, latency and fault families. */
export { SimStorage, Disk, type DiskListener } from "./storage.ts";
export { SimStorageProvider } from "./provider.ts";
export { SimFileHandle } from "./handle.ts";
export { SimFile, MAX_UNSYNCED_CHANGES_PER_FILE, type CrashFate, type CrashDamage } from "./file.ts";
export {
  SectorImage,
  SECTOR_SIZE_BYTES,
  MAX_OVERLAYS_PER_FILE,
  MAX_SIM_FILE_SIZE_BYTES,
  type Overlay,
} from "./sectors.ts";
export { STORAGE_FAULT_KINDS } from "./faults.ts";
export { DiskEpisodes, transferUs, US_PER_SECOND } from "./latency.ts";
export {
  DEFAULT_STORAGE_CONFIG,
  FAST_LOCAL_STORAGE_CONFIG,
  DEFAULT_STORAGE_IOPS,
  DEFAULT_STORAGE_BANDWIDTH_BYTES_PER_SEC,
  DEFAULT_READ_LATENCY_US,
  DEFAULT_WRITE_LATENCY_US,
  DEFAULT_SYNC_LATENCY_US,
  DEFAULT_CRASH_LOST_WRITE_RATIO,
  METADATA_LATENCY_US,
  validateStorageConfig,
  withoutStorageFaults,
  type StorageConfig,
  type LatencyDistribution,
} from "./config.ts";
