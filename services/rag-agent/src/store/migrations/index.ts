/** The RAG store's schema migrations, in the order they apply. */
import { initialSchema } from './001-initial-schema';
import { denserHnswIndex } from './002-denser-hnsw-index';
import { documentOriginals } from './003-document-originals';
import { runFiles } from './004-run-files';
import type { Migration } from './migration';

export { HNSW_INDEX_OPTIONS } from './002-denser-hnsw-index';
export type { Migration, MigrationContext } from './migration';

/** Every migration, by increasing version. Append new ones; never edit an applied one. */
export const MIGRATIONS: readonly Migration[] = [
  initialSchema,
  denserHnswIndex,
  documentOriginals,
  runFiles,
];
