/**
 * A byte count for people: `512 B`, `1.5 KB`, `25 MB` (1024-based, one decimal when needed).
 *
 * @example
 * formatBytes(26_214_400); // '25 MB'
 */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const rounded = unit === 0 ? String(value) : String(Math.round(value * 10) / 10);
  return `${rounded} ${units[unit] ?? 'B'}`;
}
