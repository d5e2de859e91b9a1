import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import request from 'supertest';
import { createMessage, RESULT_ARTIFACT_NAME, type Part, type Task } from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { answerResultDataSchema, errorDataSchema } from '../agent';
import { embeddingSettings } from '../config';
import { createDocumentService } from '../documents';
import { createRetriever } from '../retrieval';
import { createDocumentStore, migrate, openDatabase, readStoredEmbedding } from '../store';
import { silentLogger } from '../store/open-test-database';
import {
  bootRagAgent,
  documentsParts,
  filePart,
  nodeParts,
  type RunningRagAgent,
} from '../test-support/boot-rag-agent';
import { startFixedSizeEmbeddings } from '../test-support/fixed-size-embeddings';
import { openEmbeddings } from './open-embeddings';

const SLOW = 120_000;
const REDIS_URL = 'redis://127.0.0.1:6379';

const HANDBOOK = `# Handbook

## Vacation

Full-time employees receive 28 days of paid vacation per year.

## Parental leave

Every parent receives 18 weeks of parental leave at full salary.
`;

function markdown(content: string, filename: string): Part {
  return filePart({
    filename,
    mediaType: 'text/markdown',
    bytes: new TextEncoder().encode(content),
  });
}

async function send(agent: RunningRagAgent, parts: Part[]): Promise<Task> {
  return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
}

function result(task: Task): { text: string | undefined; data: unknown } {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return {
    text: artifact?.parts.find((part) => part.text !== undefined)?.text,
    data: artifact?.parts.find((part) => part.data !== undefined)?.data,
  };
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not come true in time');
    await sleep(20);
  }
}

