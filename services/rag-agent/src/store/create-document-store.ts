import { createHash } from 'node:crypto';
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
  OriginalInfo,
  OriginalToStore,
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
  original_digest: string | null;
  original_media_type: string | null;
  original_bytes: number | null;
  original_filename: string | null;
}

interface OriginalRow {
  digest: string;
  media_type: string;
  size_bytes: number;
  filename: string;
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

/** A document's columns and its original's details (never its bytes), from {@link WITH_ORIGINALS}. */
const DOCUMENT_COLUMNS = `d.id::text AS id, d.tenant, d.filename, d.doc_type, d.content_hash,
  d.description, d.metadata, d.chunk_count, d.created_at, o.digest AS original_digest,
  o.media_type AS original_media_type, o.size_bytes AS original_bytes,
  o.filename AS original_filename`;

/** Documents (`d`) with their originals (`o`) when kept. */
const WITH_ORIGINALS = `documents d LEFT JOIN document_originals o
  ON o.tenant = d.tenant AND o.digest = d.original_digest`;

/** PostgreSQL's foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = '23503';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toOriginalInfo(row: DocumentRow): OriginalInfo | undefined {
  if (row.original_digest === null) return undefined;
  return {
    digest: row.original_digest,
    mediaType: row.original_media_type ?? 'application/octet-stream',
    bytes: row.original_bytes ?? 0,
    filename: row.original_filename ?? row.filename,
  };
}

function toRecord(row: DocumentRow): DocumentRecord {
  const original = toOriginalInfo(row);
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
    ...(original === undefined ? {} : { original }),
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

/**
 * Stores the tenant's original bytes once (the row of the same content is reused) and locks that
 * row until the transaction ends, so a concurrent delete of its last document cannot remove it
 * before this transaction's document refers to it. `DO UPDATE` rather than `DO NOTHING` for the
 * lock (and so a row deleted meanwhile is inserted again).
 */
async function keepOriginal(options: {
  client: PoolClient;
  tenant: string;
  original: OriginalToStore;
}): Promise<OriginalInfo> {
  const { client, tenant, original } = options;
  const bytes = Buffer.from(
    original.bytes.buffer,
    original.bytes.byteOffset,
    original.bytes.byteLength,
  );
  const digest = createHash('sha256').update(bytes).digest('hex');
  const result = await client.query<OriginalRow>(
    `INSERT INTO document_originals (tenant, digest, media_type, size_bytes, filename, content)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (tenant, digest) DO UPDATE SET digest = EXCLUDED.digest
     RETURNING digest, media_type, size_bytes, filename`,
    [tenant, digest, original.mediaType, bytes.byteLength, original.filename, bytes],
  );
  const row = result.rows[0];
  if (!row) throw new Error(`The original of '${original.filename}' was not stored.`);
  return {
    digest: row.digest,
    mediaType: row.media_type,
    bytes: row.size_bytes,
    filename: row.filename,
  };
}

/**
 * Deletes the tenant's original `digest` unless a document of the tenant still refers to it. A
 * document committed meanwhile that refers to it (invisible to this statement's snapshot) makes
 * the foreign key refuse the delete: the bytes are in use, so they stay, and the rest of the
 * transaction goes on (the savepoint).
 */
async function releaseOriginal(options: {
  client: PoolClient;
  tenant: string;
  digest: string;
}): Promise<void> {
  const { client, tenant, digest } = options;
  await client.query('SAVEPOINT release_original');
  try {
    await client.query(
      `DELETE FROM document_originals
       WHERE tenant = $1 AND digest = $2
         AND NOT EXISTS (SELECT 1 FROM documents WHERE tenant = $1 AND original_digest = $2)`,
      [tenant, digest],
    );
    await client.query('RELEASE SAVEPOINT release_original');
  } catch (error) {
    if (pgError(error)?.code !== FOREIGN_KEY_VIOLATION) throw error;
    await client.query('ROLLBACK TO SAVEPOINT release_original');
  }
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
      `SELECT ${DOCUMENT_COLUMNS} FROM ${WITH_ORIGINALS} WHERE d.tenant = $1 AND d.content_hash = $2`,
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
      // The original is stored after the document, and only when the document was: a duplicate
      // leaves no unreferenced bytes behind.
      const inserted = await client.query<DocumentRow>(
        `WITH d AS (
           INSERT INTO documents (tenant, filename, doc_type, content_hash, description, metadata,
             chunk_count)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
           ON CONFLICT (tenant, content_hash) DO NOTHING
           RETURNING *
         )
         SELECT ${DOCUMENT_COLUMNS}
         FROM d LEFT JOIN document_originals o ON o.tenant = d.tenant AND o.digest = d.original_digest`,
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
      let original: OriginalInfo | undefined;
      if (input.original !== undefined) {
        original = await keepOriginal({ client, tenant: input.tenant, original: input.original });
        await client.query('UPDATE documents SET original_digest = $2 WHERE id = $1::uuid', [
          row.id,
          original.digest,
        ]);
      }
      for (let start = 0; start < input.chunks.length; start += insertBatchSize) {
        await insertChunks({
          client,
          document: { id: row.id, tenant: input.tenant },
          chunks: input.chunks.slice(start, start + insertBatchSize),
        });
      }
      return { ...toRecord(row), ...(original === undefined ? {} : { original }) };
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
        `SELECT ${DOCUMENT_COLUMNS} FROM ${WITH_ORIGINALS} WHERE d.tenant = $1
         ORDER BY d.created_at DESC, d.id DESC`,
        [tenant],
      );
      return result.rows.map(toRecord);
    },

