/** How the RAG agent embeds: the start-up check of the embedding model and degraded mode (full-text search only). */
export { createEmbeddingGate, describeOutage } from './embedding-gate';
export type {
  CreateEmbeddingGateOptions,
  EmbeddingGate,
  EmbeddingGateLogger,
  EmbeddingOutage,
} from './embedding-gate';
export { EmbeddingsUnavailableError } from './embeddings-unavailable-error';
export { openEmbeddings, probeOutage } from './open-embeddings';
export type { OpenEmbeddingsOptions } from './open-embeddings';
export { probeEmbeddingModel } from './probe-embedding-model';
export type { ProbeEmbeddingModelOptions, ProbeOutcome } from './probe-embedding-model';