describe('degraded mode (full-text search only)', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  const directories: string[] = [];
  const prefix = `test:rag-agent:degraded:${randomUUID()}`;

  async function dataDir(): Promise<string> {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'rag-degraded-test-'));
    directories.push(directory);
    return directory;
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    llm = await startScriptedOpenAI();
  });

  afterAll(async () => {
    await llm.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await Promise.all(
      directories.map((directory) => rm(directory, { recursive: true, force: true })),
    );
  }, SLOW);

  it(
    'starts offline on a store of upstream embeddings: answers from full text saying so, /readyz degraded, new documents refused',
    async () => {
      const directory = await dataDir();
      const tenant = `t-${randomUUID()}`;

      // First start: the scripted upstream computes the store's embeddings.
      const first = await openDatabase({ dataDir: directory, logger: silentLogger });
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
      const online = await openEmbeddings({
        embedding: embeddingSettings({ config: {}, offline: false, stored: undefined }),
        client,
        stored: undefined,
      });
      expect(online.outage()).toBeUndefined();
      await migrate(first.pool, { embeddingModel: online.model, dimensions: online.dimensions });
      const ingested = await createDocumentService({
        store: createDocumentStore({ pool: first.pool }),
        embedder: online.embedder,
      }).ingest({
        tenant,
        files: [{ filename: 'handbook.md', bytes: new TextEncoder().encode(HANDBOOK) }],
      });
      expect(ingested).toHaveLength(1);
      online.close();
      await first.close();

      // Second start: offline, the same data directory.
      const database = await openDatabase({ dataDir: directory, logger: silentLogger });
      let agent: RunningRagAgent | undefined;
      try {
        const stored = await readStoredEmbedding(database.pool);
        expect(stored).toEqual({ model: 'text-embedding-3-small', dimensions: 1536 });
        const embeddings = await openEmbeddings({
          embedding: embeddingSettings({ config: {}, offline: true, stored }),
          client: undefined,
          stored,
        });
        await migrate(database.pool, {
          embeddingModel: embeddings.model,
          dimensions: embeddings.dimensions,
        });
        agent = await bootRagAgent({
          redis,
          keyPrefix: `${prefix}:offline`,
          store: createDocumentStore({ pool: database.pool }),
          embeddings,
        });

        const ready = await request(agent.server.server).get('/readyz').expect(200);
        expect(ready.body).toEqual({
          status: 'degraded',
          checks: {
            redis: 'ok',
            embeddings:
              'degraded: full-text search only: the RAG store holds text-embedding-3-small embeddings (1536 dimensions), and no upstream is configured to compute them. Start the fleet again with the upstream that computed them (OPENAI_API_KEY or OPENAI_BASE_URL), or point RAG_DATA_DIR at a fresh store (or remove it) to ingest the documents again with the local embeddings.',
          },
        });

        const answered = await send(
          agent,
          nodeParts({ question: 'How many weeks of parental leave does a parent get?', tenant }),
        );
        expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
        const { text, data } = result(answered);
        const notice =
          'Only full-text search was used (the RAG store holds text-embedding-3-small embeddings (1536 dimensions), and no upstream is configured to compute them), so passages that say it in other words may be missed.';
        expect(text?.startsWith(`${notice}\n`)).toBe(true);
        expect(text).toContain('18 weeks of parental leave');
        expect(answerResultDataSchema.parse(data)).toMatchObject({
          searchMode: 'text',
          warnings: [notice],
          answeredBy: 'extractive',
        });

        const refused = await send(
          agent,
          documentsParts({ op: 'ingest', tenant }, [markdown('# Notes\n\nNew text.', 'notes.md')]),
        );
        expect(refused.status.state).toBe('TASK_STATE_FAILED');
        const error = errorDataSchema.parse(
          refused.status.message?.parts.find((part) => part.data !== undefined)?.data,
        ).error;
        expect(error.code).toBe('SERVICE_UNAVAILABLE');
        expect(error.message).toMatch(
          /^Documents cannot be ingested while the RAG agent runs with full-text search only: the RAG store holds text-embedding-3-small embeddings/,
        );
        expect(error.details).toMatchObject({ reason: 'embeddings_unavailable' });

        // What the store already holds is still recognised: `fleet up` reports the corpus unchanged.
        const again = await send(
          agent,
          documentsParts({ op: 'ingest', tenant }, [markdown(HANDBOOK, 'handbook.md')]),
        );
        expect(again.status.state).toBe('TASK_STATE_COMPLETED');
        expect(result(again).data).toMatchObject({ documents: [{ duplicate: true }] });
        embeddings.close();
      } finally {
        await agent?.close();
        await database.close();
      }
    },
    SLOW,
  );

  it(
    'names the size an upstream returned when it is not the one expected, re-checks, and lets an empty store take the new size',
    async () => {
      const upstream = await startFixedSizeEmbeddings({ dimensions: 768 });
      const database = await openDatabase({ dataDir: await dataDir(), logger: silentLogger });
      try {
        const client = new OpenAI({ apiKey: 'sk-test', baseURL: upstream.baseURL, maxRetries: 0 });
        const embeddings = await openEmbeddings({
          embedding: embeddingSettings({ config: {}, offline: false, stored: undefined }),
          client,
          stored: undefined,
          recheckIntervalMs: 50,
        });
        expect(embeddings.outage()).toEqual({
          reason:
            "the embedding model text-embedding-3-small returned 768-dimensional vectors, but the RAG store expects 1536 (EMBEDDING_DIMENSIONS, or the model's known size)",
          remedy:
            'Set EMBEDDING_DIMENSIONS=768 (or an EMBEDDING_MODEL whose vectors have 1536 dimensions) and start again; a store without documents takes the new size.',
        });
        expect(embeddings.readinessCheck()).toEqual({
          degraded: expect.stringMatching(/^full-text search only: the embedding model/),
        });
        await expect(embeddings.embedder.embed(['text'])).rejects.toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
        });
        await migrate(database.pool, { embeddingModel: embeddings.model, dimensions: 1536 });

        // The model changes at the upstream: the periodic re-check turns vector search back on.
        upstream.dimensions = 1536;
        await until(() => embeddings.outage() === undefined);
        expect(embeddings.readinessCheck()).toBeUndefined();
        embeddings.close();

        // The advice taken: EMBEDDING_DIMENSIONS=768, and the empty store takes the new size.
        upstream.dimensions = 768;
        const stored = await readStoredEmbedding(database.pool);
        const sized = await openEmbeddings({
          embedding: embeddingSettings({
            config: { embeddingDimensions: 768 },
            offline: false,
            stored,
          }),
          client,
          stored,
        });
        expect(sized.outage()).toBeUndefined();
        const { replaced } = await migrate(database.pool, {
          embeddingModel: sized.model,
          dimensions: sized.dimensions,
        });
        expect(replaced).toEqual({ model: 'text-embedding-3-small', dimensions: 1536 });
        expect(await readStoredEmbedding(database.pool)).toEqual({
          model: 'text-embedding-3-small',
          dimensions: 768,
        });
        const store = createDocumentStore({ pool: database.pool });
        await createDocumentService({ store, embedder: sized.embedder }).ingest({
          tenant: 'acme',
          files: [{ filename: 'handbook.md', bytes: new TextEncoder().encode(HANDBOOK) }],
        });
        const [vector] = await sized.embedder.embed(['parental leave']);
        const hits = await store.search({
          tenant: 'acme',
          text: 'parental leave',
          embedding: vector,
        });
        expect(hits.length).toBeGreaterThan(0);
        sized.close();

        // One question whose embedding fails is answered from full text, saying so.
        const failing = {
          model: sized.model,
          dimensions: sized.dimensions,
          embed: () => Promise.reject(new Error('429 rate limited')),
        };
        const retrieval = await createRetriever({ store, embedder: failing }).retrieve({
          tenant: 'acme',
          question: 'How long is parental leave?',
        });
        expect(retrieval.searchMode).toBe('text');
        expect(retrieval.notice).toBe(
          'Only full-text search was used (the embedding model failed: 429 rate limited), so passages that say it in other words may be missed.',
        );
        expect(retrieval.chunks.map((chunk) => chunk.section).join(' ')).toContain(
          'Parental leave',
        );
      } finally {
        await database.close();
        await upstream.close();
      }
    },
    SLOW,
  );
});