    async getDocument(tenant: string, id: string): Promise<DocumentRecord | undefined> {
      // Not a uuid: no such document (and no cast error from PostgreSQL).
      if (!UUID.test(id)) return undefined;
      const result = await pool.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM ${WITH_ORIGINALS} WHERE d.tenant = $1 AND d.id = $2::uuid`,
        [tenant, id],
      );
      const row = result.rows[0];
      return row ? toRecord(row) : undefined;
    },

    async findByFilename(tenant: string, filename: string): Promise<DocumentRecord[]> {
      const result = await pool.query<DocumentRow>(
        `SELECT ${DOCUMENT_COLUMNS} FROM ${WITH_ORIGINALS} WHERE d.tenant = $1 AND d.filename = $2
         ORDER BY d.created_at DESC, d.id DESC`,
        [tenant, filename],
      );
      return result.rows.map(toRecord);
    },

    async readOriginal(tenant: string, id: string): Promise<Uint8Array | undefined> {
      if (!UUID.test(id)) return undefined;
      const result = await pool.query<{ content: Buffer }>(
        `SELECT o.content FROM documents d
         JOIN document_originals o ON o.tenant = d.tenant AND o.digest = d.original_digest
         WHERE d.tenant = $1 AND d.id = $2::uuid`,
        [tenant, id],
      );
      const content = result.rows[0]?.content;
      return content === undefined
        ? undefined
        : new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
    },

    async attachOriginal({ tenant, id, original }): Promise<boolean> {
      if (!UUID.test(id)) return false;
      return withTransaction(pool, async (client) => {
        const found = await client.query<{ original_digest: string | null }>(
          'SELECT original_digest FROM documents WHERE tenant = $1 AND id = $2::uuid FOR UPDATE',
          [tenant, id],
        );
        const row = found.rows[0];
        if (!row || row.original_digest !== null) return false;
        const kept = await keepOriginal({ client, tenant, original });
        await client.query('UPDATE documents SET original_digest = $2 WHERE id = $1::uuid', [
          id,
          kept.digest,
        ]);
        return true;
      });
    },

    async deleteDocument(tenant: string, id: string): Promise<boolean> {
      // Not a uuid: no such document (and no cast error from PostgreSQL).
      if (!UUID.test(id)) return false;
      const chunks = await withTransaction(pool, async (client) => {
        const result = await client.query<{
          chunk_count: number;
          original_digest: string | null;
        }>(
          `DELETE FROM documents WHERE tenant = $1 AND id = $2::uuid
           RETURNING chunk_count, original_digest`,
          [tenant, id],
        );
        const row = result.rows[0];
        if (!row) return undefined;
        if (row.original_digest !== null) {
          await releaseOriginal({ client, tenant, digest: row.original_digest });
        }
        return row.chunk_count;
      });
      if (chunks === undefined) return false;
      await maintainStatistics(chunks);
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
    getDocument: (tenant, id) => whileDatabaseAvailable(() => store.getDocument(tenant, id)),
    findByFilename: (tenant, filename) =>
      whileDatabaseAvailable(() => store.findByFilename(tenant, filename)),
    readOriginal: (tenant, id) => whileDatabaseAvailable(() => store.readOriginal(tenant, id)),
    attachOriginal: (input) => whileDatabaseAvailable(() => store.attachOriginal(input)),
    deleteDocument: (tenant, id) => whileDatabaseAvailable(() => store.deleteDocument(tenant, id)),
    search: (input) => whileDatabaseAvailable(() => store.search(input)),
    stats: (tenant) => whileDatabaseAvailable(() => store.stats(tenant)),
  };
}
