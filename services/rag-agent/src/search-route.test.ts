import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  createMessage,
  documentSearchResultSchema,
  RESULT_ARTIFACT_NAME,
  type Part,
  type Task,
} from '@fleet/a2a';
import { errorBodySchema } from '@fleet/errors';
import { createHashedEmbedder } from '@fleet/llm';
import { createDocumentStore, migrate } from './store';
import { openTestDatabase, type TestDatabase } from './store/open-test-database';
import {
  bootRagAgent,
  documentsParts,
  filePart,
  TEST_TOKEN,
  type RunningRagAgent,
} from './test-support/boot-rag-agent';

const SLOW = 120_000;

const LEAVE = `# Leave policy

## Annual leave

Every employee gets 28 days of annual leave a year, booked through the HR portal.
`;

const EXPENSES = `# Expenses

## Receipts

Receipts for travel expenses are due within 30 days of the purchase.
`;

describe('the RAG agent’s search route (POST /internal/search)', () => {
  let redis: Redis;
  let database: TestDatabase;
  let agent: RunningRagAgent;
  const prefix = `test:rag-agent-search:${randomUUID()}`;
  const tenant = `t-${randomUUID()}`;
  const embedder = createHashedEmbedder();
  let leaveId: string;
  let tasksBefore: string[];

  async function ingest(owner: string, filename: string, text: string): Promise<string> {
    const parts: Part[] = documentsParts({ op: 'ingest', tenant: owner }, [
      filePart({ filename, mediaType: 'text/markdown', bytes: Buffer.from(text) }),
    ]);
    const task = (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const data = task.artifacts
      ?.find((artifact) => artifact.name === RESULT_ARTIFACT_NAME)
      ?.parts.find((part) => part.data !== undefined)?.data as { documents: { id: string }[] };
    const id = data.documents[0]?.id;
    if (id === undefined) throw new Error('ingest stored nothing');
    return id;
  }

  function search(owner: string, body: unknown, token: string | null = TEST_TOKEN) {
    return fetch(`${agent.url}/internal/search?tenant=${encodeURIComponent(owner)}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
    });
  }

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    database = await openTestDatabase();
    await migrate(database.database.pool, {
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
    });
    agent = await bootRagAgent({
      redis,
      keyPrefix: prefix,
      store: createDocumentStore({ pool: database.database.pool }),
      embedder,
    });
    leaveId = await ingest(tenant, 'leave.md', LEAVE);
    await ingest(tenant, 'expenses.md', EXPENSES);
    await ingest(`other-${tenant}`, 'other-leave.md', LEAVE.replace('28', '40'));
    tasksBefore = await redis.keys(`${prefix}:*`);
  }, SLOW);

  afterAll(async () => {
    await agent?.close();
    await database?.dispose();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }, SLOW);

  it('runs the hybrid search over the tenant’s documents, best first, and keeps no task', async () => {
    const response = await search(tenant, { query: 'how many days of annual leave', limit: 2 });
    expect(response.status).toBe(200);
    const result = documentSearchResultSchema.parse(await response.json());
    expect(result.query).toBe('how many days of annual leave');
    expect(result.searchMode).toBe('hybrid');
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.hits.length).toBeLessThanOrEqual(2);
    expect(result.hits[0]).toMatchObject({
      documentId: leaveId,
      filename: 'leave.md',
      docType: 'md',
      section: expect.stringContaining('Annual leave'),
    });
    expect(result.hits[0]?.text).toContain('28 days');
    // Without the chunker's `Document:`/`Section:` prefix.
    expect(result.hits[0]?.text).not.toMatch(/^Document:/);
    expect(result.hits.map((hit) => hit.filename)).not.toContain('other-leave.md');
    expect(await redis.keys(`${prefix}:*`)).toEqual(expect.arrayContaining(tasksBefore));
    expect((await redis.keys(`${prefix}:*`)).length).toBe(tasksBefore.length);
  });

  it('takes 8 passages by default', async () => {
    const response = await search(tenant, { query: 'receipts travel expenses' });
    const result = documentSearchResultSchema.parse(await response.json());
    expect(result.hits[0]?.filename).toBe('expenses.md');
    expect(result.hits.length).toBeLessThanOrEqual(8);
  });

  it('finds nothing in a tenant without documents', async () => {
    const response = await search(`empty-${tenant}`, { query: 'annual leave' });
    const result = documentSearchResultSchema.parse(await response.json());
    expect(result.hits).toEqual([]);
    expect(result.confidence).toBe(0);
  });

  it.each([
    ['an empty query', { query: '' }],
    ['a limit over 50', { query: 'leave', limit: 51 }],
    ['a query that is not a string', { query: 7 }],
  ])('answers 400 for %s', async (_case, body) => {
    const response = await search(tenant, body);
    expect(response.status).toBe(400);
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('VALIDATION_FAILED');
  });

  it('refuses a request without the internal token', async () => {
    const response = await search(tenant, { query: 'leave' }, null);
    expect(response.status).toBe(401);
  });
});
