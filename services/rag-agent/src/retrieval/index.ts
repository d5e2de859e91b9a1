/** The query pipeline: filters from the question, hybrid search, LLM re-ranking and confidence. */
export { RRF_K, retrievalConfidence } from './confidence';
export { createRetriever, leadingNotes } from './create-retriever';
export type {
  CreateRetrieverOptions,
  FilterReport,
  Retrieval,
  RetrievalLlm,
  RetrievalLogger,
  RetrievalStore,
  Retriever,
} from './create-retriever';
export { describeFilters, extractFilters, hasFilters } from './extract-filters';
export type {
  DocumentType,
  ExtractedFilters,
  ExtractFiltersOptions,
  QueryFilters,
} from './extract-filters';
export { keywordQuery } from './keyword-query';
export { rerankChunks, rerankScoresSchema } from './rerank-chunks';
export type { RerankChunksOptions, RerankScores } from './rerank-chunks';
export { chunkBody } from './retrieved-chunk';
export { toDocumentSearchResult } from './search-result';
export type { RetrievedChunk } from './retrieved-chunk';
