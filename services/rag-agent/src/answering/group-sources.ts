import { chunkBody, type RetrievedChunk } from '../retrieval';
import type { AnswerChunk, AnswerSource } from './answer-schemas';
import { shorten } from '../text';

/** The sources of a set of chunks, and the chunks of each source. */
export interface GroupedSources {
  sources: AnswerSource[];
  /** `groups[n - 1]`: the chunks of source n, best first. */
  groups: RetrievedChunk[][];
  chunks: AnswerChunk[];
}

/** Characters of a source's snippet. */
const SNIPPET_LENGTH = 280;

/** The citation title of a chunk's source. */
export function sourceTitle(chunk: Pick<RetrievedChunk, 'filename' | 'section' | 'page'>): string {
  const page = chunk.page === undefined ? '' : `, p. ${chunk.page}`;
  return chunk.section === ''
    ? `${chunk.filename}${page}`
    : `${chunk.filename}${page} — ${chunk.section}`;
}

/**
 * Groups ranked chunks into sources, one per document section, numbered in the order of their best
 * chunk (the chunks come best first, so source 1 holds the best chunk). Each source's snippet is
 * its best chunk's text, shortened.
 *
 * @example
 * const { sources, chunks } = groupSources(retrieval.chunks);
 * // sources[0].title: 'employee-handbook.md — Leave > Parental leave'
 */
export function groupSources(ranked: readonly RetrievedChunk[]): GroupedSources {
  const sources: AnswerSource[] = [];
  const groups: RetrievedChunk[][] = [];
  const numbers = new Map<string, number>();
  const chunks: AnswerChunk[] = [];
  for (const chunk of ranked) {
    const key = `${chunk.documentId}\u0000${chunk.section}`;
    let number = numbers.get(key);
    if (number === undefined) {
      sources.push({
        title: sourceTitle(chunk),
        snippet: shorten(chunkBody(chunk), SNIPPET_LENGTH),
        documentId: chunk.documentId,
        filename: chunk.filename,
        ...(chunk.page === undefined ? {} : { page: chunk.page }),
        section: chunk.section,
      });
      groups.push([]);
      number = sources.length;
      numbers.set(key, number);
    }
    groups[number - 1]?.push(chunk);
    chunks.push({
      chunkId: chunk.chunkId,
      documentId: chunk.documentId,
      filename: chunk.filename,
      docType: chunk.docType,
      section: chunk.section,
      ...(chunk.page === undefined ? {} : { page: chunk.page }),
      text: chunk.text,
      score: chunk.score,
      ...(chunk.rerankScore === undefined ? {} : { rerankScore: chunk.rerankScore }),
      source: number,
    });
  }
  return { sources, groups, chunks };
}

// `[2]`, and grouped forms such as `[1, 3]`.
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
const MARKER_WITH_SPACE = /([ \t]*)\[(\d+(?:\s*,\s*\d+)*)\]/g;

/**
 * Keeps only the sources the text cites, renumbered 1..m in their original order, and rewrites the
 * text's markers to match. Markers outside 1..sources.length are removed (they point at nothing);
 * chunks of uncited sources lose their `source` number.
 *
 * @example
 * keepCitedSources({ text: 'A [3].', sources, chunks }).text; // 'A [1].'
 */
export function keepCitedSources({
  text,
  sources,
  chunks,
}: {
  text: string;
  sources: readonly AnswerSource[];
  chunks: readonly AnswerChunk[];
}): { text: string; sources: AnswerSource[]; chunks: AnswerChunk[] } {
  const cited = new Set<number>();
  for (const match of text.matchAll(MARKER)) {
    for (const item of (match[1] ?? '').split(',')) {
      const number = Number(item.trim());
      if (number >= 1 && number <= sources.length) cited.add(number);
    }
  }
  const renumber = new Map<number, number>();
  [...cited]
    .sort((left, right) => left - right)
    .forEach((old, index) => renumber.set(old, index + 1));
  const rewritten = text.replace(MARKER_WITH_SPACE, (_marker, space: string, list: string) => {
    const markers = list
      .split(',')
      .map((item) => renumber.get(Number(item.trim())))
      .filter((number): number is number => number !== undefined)
      .map((number) => `[${number}]`)
      .join('');
    return markers === '' ? '' : `${space}${markers}`;
  });
  return {
    text: rewritten,
    sources: sources.filter((_source, index) => cited.has(index + 1)),
    chunks: chunks.map((chunk) => {
      const { source, ...rest } = chunk;
      const number = source === undefined ? undefined : renumber.get(source);
      return number === undefined ? rest : { ...rest, source: number };
    }),
  };
}
