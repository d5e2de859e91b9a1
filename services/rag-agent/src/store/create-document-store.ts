import type { Pool, PoolClient } from 'pg';
import { toSql } from 'pgvector/pg';
import { ConflictError, ValidationError } from '@fleet/errors';
import { buildSearchQuery } from './build-search-query';
import { whileDatabaseAvailable } from './database-unavailable';
import type {
  ChunkToStore,
  DocumentRecord,
  DocumentStore,
  InsertDocumentInput,
  SearchHit,
  SearchInput,
  StoredDocType,
  StoreStats,
} from './document-store';
import { withTransaction } from './with-transaction';

/** Options for {@link createDocumentStore}. */
export interface CreateDocumentStoreOptions {
  /** A pool to a migrated database (see `openDatabase` and `migrate`). */
  pool: Pool;
  /** Chunks per INSERT statement inside a document's transaction. @default 500 */
  insertBatchSize?: number;
  /**
   * Refresh the planner's statistics (`ANALYZE`) when the chunks have changed by a tenth since the
   * last time (at least 500 rows), and once if they have none. Without statistics PostgreSQL
   * assumes a tenant holds a fraction of a percent of the chunks and scans them by the tenant index
   * instead of the HNSW index. A server's autovacuum does this too; the embedded PGlite has no
   * autovacuum. @default true
   */
  autoAnalyze?: boolean;
}

/** The least changed chunk rows that trigger an ANALYZE. */
const ANALYZE_MIN_CHANGES = 500;
/** The share of the table that must have changed since the last ANALYZE. */
const ANALYZE_FRACTION = 0.1;

interface DocumentRow {
  id: string;
  tenant: string;
  filename: string;
  doc_type: StoredDocType;
  content_hash: string;
  description: string;
  metadata: Record<string, unknown> | null;
  chunk_count: number;
  created_at: Date | string;
}

interface HitRow {
  chunk_id: string;
  document_id: string;
  filename: string;
  doc_type: StoredDocType;
  section: string;
  page: number | null;
  text: string;
  metadata: Record<string, unknown> | null;
  parent_text: string | null;
  score: number;
  vector_rank: number | null;
  text_rank: number | null;
  distance: number | null;
}

const DOCUMENT_COLUMNS =
  'id::text AS id, tenant, filename, doc_type, content_hash, description, metadata, chunk_count, created_at';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toRecord(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    filename: row.filename,
    docType: row.doc_type,
    contentHash: row.content_hash,
    description: row.description,
    chunks: row.chunk_count,
    createdAt: (row.created_at instanceof Date
      ? row.created_at
      : new Date(row.created_at)
    ).toISOString(),
    metadata: row.metadata ?? {},
  };
}

function toHit(row: HitRow): SearchHit {
  return {
    chunkId: row.chunk_id,
    documentId: row.document_id,
    filename: row.filename,
    docType: row.doc_type,
    section: row.section,
    ...(row.page === null ? {} : { page: row.page }),
    text: row.text,
    ...(row.parent_text === null ? {} : { parentText: row.parent_text }),
    score: row.score,
    ...(row.vector_rank === null ? {} : { vectorRank: row.vector_rank }),
    ...(row.text_rank === null ? {} : { textRank: row.text_rank }),
    ...(row.distance === null ? {} : { distance: row.distance }),
    metadata: row.metadata ?? {},
  };
}

function pgError(error: unknown): { code: string; message: string } | undefined {
  const candidate = error as { code?: unknown; message?: unknown } | null;
  return typeof candidate?.code === 'string' && typeof candidate.message === 'string'
    ? { code: candidate.code, message: candidate.message }
    : undefined;
}

/**
 * Data exceptions (class 22: a vector of the wrong size, NaN, a bad date) and integrity violations
 * (class 23: a repeated ordinal, a child without an embedding) are the caller's input, not the
 * store failing.
 */
function toInputError(error: unknown, subject: string): unknown {
  const details = pgError(error);
  if (details && (details.code.startsWith('22') || details.code.startsWith('23'))) {
    return new ValidationError(`${subject}: ${details.message}.`, { cause: error });
  }
  return error;
}

