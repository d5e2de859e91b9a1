import { z } from 'zod';
import { documentInfoSchema } from './conventions';

/**
 * The RAG agent's search route: plain HTTP beside `/a2a`, behind the internal token, so a search of
 * a tenant's documents (the gateway's `POST /v1/documents/search` and its MCP tool) runs the same
 * hybrid retrieval as the agent's `search` skill without leaving an A2A task in the agent's task
 * store.
 */

/** Longest query a search takes, in characters. */
export const MAX_DOCUMENT_SEARCH_QUERY = 2000;

/** Most passages one search returns. */
export const MAX_DOCUMENT_SEARCH_LIMIT = 50;

/** Passages a search returns when it names no limit. */
export const DEFAULT_DOCUMENT_SEARCH_LIMIT = 8;

/** What a search asks for: the text to search for and how many passages. */
export const documentSearchRequestSchema = z.strictObject({
  query: z
    .string({ error: 'query must be a string' })
    .trim()
    .min(1, 'query must not be empty')
    .max(
      MAX_DOCUMENT_SEARCH_QUERY,
      `query must be at most ${MAX_DOCUMENT_SEARCH_QUERY} characters`,
    ),
  limit: z
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, `limit must be between 1 and ${MAX_DOCUMENT_SEARCH_LIMIT}`)
    .max(MAX_DOCUMENT_SEARCH_LIMIT, `limit must be between 1 and ${MAX_DOCUMENT_SEARCH_LIMIT}`)
    .default(DEFAULT_DOCUMENT_SEARCH_LIMIT),
});
export type DocumentSearchRequest = z.infer<typeof documentSearchRequestSchema>;

/** One passage a search found: a chunk of one of the tenant's documents, best first. */
export const documentSearchHitSchema = z.object({
  documentId: z.string(),
  filename: z.string(),
  chunkId: z.string(),
  docType: documentInfoSchema.shape.docType,
  /** The heading trail joined with ` > `; `''` for the document's preamble. */
  section: z.string(),
  /** The page the passage is on (PDFs). */
  page: z.number().int().optional(),
  /** The passage's text. */
  text: z.string(),
  /** Reciprocal rank fusion score of the hybrid search (k = 60). */
  score: z.number(),
  /** The LLM re-ranker's 0–10 score, when it ran. */
  rerankScore: z.number().optional(),
});
export type DocumentSearchHit = z.infer<typeof documentSearchHitSchema>;

/** The RAG agent's answer to a search. */
export const documentSearchResultSchema = z.object({
  /** The text searched for. */
  query: z.string(),
  hits: z.array(documentSearchHitSchema),
  /** 0..1: how well the passages match (docs/rag.md). */
  confidence: z.number().min(0).max(1),
  /** `text` when only full text was searched (degraded mode, or embedding the query failed). */
  searchMode: z.enum(['hybrid', 'text']),
  /** What the caller should know: why only full text was searched, filters dropped. */
  warnings: z.array(z.string()).optional(),
});
export type DocumentSearchResult = z.infer<typeof documentSearchResultSchema>;

/**
 * The path of the RAG agent's search route (`POST`, the {@link DocumentSearchRequest} as JSON),
 * for one tenant.
 *
 * @example
 * documentSearchRoute('acme'); // '/internal/search?tenant=acme'
 */
export function documentSearchRoute(tenant: string): string {
  return `/internal/search?tenant=${encodeURIComponent(tenant)}`;
}
