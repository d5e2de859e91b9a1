import type { Pool } from 'pg';
import { whileDatabaseAvailable } from './database-unavailable';

/**
 * `/readyz`'s check of the RAG database: `SELECT 1`; while the database cannot be reached it
 * fails with the same 503 the store's operations fail with.
 *
 * @example
 * readinessChecks: { database: databaseReadinessCheck(database.pool) }
 */
export function databaseReadinessCheck(pool: Pool): () => Promise<void> {
  return async () => {
    await whileDatabaseAvailable(() => pool.query('SELECT 1'));
  };
}
