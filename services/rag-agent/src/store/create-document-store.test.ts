import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ValidationError } from '@fleet/errors';
import { createHashedEmbedder } from '@fleet/llm';
import { buildSearchQuery } from './build-search-query';
import { createDocumentStore } from './create-document-store';
import type { ChunkToStore, DocumentStore, InsertDocumentInput } from './document-store';
import { migrate } from './migrate';
import { backendSuites, type TestDatabase } from './open-test-database';

const SLOW = 120_000;
const DIMENSIONS = 64;
const embedder = createHashedEmbedder({ dimensions: DIMENSIONS });

/** A unit vector along one axis (for hand-built embeddings). */
function axis(index: number, other?: { index: number; weight: number }): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  vector[index] = 1;
  if (other) vector[other.index] = other.weight;
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return vector.map((value) => value / norm);
}

interface SectionSpec {
  section: string;
  texts: string[];
  page?: number;
}

/** A document's chunks: per section one parent (all its texts) and a child per text, embedded. */
async function chunksFor(sections: SectionSpec[]): Promise<ChunkToStore[]> {
  const chunks: ChunkToStore[] = [];
  for (const { section, texts, page } of sections) {
    const parentOrdinal = chunks.length;
    chunks.push({
      ordinal: parentOrdinal,
      kind: 'parent',
      text: texts.join('\n\n'),
      tokens: texts.join(' ').split(' ').length,
      section,
      page,
      metadata: {},
      embedding: null,
    });
    const vectors = await embedder.embed(texts.map((text) => `${section}\n${text}`));
    texts.forEach((text, index) => {
      chunks.push({
        ordinal: chunks.length,
        kind: 'child',
        parentOrdinal,
        text,
        tokens: text.split(' ').length,
        section,
        page,
        metadata: { position: index },
        embedding: vectors[index] ?? null,
      });
    });
  }
  return chunks;
}

let hashes = 0;
function document(
  input: Partial<InsertDocumentInput> & Pick<InsertDocumentInput, 'tenant' | 'chunks'>,
): InsertDocumentInput {
  hashes += 1;
  return {
    filename: 'handbook.md',
    docType: 'md',
    contentHash: `hash-${hashes}`,
    description: 'A test document.',
    ...input,
  };
}

