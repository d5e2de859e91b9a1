import type { Migration } from './migration';

/**
 * HNSW build parameters of the embedding index. pgvector's defaults (m 16, ef_construction 64, the
 * first migration's) reached recall@10 0.93 at ef_search 200 on the benchmark corpus; these reach
 * the 0.95 goal at ef_search 120 (`pnpm bench rag`, docs/benchmarks.md).
 */
export const HNSW_INDEX_OPTIONS = { m: 32, efConstruction: 128 } as const;

/** Rebuilds the embedding index with {@link HNSW_INDEX_OPTIONS} (a denser graph, better recall). */
export const denserHnswIndex: Migration = {
  version: 2,
  name: 'denser-hnsw-index',
  sql: () => `
DROP INDEX IF EXISTS chunks_embedding_hnsw_idx;
CREATE INDEX chunks_embedding_hnsw_idx ON chunks
  USING hnsw (embedding vector_cosine_ops)
  WITH (m = ${HNSW_INDEX_OPTIONS.m}, ef_construction = ${HNSW_INDEX_OPTIONS.efConstruction});
`,
};
