/** The value below which `fraction` of the sorted samples fall (nearest rank). */
export function percentile(samples: readonly number[], fraction: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** The middle sample. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Formats milliseconds with enough precision for sub-millisecond overheads. */
export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Math.abs(value) < 10 ? `${value.toFixed(3)} ms` : `${value.toFixed(1)} ms`;
}
