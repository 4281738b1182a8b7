/**
 * Arithmetic that gives the same bits on every Node version. `Math.pow`, `Math.exp` and friends
 * are library functions V8 may implement differently from one release to the next (Node 24's
 * `Math.pow` differs in the last bit from Node 20's and 22's for about one input in ten); a value
 * that feeds a simulation decision must come from operations IEEE 754 rounds exactly: + - * /.
 */

/** `base ** exponent` for an integer exponent >= 0, by squaring: a fixed sequence of multiplications. */
export function powInt(base: number, exponent: number): number {
  if (!Number.isSafeInteger(exponent) || exponent < 0)
    throw new RangeError(`powInt: the exponent must be an integer >= 0, got ${exponent}`);
  let result = 1;
  let square = base;
  for (let e = exponent; e > 0; e = Math.floor(e / 2)) {
    if (e % 2 === 1) result *= square;
    square *= square;
  }
  return result;
}
