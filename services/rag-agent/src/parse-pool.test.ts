/**
 * Uploads are read on the parse pool's worker threads: a document that takes long to read blocks
 * neither another tenant's question nor `/readyz` nor another tenant's upload; it is stopped at
 * its time budget with a 413 naming RAG_PARSE_TIMEOUT_MS; a full queue answers a retryable 503;
 * tenants are served round-robin.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMessage, type Part, type Task } from '@fleet/a2a';
import { createHashedEmbedder } from '@fleet/llm';
import { pseudoProse } from './ingestion/__fixtures__/build-hostile';
import {
  createDocumentReader,
  type CreateDocumentReaderOptions,
  type DocumentReader,
} from './ingestion';
import { createDocumentStore, migrate, type DocumentStore } from './store';
import { openTestDatabase, type TestDatabase } from './store/open-test-database';
import {
  bootRagAgent,
  documentsParts,
  filePart,
  nodeParts,
  type RunningRagAgent,
} from './test-support/boot-rag-agent';
import { loadDemoDocuments } from './test-support/demo-corpus';

const SLOW = 180_000;
const REDIS_URL = 'redis://127.0.0.1:6379';
const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;

/** About 4 MB of prose in sentences: some ten seconds of parsing and chunking, far past the budget. */
const MONSTER = new TextEncoder().encode(
  pseudoProse(4_000_000).replace(/(\S+ ){12}/g, (words) => `${words.trimEnd()}.\n`),
);

const HANDBOOK = `# Handbook

## Parental leave

Every parent receives 18 weeks of parental leave at full salary.
`;

function markdown(text: string, filename: string): Part {
  return filePart({ filename, mediaType: 'text/markdown', bytes: new TextEncoder().encode(text) });
}

