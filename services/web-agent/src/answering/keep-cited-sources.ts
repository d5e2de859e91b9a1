import type { WebSource } from './web-source';

// `[2]`, and grouped forms such as `[1, 3]`.
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/**
 * Renumbers an answer's `[n]` markers so that only cited sources are listed, in the order they
 * are first cited; markers that point at no source are dropped.
 *
 * @example
 * keepCitedSources({ text: 'B [2]. A [1]. X [9].', sources: [a, b] });
 * // { text: 'B [1]. A [2]. X.', sources: [b, a] }
 */
export function keepCitedSources({
  text,
  sources,
}: {
  text: string;
  sources: readonly WebSource[];
}): { text: string; sources: WebSource[] } {
  const renumber = new Map<number, number>();
  const kept: WebSource[] = [];
  const rewritten = text.replace(MARKER, (_marker, list: string) => {
    const numbers = list
      .split(',')
      .map((item) => Number(item.trim()))
      .filter((n) => n >= 1 && n <= sources.length);
    const markers = numbers.map((n) => {
      let next = renumber.get(n);
      if (next === undefined) {
        kept.push(sources[n - 1] as WebSource);
        next = kept.length;
        renumber.set(n, next);
      }
      return `[${next}]`;
    });
    return markers.join('');
  });
  return {
    text: rewritten
      .replace(/ +([.,;:!?])/g, '$1')
      .replace(/ {2,}/g, ' ')
      .trim(),
    sources: kept,
  };
}
