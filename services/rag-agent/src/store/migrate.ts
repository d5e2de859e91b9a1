import type { Pool, PoolClient } from 'pg';
import { HNSW_INDEX_OPTIONS, MIGRATIONS, type Migration } from './migrations';
import { StartupError } from './startup-error';
import { registerVectorTypes } from './create-vector-pool';
import { withTransaction } from './with-transaction';

/** Options for {@link migrate}. */
export interface MigrateOptions {
  /** The embedder's model name, recorded on the first run and checked on every later one. */
  embeddingModel: string;
  /** The embedder's vector size: the `vector(N)` column's N. */
  dimensions: number;
  /** @default MIGRATIONS */
  migrations?: readonly Migration[];
}

/** What {@link migrate} did besides applying migrations. */
export interface MigrateResult {
  /**
   * The settings an empty store was built with before it took the ones given (a store that holds
   * no embedded chunk has nothing to re-index); undefined when nothing changed.
   */
  replaced: { model: string; dimensions: number } | undefined;
}

/** pgvector's HNSW index takes `vector` columns of at most 2000 dimensions. */
export const MAX_INDEXED_DIMENSIONS = 2000;

/** Serialises concurrent migrations (two replicas starting at once): any constant will do. */
const MIGRATION_LOCK_KEY = 0x7261_6701;

const NO_PGVECTOR =
  'The database has no pgvector extension, which the RAG store needs (vector type, HNSW index). ' +
  'Use a PostgreSQL with pgvector installed (e.g. the pgvector/pgvector Docker image, as docker compose does), ' +
  'or unset DATABASE_URL to use the embedded PostgreSQL (PGlite with pgvector).';

interface PgError {
  code?: unknown;
  message?: unknown;
}