function statusData(task: Task): Record<string, unknown> | undefined {
  return task.status.message?.parts.find((part) => part.data !== undefined)?.data as
    Record<string, unknown> | undefined;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 60_000) throw new Error(`gave up waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('reading uploads on the parse pool', () => {
  let redis: Redis;
  let database: TestDatabase;
  let store: DocumentStore;
  const prefix = `test:rag-parse-pool:${randomUUID()}`;
  const embedder = createHashedEmbedder();
  const running: { agent: RunningRagAgent; reader: DocumentReader }[] = [];

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    database = await openTestDatabase();
    await migrate(database.database.pool, {
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
    });
    store = createDocumentStore({ pool: database.database.pool });
  }, SLOW);

  afterEach(async () => {
    for (const { agent, reader } of running.splice(0)) {
      await agent.close();
      await reader.close();
    }
  }, SLOW);

  afterAll(async () => {
    await database?.dispose();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }, SLOW);

  /** A RAG agent reading through a pool of its own, its workers started (loaded) already. */
  async function boot(options: CreateDocumentReaderOptions) {
    const reader = createDocumentReader({ idleTimeoutMs: 600_000, ...options });
    const agent = await bootRagAgent({
      redis,
      keyPrefix: `${prefix}:${randomUUID()}`,
      store,
      embedder,
      maxUploadBytes: MAX_UPLOAD_BYTES,
      reader,
      readinessChecks: {
        database: async () => {
          await database.database.pool.query('SELECT 1');
        },
      },
    });
    running.push({ agent, reader });
    const send = async (parts: Part[]): Promise<Task> =>
      (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
    const ingest = (tenant: string, file: Part) =>
      send(documentsParts({ op: 'ingest', tenant }, [file]));
    // One small upload per worker, from different tenants at once, so every worker is loaded.
    await Promise.all(
      Array.from({ length: options.workers ?? 2 }, (_, index) =>
        ingest(`warm-${index}`, markdown(`# Warm ${index}\n\nA note ${randomUUID()}.`, 'w.md')),
      ),
    );
    return { agent, reader, send, ingest };
  }

  it(
    'reads every format on its worker threads: PDF, DOCX, XLSX, CSV, Markdown, HTML and text',
    async () => {
      const { ingest } = await boot({ workers: 2 });
      const files = await loadDemoDocuments();
      const tasks = await Promise.all(
        files.map((file) =>
          ingest(
            `formats-${file.filename}`,
            filePart({
              filename: file.filename,
              bytes: file.bytes,
              ...(file.mediaType === undefined ? {} : { mediaType: file.mediaType }),
            }),
          ),
        ),
      );
      expect(tasks.map((task) => task.status.state)).toEqual(
        files.map(() => 'TASK_STATE_COMPLETED'),
      );
    },
    SLOW,
  );

  it(
    'keeps answering another tenant while a monster is read, and stops the monster at its time budget with a 413',
    async () => {
      const { agent, send, ingest, reader } = await boot({ workers: 2, timeoutMs: 3000 });
      await ingest('reader-b', markdown(HANDBOOK, 'handbook.md'));

      let monsterSettled = false;
      const monster = ingest('monster-a', filePart({ filename: 'monster.txt', bytes: MONSTER }));
      void monster.finally(() => {
        monsterSettled = true;
      });
      await until(() => reader.stats().running === 1, 'the monster is being read');

      const question = await send(
        nodeParts({ question: 'How long is parental leave?', tenant: 'reader-b' }),
      );
      const ready = await fetch(`${agent.url}/readyz`);
      const small = await ingest(
        'reader-b',
        markdown(`# Note\n\n${randomUUID()} opens at 8.`, 'n.md'),
      );
      // All three answered while the monster was still being read.
      expect(monsterSettled).toBe(false);
      expect(question.status.state).toBe('TASK_STATE_COMPLETED');
      expect(ready.status).toBe(200);
      expect(small.status.state).toBe('TASK_STATE_COMPLETED');

      const failed = await monster;
      expect(failed.status.state).toBe('TASK_STATE_FAILED');
      expect(statusData(failed)).toMatchObject({
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: expect.stringContaining('RAG_PARSE_TIMEOUT_MS'),
          details: { filename: 'monster.txt', limit: 'RAG_PARSE_TIMEOUT_MS', max: 3000 },
        },
      });
      // The stopped worker was replaced: the next upload is read.
      const after = await ingest(
        'monster-a',
        markdown('# After\n\nStill reading uploads.', 'a.md'),
      );
      expect(after.status.state).toBe('TASK_STATE_COMPLETED');
    },
    SLOW,
  );

  it(
    'fails an upload with a retryable 503 when the tenant’s share of the queue is full, and still takes another tenant’s',
    async () => {
      const { ingest, reader } = await boot({ workers: 1, timeoutMs: 2000, maxQueued: 2 });
      const monster = (name: string) => filePart({ filename: name, bytes: MONSTER });
      const first = ingest('busy-a', monster('m1.txt'));
      await until(() => reader.stats().running === 1, 'the first upload is being read');
      const second = ingest('busy-a', monster('m2.txt'));
      await until(() => reader.stats().queued === 1, 'the second upload waits');

      const refused = await ingest('busy-a', monster('m3.txt'));
      expect(refused.status.state).toBe('TASK_STATE_FAILED');
      expect(statusData(refused)).toMatchObject({
        retryable: true,
        error: {
          code: 'SERVICE_UNAVAILABLE',
          details: { reason: 'busy', scope: 'tenant', retryAfterSeconds: 5 },
        },
      });
      // The queue has room for another tenant's upload, which is read after the first.
      const other = await ingest('busy-b', markdown('# B\n\nAnother tenant’s note.', 'b.md'));
      expect(other.status.state).toBe('TASK_STATE_COMPLETED');
      await Promise.all([first, second]);
    },
    SLOW,
  );

  it(
    'reads another tenant’s upload before the rest of one tenant’s queue',
    async () => {
      // A budget long enough that b1 is surely queued while a1 still runs, even on a busy machine.
      const { ingest, reader } = await boot({ workers: 1, timeoutMs: 6000, maxQueued: 8 });
      const settled: string[] = [];
      const track = (label: string, upload: Promise<Task>) =>
        upload.then((task) => {
          settled.push(label);
          return task;
        });
      const monster = (name: string) => filePart({ filename: name, bytes: MONSTER });
      const a1 = track('a1', ingest('fair-a', monster('a1.txt')));
      await until(() => reader.stats().running === 1, 'a1 is being read');
      const a2 = track('a2', ingest('fair-a', monster('a2.txt')));
      const a3 = track('a3', ingest('fair-a', monster('a3.txt')));
      await until(() => reader.stats().queued === 2, 'a2 and a3 wait');
      const b1 = track('b1', ingest('fair-b', markdown('# B\n\nA short note.', 'b1.md')));
      // The order is decided when a1's worker is free: b1 must be waiting by then.
      await until(() => reader.stats().queued === 3, 'b1 waits beside a2 and a3');
      expect(reader.stats().running).toBe(1);
      await Promise.all([a1, a2, a3, b1]);
      expect(settled.indexOf('b1')).toBeLessThan(settled.indexOf('a2'));
      expect((await b1).status.state).toBe('TASK_STATE_COMPLETED');
    },
    SLOW,
  );
});
