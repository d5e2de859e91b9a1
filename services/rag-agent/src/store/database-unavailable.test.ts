import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createMessage, dataPart, type Task } from '@fleet/a2a';
import { InMemoryTaskStore, type AgentEvent } from '@fleet/a2a/server';
import { FleetError } from '@fleet/errors';
import { silentLogger } from '@fleet/http';
import { createHashedEmbedder } from '@fleet/llm';
import { createRagAgent, createRagHandler } from '../agent';
import { createAnswerer } from '../answering';
import { createApp } from '../app';
import { createDocumentService } from '../documents';
import { createRetriever } from '../retrieval';
import { createDocumentStore } from './create-document-store';
import { createVectorPool, registerVectorTypes } from './create-vector-pool';
import { databaseReadinessCheck } from './database-readiness';
import type { DocumentStore } from './document-store';
import { migrate } from './migrate';
import { startEmbeddedServer } from './start-embedded-server';

const SLOW = 120_000;
const embedder = createHashedEmbedder();

/** A port on 127.0.0.1 that nothing listens on. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function expectUnavailable(error: unknown): void {
  expect(FleetError.isInstance(error)).toBe(true);
  const fleetError = error as FleetError;
  expect(fleetError.code).toBe('SERVICE_UNAVAILABLE');
  expect(fleetError.status).toBe(503);
  expect(fleetError.isRetryable).toBe(true);
  expect(fleetError.retryAfterSeconds).toBeGreaterThan(0);
  expect(fleetError.message).toMatch(/RAG database/);
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a failure'),
    (error: unknown) => error,
  );
}

/** Every store operation, against `store`. */
function storeOperations(store: DocumentStore): (() => Promise<unknown>)[] {
  const embedding = new Array<number>(embedder.dimensions).fill(0.1);
  return [
    () => store.listDocuments('t'),
    () => store.findByHash('t', 'a'.repeat(64)),
    () => store.deleteDocument('t', '00000000-0000-4000-8000-000000000000'),
    () => store.getDocument('t', '00000000-0000-4000-8000-000000000000'),
    () => store.findByFilename('t', 'a.md'),
    () => store.readOriginal('t', '00000000-0000-4000-8000-000000000000'),
    () =>
      store.attachOriginal({
        tenant: 't',
        id: '00000000-0000-4000-8000-000000000000',
        original: { bytes: new Uint8Array([1]), mediaType: 'text/plain', filename: 'a.txt' },
      }),
    () => store.search({ tenant: 't', text: 'vacation', embedding }),
    () => store.stats('t'),
    () =>
      store.insertDocument({
        tenant: 't',
        filename: 'a.md',
        docType: 'md',
        contentHash: 'b'.repeat(64),
        description: '',
        chunks: [
          {
            ordinal: 0,
            kind: 'child',
            text: 'text',
            tokens: 1,
            section: '',
            metadata: {},
            embedding,
          },
        ],
      }),
  ];
}

async function runAgent(store: DocumentStore, parts: Parameters<typeof createMessage>[0]['parts']) {
  const execute = createRagAgent({
    documents: createDocumentService({ store, embedder }),
    retriever: createRetriever({ store, embedder }),
    answerer: createAnswerer(),
  });
  const events: AgentEvent[] = [];
  for await (const event of execute({
    taskId: 't1',
    contextId: 'c1',
    message: createMessage({ parts }),
    task: {} as Task,
    isContinuation: false,
    signal: new AbortController().signal,
    claimOnce: () => Promise.resolve(true),
  })) {
    events.push(event);
  }
  return events;
}

describe('the RAG database unreachable', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }, SLOW);

  it('fails every store, document, search and agent operation with a retryable 503, and is not ready', async () => {
    const pool = createVectorPool({
      host: '127.0.0.1',
      port: await unusedPort(),
      user: 'postgres',
      database: 'postgres',
      max: 1,
    });
    cleanups.push(() => pool.end());
    const store = createDocumentStore({ pool });
    for (const operation of storeOperations(store)) expectUnavailable(await failure(operation()));

    const documents = createDocumentService({ store, embedder });
    const bytes = new TextEncoder().encode('# Leave\n\nEmployees get 28 days of vacation.');
    expectUnavailable(
      await failure(documents.ingest({ tenant: 't', files: [{ filename: 'a.md', bytes }] })),
    );
    expectUnavailable(await failure(documents.list('t')));
    expectUnavailable(
      await failure(documents.delete({ tenant: 't', id: '00000000-0000-4000-8000-000000000000' })),
    );
    const retriever = createRetriever({ store, embedder });
    expectUnavailable(await failure(retriever.retrieve({ tenant: 't', question: 'vacation?' })));

    // The agent fails the task with the fleet's error data part, as it does for a bad file.
    const events = await runAgent(store, [dataPart({ documents: { op: 'list', tenant: 't' } })]);
    const last = events[events.length - 1];
    expect(last).toMatchObject({ type: 'status', state: 'TASK_STATE_FAILED' });
    const parts = last?.type === 'status' && Array.isArray(last.message) ? last.message : [];
    expect(parts).toContainEqual(
      expect.objectContaining({
        data: {
          error: expect.objectContaining({
            code: 'SERVICE_UNAVAILABLE',
            details: expect.objectContaining({ retryAfterSeconds: expect.any(Number) }),
          }),
          // The fleet's mark of a step worth sending again (docs/a2a.md).
          retryable: true,
        },
      }),
    );

    const handler = createRagHandler({
      documents,
      retriever,
      answerer: createAnswerer(),
      store: new InMemoryTaskStore(),
      url: 'http://127.0.0.1:1',
    });
    cleanups.push(() => handler.close());
    const app = createApp({
      handler,
      internalToken: 'rag-agent-test-token-0123456789',
      logger: silentLogger,
      readinessChecks: { database: databaseReadinessCheck(pool) },
      metrics: false,
    });
    const ready = await request(app).get('/readyz').expect(503);
    expect(ready.body.checks.database).toMatch(/RAG database/);
  });

  it(
    'fails with a 503 once the embedded server stops, after working before',
    async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rag-unavailable-'));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      const server = await startEmbeddedServer({ dataDir, maxConnections: 2 });
      let stopped = false;
      cleanups.push(() => (stopped ? Promise.resolve() : server.stop()));
      const pool = createVectorPool({
        host: server.host,
        port: server.port,
        user: 'postgres',
        database: 'postgres',
        max: 1,
        idleTimeoutMillis: 0,
      });
      pool.on('error', () => undefined);
      cleanups.push(() => pool.end());
      await registerVectorTypes(pool);
      await migrate(pool, { embeddingModel: embedder.model, dimensions: embedder.dimensions });
      const store = createDocumentStore({ pool });
      await expect(store.listDocuments('t')).resolves.toEqual([]);
      await databaseReadinessCheck(pool)();

      await server.stop();
      stopped = true;
      for (const operation of storeOperations(store)) expectUnavailable(await failure(operation()));
      expectUnavailable(await failure(databaseReadinessCheck(pool)()));
    },
    SLOW,
  );
});