// The same suite on the embedded PGlite and on a PostgreSQL server with pgvector (DATABASE_URL, or
// a container this file starts): see open-test-database.ts and docs/rag.md.
for (const { title, backend, skip } of backendSuites('createDocumentStore')) {
  (skip ? describe.skip : describe)(title, () => {
    let test: TestDatabase;
    let store: DocumentStore;
    beforeAll(async () => {
      test = await backend.open();
      await migrate(test.database.pool, { embeddingModel: embedder.model, dimensions: DIMENSIONS });
      store = createDocumentStore({ pool: test.database.pool, insertBatchSize: 2 });
    }, SLOW);
    afterAll(async () => {
      await test?.dispose();
      await backend.release();
    }, SLOW);

    async function hasStatistics(): Promise<boolean> {
      const result = await test.database.pool.query(
        "SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'chunks' AND attname = 'tenant'",
      );
      return result.rowCount === 1;
    }

    async function chunkRows(documentId: string): Promise<number> {
      const result = await test.database.pool.query<{ count: string }>(
        'SELECT count(*) AS count FROM chunks WHERE document_id = $1',
        [documentId],
      );
      return Number(result.rows[0]?.count);
    }

    describe('documents', () => {
      it('inserts, lists newest first, counts and deletes with the chunks', async () => {
        const tenant = 'docs-crud';
        expect(await hasStatistics()).toBe(false);
        const first = await store.insertDocument(
          document({
            tenant,
            filename: 'refunds.md',
            description: 'Refund rules.',
            metadata: { pages: 2 },
            chunks: await chunksFor([
              {
                section: 'Refunds',
                texts: ['Annual plans are refunded pro rata.', 'Monthly plans are not refunded.'],
              },
              {
                section: 'Refunds > Exceptions',
                texts: ['Outages longer than a day are credited.'],
                page: 2,
              },
            ]),
          }),
        );
        expect(first).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          tenant,
          filename: 'refunds.md',
          docType: 'md',
          contentHash: expect.any(String),
          description: 'Refund rules.',
          chunks: 3,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          metadata: { pages: 2 },
        });
        // Two parents and three children, written in batches of two.
        expect(await chunkRows(first.id)).toBe(5);
        // The planner got statistics (PGlite runs no autovacuum; without them it ignores HNSW).
        expect(await hasStatistics()).toBe(true);
        const second = await store.insertDocument(
          document({ tenant, chunks: await chunksFor([{ section: 'Intro', texts: ['Hello.'] }]) }),
        );

        expect((await store.listDocuments(tenant)).map((record) => record.id)).toEqual([
          second.id,
          first.id,
        ]);
        expect(await store.findByHash(tenant, first.contentHash)).toEqual(first);
        expect(await store.stats(tenant)).toEqual({ documents: 2, chunks: 4 });

        expect(await store.deleteDocument(tenant, first.id)).toBe(true);
        expect(await chunkRows(first.id)).toBe(0);
        expect(await store.deleteDocument(tenant, first.id)).toBe(false);
        expect(await store.deleteDocument(tenant, 'not-a-uuid')).toBe(false);
        expect(await store.listDocuments(tenant)).toEqual([second]);
        expect(await store.stats(tenant)).toEqual({ documents: 1, chunks: 1 });
      });

      it('never lists, finds or deletes another tenant’s documents', async () => {
        const owned = await store.insertDocument(
          document({
            tenant: 'owner',
            chunks: await chunksFor([{ section: 'S', texts: ['Secret plans.'] }]),
          }),
        );
        expect(await store.listDocuments('intruder')).toEqual([]);
        expect(await store.findByHash('intruder', owned.contentHash)).toBeUndefined();
        expect(await store.deleteDocument('intruder', owned.id)).toBe(false);
        expect(await store.listDocuments('owner')).toEqual([owned]);
      });

      it('stores the same content once per tenant and reports the duplicate, also when inserts race', async () => {
        const chunks = await chunksFor([
          { section: 'Policy', texts: ['Travel is booked through the portal.'] },
        ]);
        const input = document({ tenant: 'dup', chunks, contentHash: 'same-content' });
        const [a, b] = await Promise.all([
          store.insertDocument(input),
          store.insertDocument(input),
        ]);
        const created = [a, b].filter((record) => record.duplicate !== true);
        const duplicates = [a, b].filter((record) => record.duplicate === true);
        expect(created).toHaveLength(1);
        expect(duplicates).toHaveLength(1);
        expect(duplicates[0]?.id).toBe(created[0]?.id);
        expect(await chunkRows(created[0]!.id)).toBe(2);

        const again = await store.insertDocument({ ...input, filename: 'renamed.md' });
        expect(again).toMatchObject({
          id: created[0]!.id,
          filename: 'handbook.md',
          duplicate: true,
        });
        expect(await store.listDocuments('dup')).toHaveLength(1);

        const elsewhere = await store.insertDocument({ ...input, tenant: 'dup-other' });
        expect(elsewhere.duplicate).toBeUndefined();
        expect(elsewhere.id).not.toBe(created[0]!.id);
      });

      it('writes nothing when a chunk cannot be stored', async () => {
        const before = await store.stats();
        const chunks = await chunksFor([
          { section: 'One', texts: ['First.', 'Second.'] },
          { section: 'Two', texts: ['Third.', 'Fourth.'] },
        ]);
        // The sixth chunk (third batch of two) has an embedding of the wrong size.
        const broken = chunks.map((chunk, index) =>
          index === 5 ? { ...chunk, embedding: [0.6, 0.8] } : chunk,
        );
        const input = document({ tenant: 'atomic', chunks: broken });
        const error = await store.insertDocument(input).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as Error).message).toMatch(
          /could not be stored: expected 64 dimensions, not 2/,
        );
        expect(await store.findByHash('atomic', input.contentHash)).toBeUndefined();
        expect(await store.stats()).toEqual(before);

        const missing = chunks.map((chunk, index) =>
          index === 1 ? { ...chunk, embedding: null } : chunk,
        );
        await expect(store.insertDocument({ ...input, chunks: missing })).rejects.toBeInstanceOf(
          ValidationError,
        );
        const repeated = chunks.map((chunk, index) =>
          index === 4 ? { ...chunk, ordinal: 0 } : chunk,
        );
        await expect(store.insertDocument({ ...input, chunks: repeated })).rejects.toThrow(
          /chunks_document_ordinal_key/,
        );
        expect(await store.stats()).toEqual(before);
        // The connection is still usable.
        await expect(store.insertDocument({ ...input, chunks })).resolves.toMatchObject({
          chunks: 4,
        });
      });
    });

    describe('originals', () => {
      const PDF = Buffer.from(
        '%PDF-1.7\n% the original bytes \u00ff\u0000\u0001 binary tail\n',
        'latin1',
      );
      const digestOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
      const original = (bytes: Uint8Array = PDF, filename = 'contract.pdf') => ({
        bytes,
        mediaType: 'application/pdf',
        filename,
      });

      async function originalRows(tenant: string): Promise<number> {
        const result = await test.database.pool.query<{ count: string }>(
          'SELECT count(*) AS count FROM document_originals WHERE tenant = $1',
          [tenant],
        );
        return Number(result.rows[0]?.count);
      }

      async function oneChunk(): Promise<ChunkToStore[]> {
        return chunksFor([{ section: 'Terms', texts: ['Payment is due in 30 days.'] }]);
      }

      it('keeps the bytes once when the same content is ingested twice, and reads them back', async () => {
        const tenant = `originals-${randomUUID()}`;
        const input = document({ tenant, chunks: await oneChunk(), original: original() });
        const first = await store.insertDocument(input);
        expect(first.original).toEqual({
          digest: digestOf(PDF),
          mediaType: 'application/pdf',
          bytes: PDF.byteLength,
          filename: 'contract.pdf',
        });
        const again = await store.insertDocument({
          ...input,
          original: original(PDF, 'renamed.pdf'),
        });
        expect(again).toMatchObject({ id: first.id, duplicate: true, original: first.original });
        expect(await originalRows(tenant)).toBe(1);

        const read = await store.readOriginal(tenant, first.id);
        expect(read).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(read ?? new Uint8Array()).equals(PDF)).toBe(true);
        expect(await store.getDocument(tenant, first.id)).toEqual(first);
        expect(await store.listDocuments(tenant)).toEqual([first]);
        expect(await store.findByFilename(tenant, 'handbook.md')).toEqual([first]);
        expect(await store.findByFilename(tenant, 'HANDBOOK.md')).toEqual([]);
      });

      it('never reads or finds another tenant’s original', async () => {
        const owner = `originals-owner-${randomUUID()}`;
        const stored = await store.insertDocument(
          document({ tenant: owner, chunks: await oneChunk(), original: original() }),
        );
        expect(await store.readOriginal('intruder', stored.id)).toBeUndefined();
        expect(await store.getDocument('intruder', stored.id)).toBeUndefined();
        expect(await store.findByFilename('intruder', stored.filename)).toEqual([]);
        expect(
          await store.attachOriginal({ tenant: 'intruder', id: stored.id, original: original() }),
        ).toBe(false);
        expect(await store.readOriginal(owner, randomUUID())).toBeUndefined();
        expect(await store.readOriginal(owner, 'not-a-uuid')).toBeUndefined();
      });

      it('deletes the bytes with the last document of the tenant that uses them', async () => {
        const tenant = `originals-shared-${randomUUID()}`;
        const neighbour = `originals-neighbour-${randomUUID()}`;
        // Two documents of one tenant with the same bytes (two content keys), and a neighbour's.
        const a = await store.insertDocument(
          document({ tenant, chunks: await oneChunk(), original: original() }),
        );
        const b = await store.insertDocument(
          document({
            tenant,
            filename: 'copy.pdf',
            chunks: await oneChunk(),
            original: original(PDF, 'copy.pdf'),
          }),
        );
        const theirs = await store.insertDocument(
          document({ tenant: neighbour, chunks: await oneChunk(), original: original() }),
        );
        expect(b.original?.digest).toBe(a.original?.digest);
        // The row is shared: it keeps the name it was first stored under.
        expect(b.original?.filename).toBe('contract.pdf');
        expect(await originalRows(tenant)).toBe(1);

        expect(await store.deleteDocument(tenant, a.id)).toBe(true);
        expect(await originalRows(tenant)).toBe(1);
        expect(Buffer.from((await store.readOriginal(tenant, b.id)) ?? []).equals(PDF)).toBe(true);

        expect(await store.deleteDocument(tenant, b.id)).toBe(true);
        expect(await originalRows(tenant)).toBe(0);
        expect(await originalRows(neighbour)).toBe(1);
        expect(
          Buffer.from((await store.readOriginal(neighbour, theirs.id)) ?? []).equals(PDF),
        ).toBe(true);
      });

      it('keeps the bytes for a document stored while the last other one is deleted', async () => {
        const tenant = `originals-race-${randomUUID()}`;
        for (let round = 0; round < 4; round++) {
          const bytes = Buffer.from(`round ${round} ${randomUUID()}`);
          const old = await store.insertDocument(
            document({ tenant, chunks: await oneChunk(), original: original(bytes) }),
          );
          const [deleted, fresh] = await Promise.all([
            store.deleteDocument(tenant, old.id),
            store.insertDocument(
              document({ tenant, chunks: await oneChunk(), original: original(bytes) }),
            ),
          ]);
          expect(deleted).toBe(true);
          expect(fresh.original?.digest).toBe(digestOf(bytes));
          expect(
            Buffer.from((await store.readOriginal(tenant, fresh.id)) ?? []).equals(bytes),
          ).toBe(true);
        }
      });

      it('attaches bytes to a document stored without them, once', async () => {
        const tenant = `originals-attach-${randomUUID()}`;
        const bare = await store.insertDocument(document({ tenant, chunks: await oneChunk() }));
        expect(bare.original).toBeUndefined();
        expect(await store.readOriginal(tenant, bare.id)).toBeUndefined();

        expect(await store.attachOriginal({ tenant, id: bare.id, original: original() })).toBe(
          true,
        );
        expect((await store.getDocument(tenant, bare.id))?.original?.digest).toBe(digestOf(PDF));
        const other = Buffer.from('other bytes');
        expect(await store.attachOriginal({ tenant, id: bare.id, original: original(other) })).toBe(
          false,
        );
        expect(Buffer.from((await store.readOriginal(tenant, bare.id)) ?? []).equals(PDF)).toBe(
          true,
        );
        expect(await originalRows(tenant)).toBe(1);
        expect(
          await store.attachOriginal({ tenant, id: randomUUID(), original: original(other) }),
        ).toBe(false);
        expect(await originalRows(tenant)).toBe(1);
      });

      it('stores no bytes when the document cannot be stored', async () => {
        const tenant = `originals-atomic-${randomUUID()}`;
        const chunks = (await oneChunk()).map((chunk) =>
          chunk.kind === 'child' ? { ...chunk, embedding: [1, 0] } : chunk,
        );
        await expect(
          store.insertDocument(document({ tenant, chunks, original: original() })),
        ).rejects.toBeInstanceOf(ValidationError);
        expect(await originalRows(tenant)).toBe(0);
      });
    });

    describe('search', () => {
      const tenant = 'search';
      let handbook: string;
      let pricing: string;
      beforeAll(async () => {
        handbook = (
          await store.insertDocument(
            document({
              tenant,
              filename: 'Employee Handbook 2024.md',
              docType: 'md',
              chunks: await chunksFor([
                {
                  section: 'Leave',
                  texts: [
                    'Employees get 25 days of paid vacation per year.',
                    'Parental leave lasts sixteen weeks at full pay.',
                  ],
                },
                {
                  section: 'Expenses',
                  texts: ['Travel expenses are reimbursed within 30 days of the receipt.'],
                  page: 4,
                },
              ]),
            }),
          )
        ).id;
        pricing = (
          await store.insertDocument(
            document({
              tenant,
              filename: 'pricing_100%.csv',
              docType: 'csv',
              chunks: await chunksFor([
                {
                  section: '',
                  texts: [
                    '| plan | price |\n| Pro | 30 EUR per month |',
                    'GPU cluster hours cost 2 EUR each.',
                  ],
                },
              ]),
            }),
          )
        ).id;
        await test.database.pool.query(
          "UPDATE documents SET created_at = '2024-01-15T00:00:00Z' WHERE id = $1",
          [handbook],
        );
        await test.database.pool.query(
          "UPDATE documents SET created_at = '2025-06-01T00:00:00Z' WHERE id = $1",
          [pricing],
        );
      });

      async function search(
        text: string,
        extra: Partial<Parameters<DocumentStore['search']>[0]> = {},
      ) {
        const [embedding] = await embedder.embed([text]);
        return store.search({ tenant, text, embedding: embedding!, ...extra });
      }

      it('finds the chunk that answers, with its parent text, section, page and document', async () => {
        const hits = await search('travel expenses reimbursed');
        expect(hits[0]).toEqual({
          chunkId: expect.stringMatching(/^\d+$/),
          documentId: handbook,
          filename: 'Employee Handbook 2024.md',
          docType: 'md',
          section: 'Expenses',
          page: 4,
          text: 'Travel expenses are reimbursed within 30 days of the receipt.',
          parentText: 'Travel expenses are reimbursed within 30 days of the receipt.',
          score: expect.any(Number),
          vectorRank: 1,
          textRank: 1,
          distance: expect.any(Number),
          metadata: { position: 0 },
        });
        expect(hits[0]!.score).toBeCloseTo(2 / 61, 10);
        // Children only: no parent chunk is ever a hit.
        const parents = await test.database.pool.query<{ id: string }>(
          "SELECT id::text AS id FROM chunks WHERE tenant = $1 AND kind = 'parent'",
          [tenant],
        );
        const parentIds = new Set(parents.rows.map((row) => row.id));
        expect(hits.some((hit) => parentIds.has(hit.chunkId))).toBe(false);
      });

      it('ranks a chunk both arms find above chunks only one arm finds', async () => {
        const local = 'ranking';
        const query = axis(0);
        const chunk = (ordinal: number, text: string, embedding: number[]): ChunkToStore => ({
          ordinal,
          kind: 'child',
          text,
          tokens: 3,
          section: '',
          metadata: {},
          embedding,
        });
        await store.insertDocument(
          document({
            tenant: local,
            chunks: [
              // Nearest vector, no query word.
              chunk(0, 'an unrelated sentence', axis(0)),
              // Second-nearest vector and a text match.
              chunk(1, 'the zebra crossing', axis(0, { index: 1, weight: 0.5 })),
              // Best text match, far vector.
              chunk(2, 'zebra zebra zebra herds', axis(2)),
              // Far from everything.
              chunk(3, 'nothing relevant here', axis(3)),
            ],
          }),
        );
        // Two candidates per arm: the vector arm finds the first two, the text arm the next two.
        const hits = await store.search({
          tenant: local,
          text: 'zebra',
          embedding: query,
          limit: 3,
          candidates: 2,
        });
        expect(hits.map((hit) => hit.text)).toEqual([
          'the zebra crossing',
          'an unrelated sentence',
          'zebra zebra zebra herds',
        ]);
        expect(hits[0]).toMatchObject({ vectorRank: 2, textRank: 2 });
        expect(hits[1]).toMatchObject({ vectorRank: 1 });
        expect(hits[1]!.textRank).toBeUndefined();
        expect(hits[2]).toMatchObject({ textRank: 1 });
        expect(hits[2]!.vectorRank).toBeUndefined();
        expect(hits[0]!.score).toBeCloseTo(1 / 62 + 1 / 62, 10);

        const vectorOnly = await store.search({
          tenant: local,
          text: 'zebra',
          embedding: query,
          mode: 'vector',
        });
        expect(vectorOnly.map((hit) => hit.text)).toEqual([
          'an unrelated sentence',
          'the zebra crossing',
          'zebra zebra zebra herds',
          'nothing relevant here',
        ]);
        expect(vectorOnly.every((hit) => hit.textRank === undefined)).toBe(true);
        expect(vectorOnly[0]!.score).toBeCloseTo(1 / 61, 10);

        const textOnly = await store.search({
          tenant: local,
          text: 'zebra',
          embedding: query,
          mode: 'text',
        });
        expect(textOnly.map((hit) => hit.text)).toEqual([
          'zebra zebra zebra herds',
          'the zebra crossing',
        ]);
        expect(textOnly.every((hit) => hit.vectorRank === undefined)).toBe(true);

        const exact = await store.search({
          tenant: local,
          text: 'zebra',
          embedding: query,
          mode: 'vector',
          exact: true,
        });
        expect(exact.map((hit) => hit.chunkId)).toEqual(vectorOnly.map((hit) => hit.chunkId));
      });

      it('never returns another tenant’s chunks, even with identical text', async () => {
        const text = 'The launch code is stored in the vault.';
        const chunks = await chunksFor([{ section: 'Secrets', texts: [text] }]);
        const mine = await store.insertDocument(document({ tenant: 'tenant-a', chunks }));
        const theirs = await store.insertDocument(document({ tenant: 'tenant-b', chunks }));
        const [embedding] = await embedder.embed([text]);
        for (const mode of ['hybrid', 'vector', 'text'] as const) {
          for (const exact of [false, true]) {
            const hits = await store.search({
              tenant: 'tenant-a',
              text,
              embedding: embedding!,
              mode,
              exact,
            });
            expect(hits.length).toBeGreaterThan(0);
            expect(new Set(hits.map((hit) => hit.documentId))).toEqual(new Set([mine.id]));
          }
        }
        const none = await store.search({ tenant: 'tenant-c', text, embedding: embedding! });
        expect(none).toEqual([]);
        expect(theirs.id).not.toBe(mine.id);
      });

      it('filters by document type, filename and date in both arms', async () => {
        const documents = async (extra: Parameters<typeof search>[1]) =>
          new Set((await search('EUR price per month leave', extra)).map((hit) => hit.documentId));

        expect(await documents({})).toEqual(new Set([handbook, pricing]));
        expect(await documents({ filters: { docTypes: ['csv'] } })).toEqual(new Set([pricing]));
        expect(await documents({ filters: { docTypes: ['pdf'] } })).toEqual(new Set());
        expect(await documents({ filters: { filenames: ['handbook'] } })).toEqual(
          new Set([handbook]),
        );
        // Case-insensitive substrings; % and _ match literally.
        expect(await documents({ filters: { filenames: ['PRICING_100%'] } })).toEqual(
          new Set([pricing]),
        );
        expect(await documents({ filters: { filenames: ['pricing%100'] } })).toEqual(new Set());
        expect(await documents({ filters: { filenames: ['nope', 'HANDBOOK'] } })).toEqual(
          new Set([handbook]),
        );
        expect(await documents({ filters: { createdAfter: '2025-01-01' } })).toEqual(
          new Set([pricing]),
        );
        expect(await documents({ filters: { createdBefore: '2025-01-01' } })).toEqual(
          new Set([handbook]),
        );
        expect(
          await documents({
            filters: {
              createdAfter: '2024-01-15T00:00:00Z',
              createdBefore: '2024-01-16T00:00:00Z',
            },
          }),
        ).toEqual(new Set([handbook]));
        for (const mode of ['vector', 'text'] as const) {
          expect(await documents({ mode, filters: { docTypes: ['csv'] } })).toEqual(
            new Set([pricing]),
          );
        }
        await expect(
          search('x', { filters: { createdAfter: 'yesterday' } }),
        ).rejects.toBeInstanceOf(ValidationError);
      });

      it('matches any word of a plain question, and websearch syntax as written', async () => {
        const texts = async (query: string) =>
          (await search(query, { mode: 'text' })).map((hit) => hit.text);
        const vacation = 'Employees get 25 days of paid vacation per year.';
        expect(await texts('How many vacation days do employees get?')).toContain(vacation);
        expect((await texts('vacation days employees'))[0]).toBe(vacation);
        expect(await texts('"parental leave" -vacation')).toEqual([
          'Parental leave lasts sixteen weeks at full pay.',
        ]);
        expect(await texts('"vacation leave"')).toEqual([]);
        // Only stop words: nothing to match, and no error.
        expect(await texts('the of and')).toEqual([]);
      });

      it('reports a query embedding of the wrong size as a ValidationError', async () => {
        await expect(store.search({ tenant, text: 'x', embedding: [1, 0] })).rejects.toBeInstanceOf(
          ValidationError,
        );
      });

      it('uses the HNSW index for the vector arm, and not with exact', async () => {
        const [embedding] = await embedder.embed(['vacation days']);
        const plan = async (exact: boolean): Promise<string> => {
          const query = buildSearchQuery(
            { tenant, text: 'vacation days', embedding: embedding!, exact },
            { iterativeScan: true },
          );
          const client = await test.database.pool.connect();
          try {
            await client.query('BEGIN');
            // On a table this small the planner rightly prefers the tenant's btree index (or a
            // sequential scan) and a sort. Take both away, inside a transaction that is rolled back,
            // to see whether the HNSW index can serve the query at all.
            await client.query('DROP INDEX chunks_tenant_document_idx');
            await client.query('SET LOCAL enable_seqscan = off');
            for (const setting of query.settings) await client.query(setting);
            const result = await client.query<{ 'QUERY PLAN': string }>(
              `EXPLAIN ${query.text}`,
              query.values,
            );
            return result.rows.map((row) => row['QUERY PLAN']).join('\n');
          } finally {
            await client.query('ROLLBACK');
            client.release();
          }
        };
        expect(await plan(false)).toContain('chunks_embedding_hnsw_idx');
        expect(await plan(true)).not.toContain('chunks_embedding_hnsw_idx');
        const indexes = await test.database.pool.query(
          "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'chunks_tenant_document_idx'",
        );
        expect(indexes.rowCount).toBe(1);
      });
    });
  });
}
