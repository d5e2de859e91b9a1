/** Options for {@link recallAtK}. */
export interface RecallAtKOptions {
  /** Distances of the exact top results, nearest first. */
  exact: readonly number[];
  /** Distances of the approximate search's results. */
  found: readonly number[];
  k: number;
  /** Distances closer than this count as ties. @default 1e-6 */
  tolerance?: number;
}

/**
 * Recall@k of an approximate nearest-neighbour search: the share of its top k that are as close as
 * the exact k-th neighbour. Comparing distances rather than ids keeps ties (equal distances, in any
 * order) from counting as misses. 1 when the exact search found nothing.
 *
 * @example
 * recallAtK({ exact: [0.1, 0.2, 0.3], found: [0.1, 0.3, 0.5], k: 3 }); // 2/3
 */
export function recallAtK({ exact, found, k, tolerance = 1e-6 }: RecallAtKOptions): number {
  const expected = Math.min(k, exact.length);
  if (expected === 0) return 1;
  const threshold = (exact[expected - 1] ?? Number.POSITIVE_INFINITY) + tolerance;
  const hits = found.slice(0, k).filter((distance) => distance <= threshold).length;
  return Math.min(hits, expected) / expected;
}
