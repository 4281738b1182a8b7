/** The system under test of the coverage fixtures: a branch few seeds take, and many small handlers. */

/** Seeds that draw 0 take the planted branch. */
export function route(draw: number): string {
  if (draw === 0) {
    return "planted"; // PLANTED BRANCH
  }
  return "common";
}

/** One handler per kind: a campaign reaches a new one now and then, for many seeds. */
export function handle(kind: number): number {
  switch (kind) {
    case 0:
      return 10;
    case 1:
      return 11;
    case 2:
      return 12;
    case 3:
      return 13;
    case 4:
      return 14;
    case 5:
      return 15;
    case 6:
      return 16;
    case 7:
      return 17;
    case 8:
      return 18;
    case 9:
      return 19;
    case 10:
      return 20;
    case 11:
      return 21;
    case 12:
      return 22;
    case 13:
      return 23;
    case 14:
      return 24;
    case 15:
      return 25;
    case 16:
      return 26;
    case 17:
      return 27;
    case 18:
      return 28;
    case 19:
      return 29;
    case 20:
      return 30;
    case 21:
      return 31;
    case 22:
      return 32;
    case 23:
      return 33;
    case 24:
      return 34;
    case 25:
      return 35;
    case 26:
      return 36;
    case 27:
      return 37;
    case 28:
      return 38;
    case 29:
      return 39;
    default:
      return -1;
  }
}
