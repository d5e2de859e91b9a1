import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import os from 'node:os';
import path from 'node:path';
import { createDocumentStore } from './create-document-store';
import { migrate } from './migrate';
import { MIGRATIONS } from './migrations';
import { openDatabase } from './open-database';
import {
  backendSuites,
  silentLogger,
  TEST_SERVER_URL,
  type TestDatabase,
} from './open-test-database';
import { StartupError } from './startup-error';

const SLOW = 120_000;
const settings = { embeddingModel: 'local-hashed-v1', dimensions: 384 };

// The same suite on the embedded PGlite and on a PostgreSQL server with pgvector (DATABASE_URL, or
// a container this file starts): see open-test-database.ts and docs/rag.md.
for (const { title, backend, skip } of backendSuites('migrate')) {
  (skip ? describe.skip : describe)(title, () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await backend.open();
    }, SLOW);
    afterAll(async () => {
      await test?.dispose();
      await backend.release();
    }, SLOW);

    it('creates the schema once and is a no-op when run again', async () => {
      const { pool } = test.database;
      await migrate(pool, settings);
      await migrate(pool, settings);

      const applied = await pool.query<{ version: number; name: string }>(
        'SELECT version, name FROM schema_migrations ORDER BY version',
      );
      expect(applied.rows).toEqual(
        MIGRATIONS.map((migration) => ({ version: migration.version, name: migration.name })),
      );
      const stored = await pool.query(
        'SELECT embedding_model, embedding_dimensions FROM rag_settings',
      );
      expect(stored.rows).toEqual([
        { embedding_model: 'local-hashed-v1', embedding_dimensions: 384 },
      ]);

      const column = await pool.query<{ type: string }>(
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
       WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'`,
      );
      expect(column.rows[0]?.type).toBe('vector(384)');
      const indexes = await pool.query<{ indexname: string; indexdef: string }>(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'chunks' ORDER BY indexname",
      );
      const definitions = Object.fromEntries(
        indexes.rows.map((row) => [row.indexname, row.indexdef]),
      );
      expect(definitions['chunks_embedding_hnsw_idx']).toMatch(
        /USING hnsw \(embedding vector_cosine_ops\) WITH \(m='?32'?, ef_construction='?128'?\)/,
      );
      expect(definitions['chunks_tsv_idx']).toMatch(/USING gin \(tsv\)/);
      expect(definitions['chunks_tenant_document_idx']).toMatch(/\(tenant, document_id\)/);

      // The generated tsvector covers the section and the text, stemmed.
      const document = await pool.query<{ id: string }>(
        `INSERT INTO documents (tenant, filename, doc_type, content_hash)
       VALUES ('migrate-test', 'a.md', 'md', 'h1') RETURNING id`,
      );
      await pool.query(
        `INSERT INTO chunks (document_id, tenant, ordinal, kind, section, text, tokens)
       VALUES ($1, 'migrate-test', 0, 'parent', 'Billing', 'Invoices are running late', 5)`,
        [document.rows[0]?.id],
      );
      const tsv = await pool.query<{ tsv: string }>(
        "SELECT tsv::text AS tsv FROM chunks WHERE tenant = 'migrate-test'",
      );
      expect(tsv.rows[0]?.tsv).toBe("'bill':1 'invoic':2 'late':5 'run':4");
      await pool.query("DELETE FROM documents WHERE tenant = 'migrate-test'");
    });

    it('refuses another embedding model or size for a store with documents, saying what to do, and changes nothing', async () => {
      const { pool } = test.database;
      await migrate(pool, settings);
      const document = await pool.query<{ id: string }>(
        `INSERT INTO documents (tenant, filename, doc_type, content_hash)
       VALUES ('migrate-test', 'a.md', 'md', 'h2') RETURNING id`,
      );
      const vector = `[${Array.from({ length: 384 }, (_, index) => (index === 0 ? 1 : 0)).join(',')}]`;
      await pool.query(
        `INSERT INTO chunks (document_id, tenant, ordinal, kind, text, embedding)
       VALUES ($1, 'migrate-test', 0, 'child', 'Invoices', $2::vector)`,
        [document.rows[0]?.id, vector],
      );
      const model = await migrate(pool, {
        embeddingModel: 'text-embedding-3-small',
        dimensions: 384,
      })
        .then(() => undefined)
        .catch((caught: unknown) => caught);
      expect(model).toBeInstanceOf(StartupError);
      expect((model as Error).message).toContain(
        'The RAG store holds local-hashed-v1/384-dimension embeddings; EMBEDDING_MODEL/EMBEDDING_DIMENSIONS give text-embedding-3-small/384-dimension',
      );
      expect((model as Error).message).toMatch(/re-index/);
      expect((model as Error).message).toMatch(/DATABASE_URL/);

      await expect(
        migrate(pool, { embeddingModel: 'local-hashed-v1', dimensions: 256 }),
      ).rejects.toThrow(/give local-hashed-v1\/256-dimension/);

      const stored = await pool.query(
        'SELECT embedding_model, embedding_dimensions FROM rag_settings',
      );
      expect(stored.rows).toEqual([
        { embedding_model: 'local-hashed-v1', embedding_dimensions: 384 },
      ]);
      await pool.query("DELETE FROM documents WHERE tenant = 'migrate-test'");
    });

    it('lets a store without documents take another model and size', async () => {
      const { pool } = test.database;
      await migrate(pool, settings);
      const result = await migrate(pool, {
        embeddingModel: 'text-embedding-3-small',
        dimensions: 768,
      });
      expect(result.replaced).toEqual({ model: 'local-hashed-v1', dimensions: 384 });
      const stored = await pool.query(
        'SELECT embedding_model, embedding_dimensions FROM rag_settings',
      );
      expect(stored.rows).toEqual([
        { embedding_model: 'text-embedding-3-small', embedding_dimensions: 768 },
      ]);
      const column = await pool.query<{ type: string }>(
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
       WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'`,
      );
      expect(column.rows[0]?.type).toBe('vector(768)');
      const index = await pool.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'chunks_embedding_hnsw_idx'",
      );
      expect(index.rows[0]?.indexdef).toMatch(
        /USING hnsw \(embedding vector_cosine_ops\) WITH \(m='?32'?, ef_construction='?128'?\)/,
      );
      // Running it again changes nothing; and back again, as the other tests expect.
      expect(
        (await migrate(pool, { embeddingModel: 'text-embedding-3-small', dimensions: 768 }))
          .replaced,
      ).toBeUndefined();
      expect((await migrate(pool, settings)).replaced).toEqual({
        model: 'text-embedding-3-small',
        dimensions: 768,
      });
    });

    it(
      'migrates a store of the previous schema: its documents stay, listed without originals',
      async () => {
        const previous = await backend.open();
        try {
          const { pool } = previous.database;
          // The schema before originals were kept: every migration up to 2.
          await migrate(pool, {
            ...settings,
            migrations: MIGRATIONS.filter((migration) => migration.version <= 2),
          });
          const old = await pool.query<{ id: string }>(
            `INSERT INTO documents (tenant, filename, doc_type, content_hash, chunk_count)
           VALUES ('migrate-old', 'old.md', 'md', 'h-old', 0) RETURNING id::text AS id`,
          );
          const id = old.rows[0]?.id ?? '';

          await migrate(pool, settings);
          const applied = await pool.query<{ version: number }>(
            'SELECT version FROM schema_migrations ORDER BY version',
          );
          expect(applied.rows.map((row) => row.version)).toEqual(
            MIGRATIONS.map((migration) => migration.version),
          );
          const store = createDocumentStore({ pool, autoAnalyze: false });
          const [listed] = await store.listDocuments('migrate-old');
          expect(listed).toMatchObject({ id, filename: 'old.md' });
          expect(listed?.original).toBeUndefined();
          expect(await store.readOriginal('migrate-old', id)).toBeUndefined();

          // Its bytes can be kept later, and new documents keep theirs.
          const bytes = new TextEncoder().encode('# Old\n');
          expect(
            await store.attachOriginal({
              tenant: 'migrate-old',
              id,
              original: { bytes, mediaType: 'text/markdown; charset=utf-8', filename: 'old.md' },
            }),
          ).toBe(true);
          expect(Buffer.from((await store.readOriginal('migrate-old', id)) ?? []).toString()).toBe(
            '# Old\n',
          );
          // Bytes a document still refers to cannot be deleted behind its back.
          await expect(
            pool.query("DELETE FROM document_originals WHERE tenant = 'migrate-old'"),
          ).rejects.toThrow(/documents_original_fkey/);
        } finally {
          await previous.dispose();
        }
      },
      SLOW,
    );

    it('refuses sizes the HNSW index cannot take', async () => {
      await expect(
        migrate(test.database.pool, { embeddingModel: 'text-embedding-3-large', dimensions: 3072 }),
      ).rejects.toThrow(/at most 2000/);
    });
  });
}

describe('migrate on a PostgreSQL server without pgvector', () => {
  it('fails with a StartupError on a PostgreSQL without pgvector, leaving nothing behind', async () => {
    // The machine's PostgreSQL 15 has no pgvector: exactly the misconfiguration to report.
    const database = await openDatabase({
      databaseUrl: TEST_SERVER_URL,
      dataDir: path.join(os.tmpdir(), 'rag-migrate-test-unused'),
      logger: silentLogger,
    });
    try {
      const error = await migrate(database.pool, settings).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StartupError);
      expect((error as Error).message).toMatch(/no pgvector extension/);
      expect((error as Error).message).toMatch(/pgvector\/pgvector/);
      expect((error as Error).message).toMatch(/unset DATABASE_URL/);
      const left = await database.pool.query<{
        migrations: string | null;
        documents: string | null;
      }>(
        "SELECT to_regclass('schema_migrations')::text AS migrations, to_regclass('documents')::text AS documents",
      );
      expect(left.rows).toEqual([{ migrations: null, documents: null }]);
    } finally {
      await database.close();
    }
  });
});
