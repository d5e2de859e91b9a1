import { z } from 'zod';
import {
  documentSearchHitSchema,
  documentSearchRequestSchema,
  type DocumentSearchRequest,
} from '@fleet/a2a';
import { ServiceUnavailableError } from '@fleet/errors';
import type { DocumentsClient } from './documents-client';

/** The body of `POST /v1/documents/search` and the arguments of the MCP `search_documents` tool. */
export const searchDocumentsBodySchema = documentSearchRequestSchema;

/** The answer to a document search (`POST /v1/documents/search`, MCP `search_documents`). */
export const documentSearchViewSchema = z.object({
  object: z.literal('list'),
  /** The passages found, best first. */
  data: z.array(documentSearchHitSchema),
  /** The text searched for. */
  query: z.string(),
  /** 0..1: how well the passages match (docs/rag.md). */
  confidence: z.number(),
  /** `text` when only full text was searched (degraded mode). */
  searchMode: z.enum(['hybrid', 'text']),
  /** Why only full text was searched, or why the filters the query named were dropped. */
  warnings: z.array(z.string()).optional(),
});
export type DocumentSearchView = z.infer<typeof documentSearchViewSchema>;

/**
 * Searches one tenant's documents with the RAG agent's hybrid search (the `search` skill's: vector
 * and full text fused, filters read from the query, optional LLM re-ranking) and shapes the answer
 * as the public API shows it. The REST route and the MCP tool both call this.
 *
 * @throws ServiceUnavailableError (503) without a documents client (no FLEET_INTERNAL_TOKEN) or
 *   when the RAG agent is unreachable.
 *
 * @example
 * const view = await searchDocuments(documents, { tenant, query: 'refund policy', limit: 5 });
 */
export async function searchDocuments(
  documents: DocumentsClient | undefined,
  {
    tenant,
    query,
    limit,
    signal,
  }: DocumentSearchRequest & { tenant: string; signal?: AbortSignal | undefined },
): Promise<DocumentSearchView> {
  if (documents === undefined) {
    throw new ServiceUnavailableError(
      'Documents need FLEET_INTERNAL_TOKEN, the token fleet services share, to call the RAG agent; `pnpm fleet up` sets it.',
    );
  }
  const result = await documents.search({
    tenant,
    query,
    limit,
    ...(signal === undefined ? {} : { signal }),
  });
  return {
    object: 'list',
    data: result.hits.slice(0, limit),
    query: result.query,
    confidence: result.confidence,
    searchMode: result.searchMode,
    ...(result.warnings === undefined || result.warnings.length === 0
      ? {}
      : { warnings: result.warnings }),
  };
}
