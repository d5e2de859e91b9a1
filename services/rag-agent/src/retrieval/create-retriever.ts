import type OpenAI from 'openai';
import type { Embedder } from '@fleet/llm';
import {
  setRetrievalDocuments,
  setSpanOutput,
  SpanKind,
  withSpan,
  type Span,
  type WithSpanOptions,
} from '@fleet/telemetry';
import { documentWording, removePhrases } from '../text';
import { retrievalConfidence } from './confidence';
import { describeFilters, extractFilters, hasFilters, type QueryFilters } from './extract-filters';
import { keywordQuery } from './keyword-query';
import { rerankChunks } from './rerank-chunks';
import type { RetrievedChunk } from './retrieved-chunk';

/** What the retriever needs from the document store (`DocumentStore` from `../store`). */
export interface RetrievalStore {
  listDocuments(tenant: string): Promise<readonly { filename: string }[]>;
  search(input: {
    tenant: string;
    text: string;
    /** Absent with `mode: 'text'` (degraded mode: full-text search only). */
    embedding?: number[] | undefined;
    mode?: 'hybrid' | 'text';
    filters?: QueryFilters;
    limit?: number;
    efSearch?: number;
  }): Promise<readonly RetrievedChunk[]>;
}

/** The LLM the re-ranker uses. */
export interface RetrievalLlm {
  client: OpenAI;
  model: string;
}

/** Logging the retriever needs. */
export interface RetrievalLogger {
  warn(object: object, message?: string): void;
}

