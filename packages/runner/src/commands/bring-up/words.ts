/** Names as one comma-separated list: `a, b, c`. */
export function listNames(names: readonly string[]): string {
  return names.join(', ');
}

/** A count with its word, plural unless the count is one: `1 service`, `3 services`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
