/** The RAG store's schema migrations, in the order they apply. */
import { initialSchema } from './001-initial-schema';
import type { Migration } from './migration';

export { HNSW_INDEX_OPTIONS } from './001-initial-schema';
export type { Migration, MigrationContext } from './migration';

/** Every migration, by increasing version. Append new ones; never edit an applied one. */
export const MIGRATIONS: readonly Migration[] = [initialSchema];
