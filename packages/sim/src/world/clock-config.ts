/**
 * Per-process clock faults: what each simulated process's clocks may do relative to the
 * simulator's true time. Every process has two clocks, read through its `ctx.time`:
 *
 * - the wall clock (`now()`): true time plus a per-process offset, running at a per-process
 *   rate error, and stepped now and then (an NTP-like jump forwards or backwards);
 * - the monotonic clock (`timer()`): true time since an arbitrary per-process origin at the same
 *   rate error; it never steps and never goes back.
 *
 * Sleeps and timeouts are measured on the monotonic clock: a process whose clock runs fast
 * wakes early in true time. The simulator's true time stays what invariants receive
 * (`observe(query, simTimeMs)`) and what trace events are stamped with.
 */

const MS = 1000;

export interface ClockConfig {
  /** Each process's wall clock starts off true time by a uniform draw in ±`offsetMaxUs`. */
  readonly offsetMaxUs: number;
  /**
   * Each process's clocks run at `1 + e` times true time, `e` uniform in ±`rateErrorMax`
   * (a fraction: 0.01 = 1 %). At most `CLOCK_RATE_ERROR_LIMIT`.
   */
  readonly rateErrorMax: number;
  /** Mean true time between two steps of one process's wall clock (exponential); 0 = no steps. */
  readonly stepMeanIntervalUs: number;
  /** A step moves the wall clock by a uniform amount in ±`stepMaxUs`. */
  readonly stepMaxUs: number;
}

/**
 * The rate error no configuration exceeds: code may rely on its clock advancing between 0.9 and
 * 1.1 times as fast as true time (a lease margin sized for this bound is safe in the simulator).
 */
export const CLOCK_RATE_ERROR_LIMIT = 0.1;

/** Every clock exact: the wall clock and the monotonic clock both read true time. */
export const EXACT_CLOCK_CONFIG: ClockConfig = Object.freeze({
  offsetMaxUs: 0,
  rateErrorMax: 0,
  stepMeanIntervalUs: 0,
  stepMaxUs: 0,
});

/**
 * The clocks of a simulation without clock chaos: every process's wall clock starts up to
 * ±100 ms off true time (the forward lead the baseline network used to give `timer()` alone) and
 * both its clocks run up to ±0.1 % fast or slow, without steps. A clock a short run can tell apart
 * from true time, so code that trusts its own clock for a lease or across processes can fail
 * without the author enabling clock chaos; `.clockFaults("none")` gives exact clocks.
 */
export const BASELINE_CLOCK_CONFIG: ClockConfig = Object.freeze({
  offsetMaxUs: 100 * MS,
  rateErrorMax: 0.001,
  stepMeanIntervalUs: 0,
  stepMaxUs: 0,
});

/** A realistic fixed configuration for `clockFaults(...)` examples: ±200 ms, ±0.5 %, a step a minute. */
export const SAMPLE_CLOCK_CONFIG: ClockConfig = Object.freeze({
  offsetMaxUs: 200 * MS,
  rateErrorMax: 0.005,
  stepMeanIntervalUs: 60_000 * MS,
  stepMaxUs: 500 * MS,
});

/** Every mistake in `config`, as messages that say what to change. */
export function clockConfigErrors(config: ClockConfig): string[] {
  const errors: string[] = [];
  if (config === null || typeof config !== "object")
    return [
      "the clock configuration must be an object with offsetMaxUs, rateErrorMax, stepMeanIntervalUs and stepMaxUs",
    ];
  for (const key of ["offsetMaxUs", "stepMeanIntervalUs", "stepMaxUs"] as const) {
    const v = config[key];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
      errors.push(`${key} must be a non-negative integer of microseconds, got ${String(v)}`);
  }
  const rate = config.rateErrorMax;
  if (typeof rate !== "number" || !(rate >= 0 && rate <= CLOCK_RATE_ERROR_LIMIT)) {
    errors.push(
      `rateErrorMax must be a fraction between 0 and ${CLOCK_RATE_ERROR_LIMIT} (0.01 = 1 %), got ${String(rate)}`,
    );
  }
  return errors;
}

/** Trace `sim_fault` kinds of clock faults. */
export const CLOCK_FAULT_KINDS = Object.freeze({
  /** `{ ip, offsetMs, rateErrorPpm }`: a process's clocks first read off true time. */
  clockSkew: "clock_skew",
  /** `{ ip, stepMs }`: a process's wall clock jumped by `stepMs` (negative = backwards). */
  clockStep: "clock_step",
});
