import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createHashedEmbedder, type Embedder } from '@fleet/llm';
import { PayloadTooLargeError } from '@fleet/errors';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createDocumentStore, migrate, type DocumentStore } from '../store';
import { openTestDatabase, type TestDatabase } from '../store/open-test-database';
import { createDocumentService } from './create-document-service';
import { formatBytes } from './format-bytes';

const SLOW = 120_000;

function upload(filename: string, content: string) {
  return { filename, mediaType: 'text/markdown', bytes: new TextEncoder().encode(content) };
}

const LONG = Array.from(
  { length: 12 },
  (_, index) =>
    `## Section ${index + 1}\n\n${`Paragraph ${index + 1} talks about topic ${index + 1} at some length. `.repeat(40)}`,
).join('\n\n');

describe('createDocumentService', () => {
  let database: TestDatabase;
  let store: DocumentStore;
  let llm: ScriptedOpenAI;
  const hashed = createHashedEmbedder();

  beforeAll(async () => {
    [database, llm] = await Promise.all([openTestDatabase(), startScriptedOpenAI()]);
    await migrate(database.database.pool, {
      embeddingModel: hashed.model,
      dimensions: hashed.dimensions,
    });
    store = createDocumentStore({ pool: database.database.pool });
  }, SLOW);

  afterAll(async () => {
    await llm.close();
    await database.dispose();
  }, SLOW);

  it('embeds the children in batches and stores parents without embeddings', async () => {
    const batches: number[] = [];
    const embedder: Embedder = {
      model: hashed.model,
      dimensions: hashed.dimensions,
      embed: (texts, options) => {
        batches.push(texts.length);
        return hashed.embed(texts, options);
      },
    };
    const documents = createDocumentService({ store, embedder, batchSize: 4 });
    const [info] = await documents.ingest({ tenant: 'batches', files: [upload('long.md', LONG)] });
    expect(info?.chunks).toBeGreaterThan(4);
    expect(batches.every((size) => size <= 4)).toBe(true);
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(info?.chunks);
    const kinds = await database.database.pool.query<{ kind: string; embedded: boolean }>(
      'SELECT kind, embedding IS NOT NULL AS embedded FROM chunks WHERE document_id = $1',
      [info?.id],
    );
    expect(kinds.rows.filter((row) => row.kind === 'child').every((row) => row.embedded)).toBe(
      true,
    );
    expect(kinds.rows.some((row) => row.kind === 'parent' && !row.embedded)).toBe(true);
  });

  it('removes the documents of the same command again when storing a later one fails', async () => {
    let inserts = 0;
    const failing: DocumentStore = {
      ...store,
      findByHash: (tenant, hash) => store.findByHash(tenant, hash),
      listDocuments: (tenant) => store.listDocuments(tenant),
      deleteDocument: (tenant, id) => store.deleteDocument(tenant, id),
      insertDocument: async (input) => {
        inserts++;
        if (inserts === 2) throw new Error('the disk is full');
        return store.insertDocument(input);
      },
    };
    const documents = createDocumentService({ store: failing, embedder: hashed });
    await expect(
      documents.ingest({
        tenant: 'rollback',
        files: [upload('a.md', '# A\n\nAlpha.'), upload('b.md', '# B\n\nBravo.')],
      }),
    ).rejects.toThrow('the disk is full');
    expect(await store.listDocuments('rollback')).toEqual([]);
  });

  it('refuses encoded data (long runs without spaces) before chunking it, storing nothing', async () => {
    const documents = createDocumentService({ store, embedder: hashed });
    const encoded = Buffer.from('A'.repeat(1000) + ' ' + 'QUJD'.repeat(100_000)).toString();
    await expect(
      documents.ingest({ tenant: 'encoded', files: [upload('dump.txt', encoded)] }),
    ).rejects.toThrow(/unbroken runs of characters without spaces/);
    expect(await documents.list('encoded')).toEqual([]);
  });

  it('describes a document with the LLM, and falls back to its opening when the LLM fails', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
    const documents = createDocumentService({
      store,
      embedder: hashed,
      llm: { client, model: 'describer' },
    });
    llm.enqueue({ content: 'A note about alpha.' }, { error: { status: 500, message: 'down' } });
    const [described] = await documents.ingest({
      tenant: 'describe',
      files: [upload('alpha.md', '# Alpha\n\nAlpha is the first letter.')],
    });
    expect(described?.description).toBe('A note about alpha.');
    const [fallback] = await documents.ingest({
      tenant: 'describe',
      files: [upload('bravo.md', `# Bravo notes\n\n${'The second letter is bravo. '.repeat(30)}`)],
    });
    expect(fallback?.description).toMatch(/^Bravo notes\. The second letter is bravo\. The .*…$/);
    expect(fallback?.description.length).toBeLessThanOrEqual(301);
    const prompt = (llm.requests[0]?.body as { messages: { content: string }[] }).messages[1];
    expect(prompt?.content).toContain('File: alpha.md');
  });

  it('returns an original only within the limit, and keeps none of an ingest that failed', async () => {
    const embedder = hashed;
    const documents = createDocumentService({ store, embedder });
    const tenant = `originals-${Date.now()}`;
    const [info] = await documents.ingest({
      tenant,
      files: [upload('plan.md', '# Plan\n\nShip it in May.\n')],
    });
    const read = await documents.get({ tenant, id: info?.id ?? '' });
    expect(read.mediaType).toBe('text/markdown; charset=utf-8');
    expect(Buffer.from(read.bytes).toString('utf8')).toBe('# Plan\n\nShip it in May.\n');

    const lowered = createDocumentService({ store, embedder, maxBytes: 10 });
    const error = await lowered
      .get({ tenant, id: info?.id ?? '' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as Error).message).toMatch(/plan\.md is .*returns files of up to 10 B/);

    const failing = await documents
      .ingest({
        tenant: `${tenant}-failed`,
        files: [
          upload('good.md', '# Good\n\nReadable on its own.\n'),
          { filename: 'broken.pdf', bytes: new TextEncoder().encode('%PDF-1.7\n1 0 obj <<') },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(failing).toBeInstanceOf(Error);
    const rows = await database.database.pool.query(
      'SELECT 1 FROM document_originals WHERE tenant = $1',
      [`${tenant}-failed`],
    );
    expect(rows.rowCount).toBe(0);
  });
});

describe('formatBytes', () => {
  it('formats sizes for people', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(25 * 1024 * 1024)).toBe('25 MB');
  });
});