async function insertChunks(options: {
  client: PoolClient;
  document: { id: string; tenant: string };
  chunks: readonly ChunkToStore[];
}): Promise<void> {
  const { client, document, chunks } = options;
  await client.query(
    `INSERT INTO chunks (document_id, tenant, ordinal, kind, parent_ordinal, section, page, text,
       tokens, metadata, embedding)
     SELECT $1::uuid, $2::text, u.*
     FROM unnest($3::int[], $4::text[], $5::int[], $6::text[], $7::int[], $8::text[], $9::int[],
       $10::jsonb[], $11::vector[])
       AS u(ordinal, kind, parent_ordinal, section, page, text, tokens, metadata, embedding)`,
    [
      document.id,
      document.tenant,
      chunks.map((chunk) => chunk.ordinal),
      chunks.map((chunk) => chunk.kind),
      chunks.map((chunk) => chunk.parentOrdinal ?? null),
      chunks.map((chunk) => chunk.section),
      chunks.map((chunk) => chunk.page ?? null),
      chunks.map((chunk) => chunk.text),
      chunks.map((chunk) => chunk.tokens),
      chunks.map((chunk) => JSON.stringify(chunk.metadata)),
      // pgvector's `[x,y,…]` literal per chunk; NULL for parents.
      chunks.map((chunk) => (chunk.embedding === null ? null : (toSql(chunk.embedding) as string))),
    ],
  );
}

function versionAtLeast(version: string, minimum: readonly number[]): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (const [index, wanted] of minimum.entries()) {
    const have = parts[index] ?? 0;
    if (have !== wanted) return have > wanted;
  }
  return true;
}

/**
 * The {@link DocumentStore} over PostgreSQL with pgvector (the schema `migrate` creates). One
 * document is one transaction; chunks go in with one `INSERT … SELECT FROM unnest(…)` per
 * `insertBatchSize` chunks, embeddings as pgvector literals. Search is one statement
 * (`buildSearchQuery`), in a transaction when it sets HNSW options (`SET LOCAL`). While the
 * database cannot be reached (refused, reset, timed out, shutting down), every operation fails
 * with a retryable `ServiceUnavailableError` (503, `Retry-After`).
 *
 * @example
 * const store = createDocumentStore({ pool: database.pool });
 * const hits = await store.search({ tenant, text: question, embedding, limit: 20 });
 */
