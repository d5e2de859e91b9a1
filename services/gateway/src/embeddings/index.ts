/** The embeddings endpoint: a passthrough to the upstream. */
export { createEmbeddingsHandler } from './embeddings-route';
export type { EmbeddingsOptions } from './embeddings-route';
export { embeddingsRequestSchema } from './embeddings-request';
export type { EmbeddingsRequest } from './embeddings-request';
export { traceEmbeddings } from './trace-embeddings';
export type { TraceEmbeddingsOptions } from './trace-embeddings';
