/** The RAG store: the database (embedded PGlite or a PostgreSQL server), migrations, documents, hybrid search and run files. */
export { buildSearchQuery, DEFAULT_SEARCH_LIMIT, RRF_K } from './build-search-query';
export type { BuildSearchQueryOptions, SearchQuery } from './build-search-query';
export { createDocumentStore } from './create-document-store';
export {
  createRunFileStore,
  DEFAULT_MAX_RUN_FILE_BYTES,
  MAX_LISTED_RUN_FILES,
  MAX_RUN_FILE_LABEL_LENGTH,
  MAX_RUN_FILES_PER_PUT,
  startRunFileSweep,
} from './create-run-file-store';
export type {
  CreateRunFileStoreOptions,
  DatabaseRunFileStore,
  RunFileSweepLogger,
} from './create-run-file-store';
export { databaseReadinessCheck } from './database-readiness';
export {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseUnavailableError,
  isDatabaseUnavailable,
} from './database-unavailable';
export type { CreateDocumentStoreOptions } from './create-document-store';
export type {
  ChunkToStore,
  DocumentRecord,
  DocumentStore,
  InsertDocumentInput,
  OriginalInfo,
  OriginalToStore,
  SearchFilters,
  SearchHit,
  SearchInput,
  SearchMode,
  StoredDocType,
  StoreStats,
} from './document-store';
export { MAX_INDEXED_DIMENSIONS, migrate, readStoredEmbedding } from './migrate';
export type { MigrateOptions, MigrateResult } from './migrate';
export { HNSW_INDEX_OPTIONS, MIGRATIONS } from './migrations';
export type { Migration, MigrationContext } from './migrations';
export { openDatabase } from './open-database';
export type { Database, DatabaseLogger, OpenDatabaseOptions } from './open-database';
export { StartupError } from './startup-error';
export { withTransaction } from './with-transaction';
export { startEmbeddedServer } from './start-embedded-server';
export type { EmbeddedServer, StartEmbeddedServerOptions } from './start-embedded-server';
