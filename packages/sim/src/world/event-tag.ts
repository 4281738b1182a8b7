/**
 * The tag of every scheduled event, by kind. Tags are mixed into the trace hash, so two runs that
 * schedule the same times but different kinds of work hash differently.
 */

/** Event tags mixed into the trace hash, one per event kind. */
export const EventTag = {
  timer: 1,
  taskStart: 2,
  yield: 3,
  network: 4,
  lifecycle: 5,
  runner: 6,
  storage: 8,
  channel: 9,
  /** A timer of the virtual Node runtime (setTimeout, setInterval, setImmediate and friends). */
  runtimeTimer: 10,
} as const;
