/**
 * The product catalogue: the pricing service answers from it, and the workload's reference model
 * computes every order's expected total from it, so a total the order service got wrong shows.
 */

export const CATALOGUE: Readonly<Record<string, number>> = Object.freeze({
  "sku-apple": 120,
  "sku-bread": 349,
  "sku-cheese": 785,
  "sku-dates": 1_199,
  "sku-eggs": 299,
});

export const SKUS: readonly string[] = Object.keys(CATALOGUE);
