import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@fleet/telemetry';
import { openDatabase, type Database } from './open-database';

/** The machine's PostgreSQL 15 (no pgvector) that tests use for the server code path. */
export const TEST_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A logger that writes nothing. */
export const silentLogger = createLogger({ service: 'rag-agent-test', level: 'silent' });

/** An embedded database in a fresh temporary directory, and how to throw both away. */
export interface TestDatabase {
  database: Database;
  dataDir: string;
  /** Closes the database and deletes its directory. */
  dispose(): Promise<void>;
}

/**
 * Test helper: opens the embedded PGlite (real PostgreSQL with real pgvector) in a new temporary
 * directory. Starting one takes a few seconds (initdb), so a test file shares one.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rag-store-test-'));
  const database = await openDatabase({ dataDir, logger: silentLogger });
  return {
    database,
    dataDir,
    async dispose() {
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