function pgErrorCode(error: unknown): string | undefined {
  const code = (error as PgError | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function describeSettings(model: string, dimensions: number): string {
  return `${model}/${dimensions}-dimension`;
}

async function readSettings(
  client: PoolClient,
): Promise<{ model: string; dimensions: number } | undefined> {
  const exists = await client.query<{ present: boolean }>(
    "SELECT to_regclass('rag_settings') IS NOT NULL AS present",
  );
  if (!exists.rows[0]?.present) return undefined;
  const result = await client.query<{ embedding_model: string; embedding_dimensions: number }>(
    'SELECT embedding_model, embedding_dimensions FROM rag_settings',
  );
  const row = result.rows[0];
  return row ? { model: row.embedding_model, dimensions: row.embedding_dimensions } : undefined;
}

/**
 * The embedding model and size a store was built with, or undefined for a new (unmigrated) one:
 * what the agent keeps using when EMBEDDING_MODEL is not set explicitly.
 *
 * @example
 * const stored = await readStoredEmbedding(database.pool); // { model: 'local-hashed-v1', dimensions: 384 }
 */
export async function readStoredEmbedding(
  pool: Pool,
): Promise<{ model: string; dimensions: number } | undefined> {
  const client = await pool.connect();
  try {
    return await readSettings(client);
  } finally {
    client.release();
  }
}

async function holdsEmbeddings(client: PoolClient): Promise<boolean> {
  const result = await client.query<{ present: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM chunks WHERE embedding IS NOT NULL) AS present',
  );
  return result.rows[0]?.present === true;
}

/** Gives an empty store another embedding size: the column's type and its HNSW index. */
async function resizeEmbeddings(client: PoolClient, dimensions: number): Promise<void> {
  await client.query(`DROP INDEX IF EXISTS chunks_embedding_hnsw_idx;
ALTER TABLE chunks ALTER COLUMN embedding TYPE vector(${dimensions});
CREATE INDEX chunks_embedding_hnsw_idx ON chunks
  USING hnsw (embedding vector_cosine_ops)
  WITH (m = ${HNSW_INDEX_OPTIONS.m}, ef_construction = ${HNSW_INDEX_OPTIONS.efConstruction});`);
}

async function ensurePgvectorAvailable(client: PoolClient): Promise<void> {
  const result = await client.query<{ installed: boolean; available: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed,
            EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available`,
  );
  const row = result.rows[0];
  if (!row?.installed && !row?.available) throw new StartupError(NO_PGVECTOR);
}

function migrationFailure(error: unknown, migration: Migration): unknown {
  const code = pgErrorCode(error);
  const message = (error as PgError | null)?.message;
  const text = typeof message === 'string' ? message : String(error);
  // 58P01: PostgreSQL ≤ 15 cannot find vector.control; 0A000: 16+ says the extension is not
  // available. Both mean pgvector is not installed on the server.
  if ((code === '58P01' || code === '0A000') && text.includes('vector')) {
    return new StartupError(NO_PGVECTOR, { cause: error });
  }
  if (code === '42501' && /extension/i.test(text)) {
    return new StartupError(
      `The database user may not create the pgvector extension (${text}). Run CREATE EXTENSION vector; once as a superuser (or the database owner on PostgreSQL 13+ with a trusted extension), then start again.`,
      { cause: error },
    );
  }
  return new StartupError(
    `The RAG store's migration ${migration.version} (${migration.name}) failed: ${text}`,
    { cause: error },
  );
}

/**
 * Brings the RAG store's schema up to date: creates `schema_migrations(version, name, applied_at)`
 * and applies the pending {@link MIGRATIONS} in order, all in one transaction under an advisory
 * lock (concurrent starts wait; a failure leaves the database as it was). The first run records
 * the embedding model and size in `rag_settings` and creates `vector(dimensions)`; every later run
 * checks them, because vectors of another model or size cannot be compared with the stored ones;
 * a store without embedded chunks takes the new ones instead (`replaced`). Running it again is a
 * no-op.
 *
 * @throws StartupError when pgvector is missing (or may not be created), when the store holds
 *   embeddings of another model or size, when `dimensions` is out of range, or when a migration
 *   fails.
 * @example
 * await migrate(database.pool, { embeddingModel: embedder.model, dimensions: embedder.dimensions });
 */
export async function migrate(pool: Pool, options: MigrateOptions): Promise<MigrateResult> {
  const { embeddingModel, dimensions, migrations = MIGRATIONS } = options;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_INDEXED_DIMENSIONS) {
    throw new StartupError(
      `EMBEDDING_DIMENSIONS is ${dimensions}, but the RAG store's HNSW index (pgvector) takes 1 to ${MAX_INDEXED_DIMENSIONS} dimensions. Set EMBEDDING_DIMENSIONS to at most ${MAX_INDEXED_DIMENSIONS} (the text-embedding-3 models shorten their vectors, e.g. to 1536).`,
    );
  }
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  const replaced = await withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const settings = await readSettings(client);
    const differs =
      settings !== undefined &&
      (settings.model !== embeddingModel || settings.dimensions !== dimensions);
    if (differs && (await holdsEmbeddings(client))) {
      throw new StartupError(
        `The RAG store holds ${describeSettings(settings.model, settings.dimensions)} embeddings; EMBEDDING_MODEL/EMBEDDING_DIMENSIONS give ${describeSettings(embeddingModel, dimensions)}. ` +
          'Vectors of different models cannot be compared: set them back, or re-index into a fresh store ' +
          '(remove RAG_DATA_DIR or point it elsewhere for the embedded database, or point DATABASE_URL at another database) and ingest the documents again.',
      );
    }
    const applied = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
        (row) => row.version,
      ),
    );
    const pending = ordered.filter((migration) => !applied.has(migration.version));
    if (pending.length > 0) await ensurePgvectorAvailable(client);
    for (const migration of pending) {
      try {
        await client.query(migration.sql({ dimensions }));
      } catch (error) {
        throw migrationFailure(error, migration);
      }
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    if (!settings) {
      await client.query(
        'INSERT INTO rag_settings (embedding_model, embedding_dimensions) VALUES ($1, $2)',
        [embeddingModel, dimensions],
      );
    } else if (differs) {
      if (settings.dimensions !== dimensions) await resizeEmbeddings(client, dimensions);
      await client.query(
        'UPDATE rag_settings SET embedding_model = $1, embedding_dimensions = $2, updated_at = now()',
        [embeddingModel, dimensions],
      );
    }
    return differs ? settings : undefined;
  });
  // The first migration created the vector type: the pool's connections can parse it from now on.
  await registerVectorTypes(pool);
  return { replaced };
}
