import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { toSql } from 'pgvector/pg';
import { ConflictError, ValidationError } from '@fleet/errors';
import { buildSearchQuery } from './build-search-query';
import { whileDatabaseAvailable } from './database-unavailable';
import {
  DOCUMENT_COLUMNS,
  FOREIGN_KEY_VIOLATION,
  pgError,
  toHit,
  toInputError,
  toRecord,
  UUID,
  WITH_ORIGINALS,
  type DocumentRow,
  type HitRow,
  type OriginalRow,
} from './document-rows';
import type {
  ChunkToStore,
  DocumentRecord,
  DocumentStore,
  InsertDocumentInput,
  OriginalInfo,
  OriginalToStore,
  SearchHit,
  SearchInput,
  StoreStats,
} from './document-store';
import { StatisticsUpkeep } from './statistics-upkeep';
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
 * (`buildSearchQuery`), in a transaction when it sets HNSW options (`SET LOCAL`).
 */
class PgDocumentStore implements DocumentStore {
  private iterativeScan: Promise<boolean> | undefined;
  private readonly statistics: StatisticsUpkeep;

  constructor(
    private readonly pool: Pool,
    private readonly insertBatchSize: number,
    autoAnalyze: boolean,
  ) {
    this.statistics = new StatisticsUpkeep(pool, autoAnalyze);
  }

  async findByHash(tenant: string, contentHash: string): Promise<DocumentRecord | undefined> {
    const result = await this.pool.query<DocumentRow>(
      `SELECT ${DOCUMENT_COLUMNS} FROM ${WITH_ORIGINALS} WHERE d.tenant = $1 AND d.content_hash = $2`,
      [tenant, contentHash],
    );
    const row = result.rows[0];
    return row ? toRecord(row) : undefined;
  }

  /** One attempt: the new record, or undefined when the content is already stored. */
  private async tryInsert(input: InsertDocumentInput): Promise<DocumentRecord | undefined> {
    const children = input.chunks.filter((chunk) => chunk.kind === 'child').length;
    return withTransaction(this.pool, async (client) => {
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
      for (let start = 0; start < input.chunks.length; start += this.insertBatchSize) {
        await insertChunks({
          client,
          document: { id: row.id, tenant: input.tenant },
          chunks: input.chunks.slice(start, start + this.insertBatchSize),
        });
      }
      return { ...toRecord(row), ...(original === undefined ? {} : { original }) };
    });
  }

  async insertDocument(input: InsertDocumentInput): Promise<DocumentRecord> {
    if (input.tenant === '') throw new ValidationError('A document needs a tenant.');
    for (let attempt = 0; attempt < 3; attempt++) {
      let created: DocumentRecord | undefined;
      try {
        created = await this.tryInsert(input);
      } catch (error) {
        throw toInputError(error, `The document '${input.filename}' could not be stored`);
      }
      if (created) {
        await this.statistics.maintain(input.chunks.length);
        return created;
      }
      const existing = await this.findByHash(input.tenant, input.contentHash);
      if (existing) return { ...existing, duplicate: true };
      // The duplicate was deleted between the two statements: try again.
    }
    throw new ConflictError(
      `The document '${input.filename}' kept conflicting with concurrent changes; try again.`,
    );
  }

  async listDocuments(tenant: string): Promise<DocumentRecord[]> {
    const result = await this.pool.query<DocumentRow>(
      `SELECT ${DOCUMENT_COLUMNS} FROM ${WITH_ORIGINALS} WHERE d.tenant = $1
       ORDER BY d.created_at DESC, d.id DESC`,
      [tenant],
    );
    return result.rows.map(toRecord);
  }

  async getDocument(tenant: string, id: string): Promise<DocumentRecord | undefined> {
    // Not a uuid: no such document (and no cast error from PostgreSQL).
    if (!UUID.test(id)) return undefined;
    const result = await this.pool.query<DocumentRow>(
      `SELECT ${DOCUMENT_COLUMNS} FROM ${WITH_ORIGINALS} WHERE d.tenant = $1 AND d.id = $2::uuid`,
      [tenant, id],
    );
    const row = result.rows[0];
    return row ? toRecord(row) : undefined;
  }

  async findByFilename(tenant: string, filename: string): Promise<DocumentRecord[]> {
    const result = await this.pool.query<DocumentRow>(
      `SELECT ${DOCUMENT_COLUMNS} FROM ${WITH_ORIGINALS} WHERE d.tenant = $1 AND d.filename = $2
       ORDER BY d.created_at DESC, d.id DESC`,
      [tenant, filename],
    );
    return result.rows.map(toRecord);
  }

  async readOriginal(tenant: string, id: string): Promise<Uint8Array | undefined> {
    if (!UUID.test(id)) return undefined;
    const result = await this.pool.query<{ content: Buffer }>(
      `SELECT o.content FROM documents d
       JOIN document_originals o ON o.tenant = d.tenant AND o.digest = d.original_digest
       WHERE d.tenant = $1 AND d.id = $2::uuid`,
      [tenant, id],
    );
    const content = result.rows[0]?.content;
    return content === undefined
      ? undefined
      : new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  }

  async attachOriginal({
    tenant,
    id,
    original,
  }: Parameters<DocumentStore['attachOriginal']>[0]): Promise<boolean> {
    if (!UUID.test(id)) return false;
    return withTransaction(this.pool, async (client) => {
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
  }

  async deleteDocument(tenant: string, id: string): Promise<boolean> {
    // Not a uuid: no such document (and no cast error from PostgreSQL).
    if (!UUID.test(id)) return false;
    const chunks = await withTransaction(this.pool, async (client) => {
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
    await this.statistics.maintain(chunks);
    return true;
  }

  async search(input: SearchInput): Promise<SearchHit[]> {
    if (!this.statistics.checked) await this.statistics.maintain(0);
    const needsSettings = input.mode !== 'text' && !input.exact;
    const query = buildSearchQuery(input, {
      iterativeScan: needsSettings ? await this.supportsIterativeScan() : false,
    });
    try {
      const result =
        query.settings.length === 0
          ? await this.pool.query<HitRow>(query.text, query.values)
          : await withTransaction(this.pool, async (client) => {
              await client.query(query.settings.join(';\n'));
              return client.query<HitRow>(query.text, query.values);
            });
      return result.rows.map(toHit);
    } catch (error) {
      throw toInputError(error, 'The search failed');
    }
  }

  async stats(tenant?: string): Promise<StoreStats> {
    const result = await this.pool.query<{ documents: string; chunks: string }>(
      `SELECT
         (SELECT count(*) FROM documents WHERE $1::text IS NULL OR tenant = $1) AS documents,
         (SELECT count(*) FROM chunks
           WHERE kind = 'child' AND ($1::text IS NULL OR tenant = $1)) AS chunks`,
      [tenant ?? null],
    );
    const row = result.rows[0];
    return { documents: Number(row?.documents ?? 0), chunks: Number(row?.chunks ?? 0) };
  }

  /** Whether the server's pgvector scans filtered HNSW iteratively (0.8+); asked once. */
  private supportsIterativeScan(): Promise<boolean> {
    this.iterativeScan ??= this.pool
      .query<{ version: string | null }>(
        "SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'",
      )
      .then((result) => versionAtLeast(result.rows[0]?.version ?? '0', [0, 8, 0]))
      .catch((error: unknown) => {
        this.iterativeScan = undefined;
        throw error;
      });
    return this.iterativeScan;
  }
}

/**
 * The document store over PostgreSQL with pgvector ({@link PgDocumentStore}). While the
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
  const store = new PgDocumentStore(pool, insertBatchSize, autoAnalyze);
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
