/** Imported by the watched simulation: a change here reruns it too. */
export const TICKS = 5;
