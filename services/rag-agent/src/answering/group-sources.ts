import { renumberCitations } from '@fleet/llm';
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

/**
 * Keeps only the sources the text cites, renumbered 1..m in their original order, and rewrites the
 * text's markers to match (`renumberCitations`). Markers outside 1..sources.length are removed (they
 * point at nothing);
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
  const { text: rewritten, cited } = renumberCitations({
    text,
    sourceCount: sources.length,
    order: 'source',
    trimRemoved: true,
  });
  const renumber = new Map(cited.map((old, index) => [old, index + 1]));
  return {
    text: rewritten,
    sources: sources.filter((_source, index) => renumber.has(index + 1)),
    chunks: chunks.map((chunk) => {
      const { source, ...rest } = chunk;
      const number = source === undefined ? undefined : renumber.get(source);
      return number === undefined ? rest : { ...rest, source: number };
    }),
  };
}

/**
 * Keeps only the sources a streamed answer cites, in the order it first cites them (`cited`, as
 * `createCitationRenumberer` reports it: `cited[k - 1]` is now `[k]`), and renumbers the chunks'
 * `source` to match; chunks of uncited sources lose it. The text was renumbered while it streamed.
 *
 * @example
 * keepSourcesCited({ cited: [3, 1], sources, chunks }).sources; // [sources[2], sources[0]]
 */
export function keepSourcesCited({
  cited,
  sources,
  chunks,
}: {
  cited: readonly number[];
  sources: readonly AnswerSource[];
  chunks: readonly AnswerChunk[];
}): { sources: AnswerSource[]; chunks: AnswerChunk[] } {
  const renumber = new Map(cited.map((old, index) => [old, index + 1]));
  return {
    sources: cited.flatMap((number) => sources[number - 1] ?? []),
    chunks: chunks.map((chunk) => {
      const { source, ...rest } = chunk;
      const number = source === undefined ? undefined : renumber.get(source);
      return number === undefined ? rest : { ...rest, source: number };
    }),
  };
}
