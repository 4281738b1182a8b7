/** The bounds of the assertion table: every table is finite and reports what it had to drop. */

/** Distinct assertion messages tracked per campaign (spec doc 000: 2048). Later sites are dropped and counted. */
export const MAX_ASSERTION_SITES = 2048;
/** `assertSometimesEach` buckets tracked per campaign, across all sites (spec: 256). */
export const MAX_EACH_BUCKETS = 256;
/** Identity values retained for display per bucket; further values still change the bucket hash. */
export const MAX_EACH_KEYS = 6;
/** Quality values per `assertSometimesEach` call; a call with more is rejected as a misuse. */
export const MAX_EACH_QUALITY_KEYS = 4;
/** Quality values are clamped to 0 ..= this (higher is better). */
export const MAX_EACH_QUALITY_VALUE = 32767;
/** Discoveries kept per seed (a watermark that improves every step would otherwise grow without bound). */
export const MAX_SEED_DISCOVERIES = 4096;
/** Dropped messages remembered (per overflow kind) so the report can name what was lost. */
export const MAX_DROPPED_MESSAGES_KEPT = 8;
/** Distinct misuse reports (kind mismatch, too many quality keys) kept; more are only counted. */
export const MAX_MISUSE_ENTRIES = 256;
