import type { DocumentSearchResult } from '@fleet/a2a';
import type { Retrieval } from './create-retriever';
import { chunkBody } from './retrieved-chunk';

/**
 * A retrieval as the search route answers it (`documentSearchResultSchema`): the chunks best first,
 * each passage without the chunker's context prefix, and the notes a caller should read (full-text
 * search only, filters dropped) as warnings.
 *
 * @example
 * res.json(toDocumentSearchResult(await retriever.retrieve({ tenant, question: query, topK: limit })));
 */
export function toDocumentSearchResult(retrieval: Retrieval): DocumentSearchResult {
  const warnings = [retrieval.notice, retrieval.filters.note].filter(
    (note): note is string => note !== undefined,
  );
  return {
    query: retrieval.query,
    hits: retrieval.chunks.map((chunk) => ({
      documentId: chunk.documentId,
      filename: chunk.filename,
      chunkId: chunk.chunkId,
      docType: chunk.docType,
      section: chunk.section,
      ...(chunk.page === undefined ? {} : { page: chunk.page }),
      text: chunkBody(chunk),
      score: chunk.score,
      ...(chunk.rerankScore === undefined ? {} : { rerankScore: chunk.rerankScore }),
    })),
    confidence: retrieval.confidence,
    searchMode: retrieval.searchMode,
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}