export function createDocumentStore({
  pool,
  insertBatchSize = 500,
  autoAnalyze = true,
}: CreateDocumentStoreOptions): DocumentStore {
  if (!Number.isInteger(insertBatchSize) || insertBatchSize < 1) {
    throw new TypeError(`insertBatchSize must be a positive integer, got ${insertBatchSize}`);
  }
  let iterativeScan: Promise<boolean> | undefined;
  /** Whether the server's pgvector scans filtered HNSW iteratively (0.8+); asked once. */
  const supportsIterativeScan = (): Promise<boolean> => {
    iterativeScan ??= pool
      .query<{ version: string | null }>(
        "SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'",
      )
      .then((result) => versionAtLeast(result.rows[0]?.version ?? '0', [0, 8, 0]))
      .catch((error: unknown) => {
        iterativeScan = undefined;
        throw error;
      });
    return iterativeScan;
  };

  // Statistics upkeep (see `autoAnalyze`): chunk rows changed since the last ANALYZE, and the row
  // count then. `checked` becomes true once this store has made sure statistics exist.
  let changedRows = 0;
  let analyzedRows = 0;
  let checked = false;
  let analyzing: Promise<void> | undefined;

  async function analyze(): Promise<void> {
    changedRows = 0;
    await pool.query('ANALYZE documents, chunks');
    const result = await pool.query<{ rows: number }>(
      "SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = 'chunks'::regclass",
    );
    analyzedRows = Math.max(0, result.rows[0]?.rows ?? 0);
  }

  /** Runs ANALYZE when due; statistics are an optimisation, so a failure here is not the caller's. */
  async function maintainStatistics(changed: number): Promise<void> {
    if (!autoAnalyze) return;
    changedRows += changed;
    analyzing ??= (async () => {
      try {
        if (!checked) {
          checked = true;
          const missing = await pool.query<{ missing: boolean }>(
            `SELECT NOT EXISTS (SELECT 1 FROM pg_stats
               WHERE schemaname = current_schema() AND tablename = 'chunks' AND attname = 'tenant')
             AND EXISTS (SELECT 1 FROM chunks) AS missing`,
          );
          if (missing.rows[0]?.missing) {
            await analyze();
            return;
          }
        }
        if (changedRows >= Math.max(ANALYZE_MIN_CHANGES, ANALYZE_FRACTION * analyzedRows)) {
          await analyze();
        }
      } catch {
        // The next change tries again.
      } finally {
        analyzing = undefined;
      }
    })();
    await analyzing;
  }

  async function findByHash(
    tenant: string,
    contentHash: string,
  ): Promise<DocumentRecord | undefined> {
    const result = await pool.query<DocumentRow>(
      `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE tenant = $1 AND content_hash = $2`,
      [tenant, contentHash],
    );
    const row = result.rows[0];
    return row ? toRecord(row) : undefined;
  }

  /** One attempt: the new record, or undefined when the content is already stored. */
  async function tryInsert(input: InsertDocumentInput): Promise<DocumentRecord | undefined> {
    const children = input.chunks.filter((chunk) => chunk.kind === 'child').length;
    return withTransaction(pool, async (client) => {
      // ON CONFLICT waits for a concurrent insert of the same content to finish: if it commits,
      // nothing is inserted here and the caller returns that document as the duplicate.
      const inserted = await client.query<DocumentRow>(
        `INSERT INTO documents (tenant, filename, doc_type, content_hash, description, metadata,
           chunk_count)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
         ON CONFLICT (tenant, content_hash) DO NOTHING
         RETURNING ${DOCUMENT_COLUMNS}`,
        [
          input.tenant,
          input.filename,
          input.docType,
          input.contentHash,
          input.description,
          JSON.stringify(input.metadata ?? {}),
          children,
        ],
      );
      const row = inserted.rows[0];
      if (!row) return undefined;
      for (let start = 0; start < input.chunks.length; start += insertBatchSize) {
        await insertChunks({
          client,
          document: { id: row.id, tenant: input.tenant },
          chunks: input.chunks.slice(start, start + insertBatchSize),
        });
      }
      return toRecord(row);
    });
  }

  const store: DocumentStore = {
    findByHash,

    async insertDocument(input: InsertDocumentInput): Promise<DocumentRecord> {
      if (input.tenant === '') throw new ValidationError('A document needs a tenant.');
      for (let attempt = 0; attempt < 3; attempt++) {
        let created: DocumentRecord | undefined;
        try {
          created = await tryInsert(input);
        } catch (error) {
          throw toInputError(error, `The document '${input.filename}' could not be stored`);
        }
        if (created) {
          await maintainStatistics(input.chunks.length);
          return created;
        }
        const existing = await findByHash(input.tenant, input.contentHash);
        if (existing) return { ...existing, duplicate: true };
        // The duplicate was deleted between the two statements: try again.
      }
      throw new ConflictError(
        `The document '${input.filename}' kept conflicting with concurrent changes; try again.`,
      );
    },

    async listDocuments(tenant: string): Promise<DocumentRecord[]> {
      const result = await pool.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE tenant = $1
         ORDER BY created_at DESC, id DESC`,
        [tenant],
      );
      return result.rows.map(toRecord);
    },

    async deleteDocument(tenant: string, id: string): Promise<boolean> {
      // Not a uuid: no such document (and no cast error from PostgreSQL).
      if (!UUID.test(id)) return false;
      const result = await pool.query<{ chunk_count: number }>(
        'DELETE FROM documents WHERE tenant = $1 AND id = $2::uuid RETURNING chunk_count',
        [tenant, id],
      );
      const row = result.rows[0];
      if (!row) return false;
      await maintainStatistics(row.chunk_count);
      return true;
    },

    async search(input: SearchInput): Promise<SearchHit[]> {
      if (!checked) await maintainStatistics(0);
      const needsSettings = input.mode !== 'text' && !input.exact;
      const query = buildSearchQuery(input, {
        iterativeScan: needsSettings ? await supportsIterativeScan() : false,
      });
      try {
        const result =
          query.settings.length === 0
            ? await pool.query<HitRow>(query.text, query.values)
            : await withTransaction(pool, async (client) => {
                await client.query(query.settings.join(';\n'));
                return client.query<HitRow>(query.text, query.values);
              });
        return result.rows.map(toHit);
      } catch (error) {
        throw toInputError(error, 'The search failed');
      }
    },

    async stats(tenant?: string): Promise<StoreStats> {
      const result = await pool.query<{ documents: string; chunks: string }>(
        `SELECT
           (SELECT count(*) FROM documents WHERE $1::text IS NULL OR tenant = $1) AS documents,
           (SELECT count(*) FROM chunks
             WHERE kind = 'child' AND ($1::text IS NULL OR tenant = $1)) AS chunks`,
        [tenant ?? null],
      );
      const row = result.rows[0];
      return { documents: Number(row?.documents ?? 0), chunks: Number(row?.chunks ?? 0) };
    },
  };
  return {
    findByHash: (tenant, hash) => whileDatabaseAvailable(() => store.findByHash(tenant, hash)),
    insertDocument: (input) => whileDatabaseAvailable(() => store.insertDocument(input)),
    listDocuments: (tenant) => whileDatabaseAvailable(() => store.listDocuments(tenant)),
    deleteDocument: (tenant, id) => whileDatabaseAvailable(() => store.deleteDocument(tenant, id)),
    search: (input) => whileDatabaseAvailable(() => store.search(input)),
    stats: (tenant) => whileDatabaseAvailable(() => store.stats(tenant)),
  };
}