/** Options for {@link createRetriever}. */
export interface CreateRetrieverOptions {
  store: RetrievalStore;
  embedder: Embedder;
  /**
   * Why vector search is off right now (degraded mode, `EmbeddingGate`): then only full text is
   * searched and the retrieval's `notice` says so. Undefined while the embedder works.
   * @default vector search always on
   */
  degraded?: (() => string | undefined) | undefined;
  /** Absent offline: no re-ranking. */
  llm?: RetrievalLlm | undefined;
  /** Re-rank the candidates with the LLM (only with `llm`). @default true */
  rerank?: boolean;
  /** Chunks kept for the answer. @default 8 */
  topK?: number;
  /** Candidates fetched from the hybrid search (and re-ranked). @default 20 */
  candidates?: number;
  /** HNSW `ef_search` of the vector arm. @default the store's (120) */
  efSearch?: number | undefined;
  logger?: RetrievalLogger | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/** Which filters a search used, and why. */
export interface FilterReport {
  /** The filters the question asked for (empty when none). */
  requested: QueryFilters;
  /** The phrases of the question that became filters. */
  mentions: string[];
  /** True when the search ran with `requested`; false when there were none or they were dropped. */
  applied: boolean;
  /** Set when the filters left nothing and the search ran without them, saying so. */
  note?: string;
}

/** The chunks found for a question. */
export interface Retrieval {
  /** The text searched for. */
  query: string;
  /** The best chunks (at most `topK`), best first. */
  chunks: RetrievedChunk[];
  filters: FilterReport;
  /** How many candidates the hybrid search returned. */
  candidates: number;
  /** True when the LLM re-ranked the candidates. */
  reranked: boolean;
  /** Why re-ranking was skipped after an attempt (the fused order was kept). */
  rerankError?: string;
  /** 0..1, see `retrievalConfidence`. */
  confidence: number;
  /** How many documents the tenant has. */
  documents: number;
  /** `text` when only full text was searched (degraded mode, or the question's embedding failed). */
  searchMode: 'hybrid' | 'text';
  /** Set with `searchMode: 'text'`: the line that tells the user why. */
  notice?: string;
}

/**
 * What an answer or a search result opens with: the search notice (full-text search only), then
 * the filter note, each followed by `separator`; empty when there is neither.
 *
 * @example
 * const text = `${leadingNotes(retrieval, '\n')}${answer}`;
 */
export function leadingNotes(
  retrieval: Pick<Retrieval, 'notice' | 'filters'>,
  separator: string,
): string {
  return [retrieval.notice, retrieval.filters.note]
    .filter((note): note is string => note !== undefined)
    .map((note) => `${note}${separator}`)
    .join('');
}

/** What the user reads when only full text was searched. */
function textOnlyNotice(reason: string): string {
  return `Only full-text search was used (${reason}), so passages that say it in other words may be missed.`;
}

/** Finds the chunks that answer a question, for one tenant. */
export interface Retriever {
  retrieve(input: {
    tenant: string;
    question: string;
    signal?: AbortSignal | undefined;
    /** Chunks kept for this call, instead of the retriever's `topK` (a search's `limit`). */
    topK?: number | undefined;
  }): Promise<Retrieval>;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The question's embedding, or why the search runs on full text only. */
async function embedQuestion({
  embedder,
  degraded,
  question,
  signal,
  logger,
}: {
  embedder: Embedder;
  degraded: (() => string | undefined) | undefined;
  question: string;
  signal: AbortSignal | undefined;
  logger: RetrievalLogger | undefined;
}): Promise<{ embedding: number[] } | { notice: string }> {
  const reason = degraded?.();
  if (reason !== undefined) return { notice: textOnlyNotice(reason) };
  try {
    const [embedding] = await embedder.embed([question], signal ? { signal } : {});
    if (embedding === undefined) throw new Error('The embedder returned no vector.');
    return { embedding };
  } catch (error) {
    if (signal?.aborted) throw error;
    // One failed call should cost the question its vector arm, not its answer.
    logger?.warn({ err: error }, 'embedding the question failed; searching full text only');
    return {
      notice: textOnlyNotice(`the embedding model failed: ${errorMessage(error)}`),
    };
  }
}

/** What {@link searchCandidates} needs: the store, the question's vector and its filters. */
interface CandidateSearch {
  store: CreateRetrieverOptions['store'];
  embedder: CreateRetrieverOptions['embedder'];
  degraded: CreateRetrieverOptions['degraded'];
  logger: RetrievalLogger | undefined;
  tuning: { efSearch?: number };
  tenant: string;
  question: string;
  signal: AbortSignal | undefined;
  extracted: ReturnType<typeof extractFilters>;
  filters: FilterReport;
  limit: number;
}

/**
 * The hybrid search for a question's candidates: with its filters first, then — when they leave
 * nothing — over every document (`filters` says which). Degraded, or when embedding the question
 * fails, only full text is searched and `notice` says why.
 */
async function searchCandidates(
  search: CandidateSearch,
): Promise<{ found: readonly RetrievedChunk[]; notice: string | undefined }> {
  const { store, tenant, question, extracted, filters, limit } = search;
  const vector = await embedQuestion(search);
  const arms =
    'embedding' in vector
      ? { embedding: vector.embedding, ...search.tuning }
      : { mode: 'text' as const };
  const notice = 'notice' in vector ? vector.notice : undefined;
  // The documents' wording for what the question asks ("expense claims" for "expense
  // reports") joins the full-text arm, so a question in other words still meets them.
  const asked = removePhrases(question, extracted.mentions);
  const text = keywordQuery([asked, ...documentWording(asked)].join(' '));
  let found: readonly RetrievedChunk[] = [];
  if (hasFilters(extracted.filters)) {
    found = await store.search({ tenant, text, filters: extracted.filters, limit, ...arms });
    filters.applied = found.length > 0;
    if (found.length === 0) {
      filters.note = `No document matched the filters (${describeFilters(extracted.filters)}), so every document was searched.`;
    }
  }
  if (found.length === 0) {
    found = await store.search({ tenant, text, limit, ...arms });
  }
  return { found, notice };
}

/** The best `topK` of the candidates: re-ranked by the model when there is one, else in fused order. */
async function bestChunks({
  reranker,
  question,
  found,
  topK,
  signal,
  tracer,
  logger,
}: {
  reranker: CreateRetrieverOptions['llm'];
  question: string;
  found: readonly RetrievedChunk[];
  topK: number;
  signal: AbortSignal | undefined;
  tracer: CreateRetrieverOptions['tracer'];
  logger: RetrievalLogger | undefined;
}): Promise<{ chunks: RetrievedChunk[]; reranked: boolean; rerankError?: string }> {
  const chunks = found.slice(0, topK).map((chunk) => ({ ...chunk }));
  if (!reranker || found.length <= 1) return { chunks, reranked: false };
  try {
    const reranked = await rerankChunks({
      client: reranker.client,
      model: reranker.model,
      question,
      chunks: found,
      topK,
      signal,
      tracer,
    });
    return { chunks: reranked, reranked: true };
  } catch (error) {
    if (signal?.aborted) throw error;
    logger?.warn({ err: error }, 're-ranking failed; keeping the hybrid search order');
    return { chunks, reranked: false, rerankError: errorMessage(error) };
  }
}

/** The RETRIEVER span's documents and output for a finished retrieval. */
function recordRetrieval(span: Span, retrieval: Retrieval): void {
  const { chunks } = retrieval;
  setRetrievalDocuments(
    span,
    chunks.map((chunk) => ({
      id: chunk.chunkId,
      content: chunk.text,
      score: chunk.rerankScore ?? chunk.score,
      metadata: {
        documentId: chunk.documentId,
        filename: chunk.filename,
        section: chunk.section,
        ...(chunk.page === undefined ? {} : { page: chunk.page }),
      },
    })),
  );
  setSpanOutput(span, {
    chunks: chunks.length,
    candidates: retrieval.candidates,
    reranked: retrieval.reranked,
    confidence: retrieval.confidence,
    filters: retrieval.filters,
    searchMode: retrieval.searchMode,
  });
}

/**
 * The query half of the pipeline (reference: "RAG Query Pipeline"), in a RETRIEVER span:
 *
 * 1. filters from the question (`extractFilters`: document types, the tenant's filenames, dates);
 * 2. the question embedded (the embedder's EMBEDDING span) and a hybrid search — vector and
 *    full-text (the question's content words joined with `or`, `keywordQuery`) fused with RRF in
 *    the store — for `candidates` chunks with the filters; when the
 *    filters leave nothing, again without them, and the report says so. In degraded mode
 *    (`degraded` gives a reason), or when embedding the question fails, only full text is
 *    searched and `notice` says so;
 * 3. with an LLM and `rerank`, the candidates re-ranked (`rerankChunks`) to the best `topK`; a
 *    failed re-rank keeps the fused order (logged, `rerankError`);
 * 4. the confidence (`retrievalConfidence`).
 *
 * The span records the chunks as `retrieval.documents`.
 *
 * @example
 * const retriever = createRetriever({ store, embedder, llm: { client, model }, topK: 8 });
 * const { chunks, confidence } = await retriever.retrieve({ tenant, question });
 */
export function createRetriever({
  store,
  embedder,
  degraded,
  llm,
  rerank = true,
  topK: defaultTopK = 8,
  candidates: defaultCandidates = 20,
  efSearch,
  logger,
  tracer,
}: CreateRetrieverOptions): Retriever {
  const tuning = efSearch === undefined ? {} : { efSearch };
  const reranker = rerank ? llm : undefined;
  return {
    async retrieve({ tenant, question, signal, topK = defaultTopK }) {
      // A call that keeps more chunks than the retriever's candidates fetches as many candidates.
      const candidates = Math.max(defaultCandidates, topK);
      return withSpan(
        { name: 'rag.retrieve', kind: SpanKind.RETRIEVER, input: question, tracer },
        async (span) => {
          const documents = await store.listDocuments(tenant);
          const extracted = extractFilters({
            text: question,
            filenames: documents.map((document) => document.filename),
          });
          const filters: FilterReport = {
            requested: extracted.filters,
            mentions: extracted.mentions,
            applied: false,
          };
          const { found, notice } =
            documents.length > 0
              ? await searchCandidates({
                  store,
                  embedder,
                  degraded,
                  logger,
                  tuning,
                  tenant,
                  question,
                  signal,
                  extracted,
                  filters,
                  limit: reranker ? candidates : Math.max(topK, candidates),
                })
              : { found: [], notice: undefined };
          const best = await bestChunks({
            reranker,
            question,
            found,
            topK,
            signal,
            tracer,
            logger,
          });
          const retrieval: Retrieval = {
            query: question,
            chunks: best.chunks,
            filters,
            candidates: found.length,
            reranked: best.reranked,
            ...(best.rerankError === undefined ? {} : { rerankError: best.rerankError }),
            confidence: retrievalConfidence(best.chunks),
            documents: documents.length,
            searchMode: notice === undefined ? 'hybrid' : 'text',
            ...(notice === undefined ? {} : { notice }),
          };
          recordRetrieval(span, retrieval);
          return retrieval;
        },
      );
    },
  };
}
