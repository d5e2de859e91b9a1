import { z } from 'zod';
import {
  a2aServerEnv,
  booleanSchema,
  byteSizeSchema,
  envVar,
  llmEnv,
  loadConfig,
  positiveIntSchema,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
} from '@fleet/config';
import type { IngestLimits } from './ingestion/limits';

/** The embedding model offline mode uses (hashed word unigrams and bigrams, no network). */
export const LOCAL_EMBEDDING_MODEL = 'local-hashed-v1';
/** The embedding model used with an upstream when EMBEDDING_MODEL is unset. */
export const DEFAULT_ONLINE_EMBEDDING_MODEL = 'text-embedding-3-small';
/** Vector size with an upstream when EMBEDDING_DIMENSIONS is unset (text-embedding-3-small's). */
export const DEFAULT_ONLINE_DIMENSIONS = 1536;
/** Vector size of the local hashed embedder when EMBEDDING_DIMENSIONS is unset. */
export const DEFAULT_OFFLINE_DIMENSIONS = 384;

/** Every variable the RAG agent reads (docs/architecture.md §7, §8, §11). */
export const configSpec = {
  ...a2aServerEnv({ prefix: 'RAG_AGENT', label: 'the RAG agent', defaultPort: 8083 }),
  databaseUrl: envVar({
    name: 'DATABASE_URL',
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
      .optional(),
    description:
      'PostgreSQL with the pgvector extension for documents and chunks. Unset: an embedded PostgreSQL (PGlite with pgvector) keeps its files in RAG_DATA_DIR.',
    defaultText: 'unset: embedded PostgreSQL',
    example: 'postgres://fleet:fleet@127.0.0.1:5432/fleet',
    secret: true,
  }),
  dataDir: envVar({
    name: 'RAG_DATA_DIR',
    schema: z.string().min(1).default('.fleet/rag-pglite'),
    description:
      "Where the embedded PostgreSQL keeps its files when DATABASE_URL is unset. A relative path is resolved against the RAG agent's working directory.",
  }),
  embeddingModel: envVar({
    name: 'EMBEDDING_MODEL',
    schema: z.string().min(1).optional(),
    description:
      'Embedding model for documents and questions. Setting another model (or EMBEDDING_DIMENSIONS) than an existing database was built with stops the boot until the documents are re-ingested into a fresh one; a database without documents takes the new settings. An upstream model is checked with one embedding at start: if it fails or returns vectors of another size, the agent starts degraded (full-text search only, no ingestion; docs/rag.md#degraded-mode) and says what to set.',
    defaultText: `the existing store's model; for a new store ${DEFAULT_ONLINE_EMBEDDING_MODEL} with an upstream, ${LOCAL_EMBEDDING_MODEL} (local hashed embeddings) offline`,
  }),
  embeddingDimensions: envVar({
    name: 'EMBEDDING_DIMENSIONS',
    schema: positiveIntSchema.max(16000, 'expected at most 16000').optional(),
    description:
      "Size of the embedding vectors, sent as `dimensions` to the upstream (the text-embedding-3 models shorten their vectors to it). Required for upstream models other than OpenAI's. When the upstream's vectors have another size, the RAG agent starts degraded and its log and `/readyz` name the size the model returned.",
    defaultText: `the model's own size with an upstream (${DEFAULT_ONLINE_DIMENSIONS} for ${DEFAULT_ONLINE_EMBEDDING_MODEL}); ${DEFAULT_OFFLINE_DIMENSIONS} offline`,
  }),
  rerank: envVar({
    name: 'RAG_RERANK',
    schema: booleanSchema.optional(),
    description:
      'Re-rank the top 20 hybrid-search candidates with the LLM before answering (one structured-output call per question). Ignored offline.',
    defaultText: 'true with an upstream; false offline',
  }),
  topK: envVar({
    name: 'RAG_TOP_K',
    schema: positiveIntSchema.max(50, 'expected at most 50').default(8),
    description: 'How many chunks an answer is built from (after re-ranking).',
  }),
  efSearch: envVar({
    name: 'RAG_HNSW_EF_SEARCH',
    schema: positiveIntSchema.max(1000, 'expected at most 1000').default(120),
    description:
      'HNSW ef_search of the vector search: higher finds more of the true nearest chunks, slower. 120 reaches recall@10 0.96 at 10k chunks; 100k chunks need about 800 with the local hashed embeddings (`pnpm bench rag`, docs/benchmarks.md). PostgreSQL scans exactly instead when that is cheaper.',
  }),
  maxUploadBytes: envVar({
    name: 'RAG_MAX_UPLOAD_BYTES',
    schema: byteSizeSchema.prefault('25mb'),
    description:
      'Largest file the RAG agent ingests (bytes, or 512kb, 25mb…); larger files fail with 413. The A2A body limit follows (base64 plus 1 MiB).',
  }),
  maxRunFileBytes: envVar({
    name: 'RAG_MAX_RUN_FILE_BYTES',
    schema: byteSizeSchema
      .pipe(
        z
          .number()
          .min(1, 'expected at least 1 byte')
          .max(256 * 1024 * 1024, 'expected at most 256mb'),
      )
      .prefault('16mb'),
    description:
      "Largest run file (a file a run's step made, or a request's attachment) the RAG agent keeps for the fleet (bytes, or 512kb, 16mb…); a larger one fails the `files` put with 413. The A2A body limit follows (base64 plus 1 MiB) when it is above RAG_MAX_UPLOAD_BYTES.",
  }),
  fileSweepIntervalSeconds: envVar({
    name: 'RAG_FILE_SWEEP_INTERVAL_SECONDS',
    schema: positiveIntSchema.max(86_400, 'expected at most 86400 (a day)').default(300),
    description:
      'How often the RAG agent deletes expired run files from its database. Reads never return an expired file in between.',
  }),
  maxRows: envVar({
    name: 'RAG_MAX_ROWS',
    schema: positiveIntSchema.default(5000),
    description:
      'Data rows indexed per CSV file or XLSX sheet. The rows past it are counted but not indexed: the document is stored in part, and the ingest result says so (`truncated: true`, `warnings`).',
  }),
  maxColumns: envVar({
    name: 'RAG_MAX_COLUMNS',
    schema: positiveIntSchema.default(256),
    description:
      'Columns indexed per CSV file or XLSX sheet; the columns past it are left out and the ingest result says so (`truncated: true`, `warnings`).',
  }),
  maxCells: envVar({
    name: 'RAG_MAX_CELLS',
    schema: positiveIntSchema.default(500_000),
    description:
      "Table cells read per document (CSV and XLSX, every sheet together; a short row counts as wide as its table's header). The rows past it are not read, before a spreadsheet library builds them: the document is stored in part and the ingest result says so (`truncated`, `warnings`).",
  }),
  maxPdfPages: envVar({
    name: 'RAG_MAX_PDF_PAGES',
    schema: positiveIntSchema.default(1000),
    description:
      'PDF pages read; later pages are not indexed and the ingest result says so (`truncated`, `warnings`).',
  }),
  maxTextChars: envVar({
    name: 'RAG_MAX_TEXT_CHARS',
    schema: positiveIntSchema.default(5_000_000),
    description:
      "Characters of text indexed per document (about 1.2 million tokens); the rest is not indexed and the ingest result says so (`truncated`, `warnings`). Spreadsheet cells count what they expand to (a shared string as often as cells reference it) before they are read, and a table's first row longer than this is cut, not refused.",
  }),
  maxChunks: envVar({
    name: 'RAG_MAX_CHUNKS',
    schema: positiveIntSchema.default(5000),
    description:
      'Searchable chunks (embedded, about 350 tokens each) stored per document; the rest of the document is not indexed and the ingest result says so (`truncated`, `warnings`).',
  }),
  maxUnpackedBytes: envVar({
    name: 'RAG_MAX_UNPACKED_BYTES',
    schema: byteSizeSchema.pipe(z.number().min(1, 'expected at least 1 byte')).prefault('100mb'),
    description:
      "What a DOCX or XLSX may unpack to in all, and a PDF's compressed streams may inflate to (bytes, or 512kb, 100mb…). Checked against the archive's directory before anything is unpacked and enforced while unpacking; a larger document is refused with 413.",
  }),
  maxEntryBytes: envVar({
    name: 'RAG_MAX_UNPACKED_ENTRY_BYTES',
    schema: byteSizeSchema.pipe(z.number().min(1, 'expected at least 1 byte')).prefault('50mb'),
    description:
      'What one entry of a DOCX or XLSX (or one compressed PDF stream) may unpack to; a larger one is refused with 413.',
  }),
  maxArchiveEntries: envVar({
    name: 'RAG_MAX_ARCHIVE_ENTRIES',
    schema: positiveIntSchema.default(2000),
    description: 'Entries a DOCX or XLSX may hold; more are refused with 413.',
  }),
  maxCompressionRatio: envVar({
    name: 'RAG_MAX_COMPRESSION_RATIO',
    schema: positiveIntSchema.default(200),
    description:
      'How much more an archive entry or compressed PDF stream may unpack to than it takes compressed, once it unpacks to more than 1 MiB (office XML compresses 5–20 to 1; zip bombs about 1000 to 1); more is refused with 413.',
  }),
  maxNestingDepth: envVar({
    name: 'RAG_MAX_NESTING_DEPTH',
    schema: positiveIntSchema.max(1000, 'expected at most 1000').default(100),
    description:
      'How deep elements (HTML, the XML of DOCX and XLSX) and Markdown lists, quotes and emphasis may nest; deeper documents are refused with 400 before a parser recurses into them.',
  }),
  parseWorkers: envVar({
    name: 'RAG_PARSE_WORKERS',
    schema: positiveIntSchema.max(64, 'expected at most 64').default(2),
    description:
      "Worker threads that read uploads (parse and chunk them) beside the agent's event loop, which keeps answering questions and `/readyz` meanwhile. Each reads one document at a time.",
  }),
  parseTimeoutMs: envVar({
    name: 'RAG_PARSE_TIMEOUT_MS',
    schema: positiveIntSchema.default(60_000),
    description:
      'How long reading one document (parse and chunk) may take; past it its worker thread is terminated and replaced, and the upload fails with 413 naming this variable.',
  }),
  parseMemoryMb: envVar({
    name: 'RAG_PARSE_MEMORY_MB',
    schema: positiveIntSchema.min(64, 'expected at least 64').default(1024),
    description:
      "Heap of each reading worker thread, in MiB (V8's old generation). A document that needs more ends only its worker (replaced), and the upload fails with 413 naming this variable. mammoth holds a DOCX's whole XML: a 45 MB `word/document.xml` (a 7 MB file) needs about 800 MiB.",
  }),
  parseQueueLength: envVar({
    name: 'RAG_PARSE_QUEUE_LENGTH',
    schema: positiveIntSchema.default(32),
    description:
      'Uploads waiting for a reading worker, every tenant together; one tenant may fill at most half. Past it an upload fails at once with 503 and `Retry-After` (an A2A ingest task FAILS with `SERVICE_UNAVAILABLE` and `{ retryable: true }`).',
  }),
  parseTenantConcurrency: envVar({
    name: 'RAG_PARSE_TENANT_CONCURRENCY',
    schema: positiveIntSchema.default(1),
    description:
      "Uploads of one tenant read at once; the tenant's others wait their turn, served round-robin with the other tenants', so one tenant's large uploads never hold up another's.",
  }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The RAG agent's typed configuration. */
export type RagAgentConfig = ConfigOf<typeof configSpec>;

/** The ingestion limits the configuration sets (RAG_MAX_ROWS … RAG_MAX_NESTING_DEPTH). */
export function ingestLimits(
  config: Pick<
    RagAgentConfig,
    | 'maxRows'
    | 'maxColumns'
    | 'maxCells'
    | 'maxPdfPages'
    | 'maxTextChars'
    | 'maxChunks'
    | 'maxUnpackedBytes'
    | 'maxEntryBytes'
    | 'maxArchiveEntries'
    | 'maxCompressionRatio'
    | 'maxNestingDepth'
  >,
): IngestLimits {
  return {
    maxRows: config.maxRows,
    maxColumns: config.maxColumns,
    maxCells: config.maxCells,
    maxPdfPages: config.maxPdfPages,
    maxTextChars: config.maxTextChars,
    maxChunks: config.maxChunks,
    maxUnpackedBytes: config.maxUnpackedBytes,
    maxEntryBytes: config.maxEntryBytes,
    maxArchiveEntries: config.maxArchiveEntries,
    maxCompressionRatio: config.maxCompressionRatio,
    maxNestingDepth: config.maxNestingDepth,
  };
}

/** The embedding settings in effect, once online/offline is known. */
export interface EmbeddingSettings {
  model: string;
  /**
   * The vector size; undefined for an upstream model when EMBEDDING_DIMENSIONS is unset (the
   * model's own size is used, known for OpenAI's models).
   */
  dimensions: number | undefined;
  /** True when the local hashed embedder is used. */
  local: boolean;
  /**
   * True when the store's own model was kept instead of the default (EMBEDDING_MODEL unset): e.g.
   * a store filled offline keeps its local embeddings once an upstream is configured.
   */
  keptStored: boolean;
}

/**
 * The embedding model and size in effect: EMBEDDING_MODEL / EMBEDDING_DIMENSIONS when set,
 * otherwise `text-embedding-3-small` (1536) with an upstream and `local-hashed-v1` (384) offline.
 * With EMBEDDING_MODEL unset, an existing store keeps the model it was built with.
 * `local-hashed-v1` may also be chosen with an upstream. Offline, another model is an error the
 * caller reports: there is nothing to call.
 *
 * @example
 * const embedding = embeddingSettings({ config, offline: upstream.offline });
 */
export function embeddingSettings({
  config,
  offline,
  stored,
}: {
  config: Partial<Pick<RagAgentConfig, 'embeddingModel' | 'embeddingDimensions'>>;
  offline: boolean;
  /** What the store was built with (`readStoredEmbedding`), if it exists already. */
  stored?: { model: string; dimensions: number } | undefined;
}): EmbeddingSettings {
  const fallback = offline ? LOCAL_EMBEDDING_MODEL : DEFAULT_ONLINE_EMBEDDING_MODEL;
  if (config.embeddingModel === undefined && stored !== undefined) {
    // Unset means "whatever this store already holds": switching the fleet from offline to an
    // upstream must not strand the documents ingested so far.
    return {
      model: stored.model,
      dimensions: config.embeddingDimensions ?? stored.dimensions,
      local: stored.model === LOCAL_EMBEDDING_MODEL,
      keptStored: stored.model !== fallback,
    };
  }
  const model = config.embeddingModel ?? fallback;
  const local = model === LOCAL_EMBEDDING_MODEL;
  const dimensions = config.embeddingDimensions ?? (local ? DEFAULT_OFFLINE_DIMENSIONS : undefined);
  return { model, dimensions, local, keptStored: false };
}

/** Loads the RAG agent's configuration; the only place it reads the environment (CONTRIBUTING.md convention 15). */
export function loadRagAgentConfig(environment: Environment = process.env): RagAgentConfig {
  return loadConfig(configSpec, environment);
}
