/**
 * Where the engine publishes that it is making progress, for a watchdog on another thread (the
 * pool's, runner/pool/progress-watchdog.ts) to tell a slow seed from a hung one without a wall
 * limit on the whole seed (docs/decisions.md D25). Every step stores its step count, and the
 * simulated time when it advances; every new engine bumps a generation, so a new timeline's step 1 differs from the last
 * one's. The cells live in a SharedArrayBuffer the host hands over (`publishProgressInto`); until
 * then they are private memory nobody reads.
 */

/** Bytes of a progress buffer: two Int32 cells (steps, generation), then one Float64 (simulated µs). */
export const PROGRESS_BUFFER_BYTES = 16;

/** The views over one progress buffer: the engine writes them, a watchdog reads them. */
export interface ProgressCells {
  /** [0]: steps of the current engine (Atomics), [1]: engines created (Atomics). */
  readonly counters: Int32Array;
  /** [0]: simulated time of the last step started, µs (informative: read for the hang message). */
  readonly timeUs: Float64Array;
}

/** What a watchdog reads: equal snapshots mean no step started in between. */
export interface ProgressSnapshot {
  readonly steps: number;
  readonly generation: number;
  readonly timeUs: number;
}

export function progressCellsOf(buffer: SharedArrayBuffer | ArrayBuffer): ProgressCells {
  return { counters: new Int32Array(buffer, 0, 2), timeUs: new Float64Array(buffer, 8, 1) };
}

export function newProgressBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(PROGRESS_BUFFER_BYTES);
}

let cells: ProgressCells = progressCellsOf(new ArrayBuffer(PROGRESS_BUFFER_BYTES));

/** From now on engines created in this thread publish their progress into `buffer`. */
export function publishProgressInto(buffer: SharedArrayBuffer): void {
  cells = progressCellsOf(buffer);
}

/** The cells engines of this thread write (an engine takes them once, when created). */
export function currentProgressCells(): ProgressCells {
  return cells;
}

export function readProgress(cells: ProgressCells): ProgressSnapshot {
  return {
    steps: Atomics.load(cells.counters, 0),
    generation: Atomics.load(cells.counters, 1),
    timeUs: cells.timeUs[0]!,
  };
}

/** Clears the cells before a task starts (no engine of the worker runs then). */
export function resetProgress(cells: ProgressCells): void {
  Atomics.store(cells.counters, 0, 0);
  Atomics.store(cells.counters, 1, 0);
  cells.timeUs[0] = 0;
}
