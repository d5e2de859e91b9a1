import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import request from 'supertest';
import {
  createMessage,
  documentInfoSchema,
  RESULT_ARTIFACT_NAME,
  type Part,
  type StreamResponse,
  type Task,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { InMemoryTaskStore } from '@fleet/a2a/server';
import { UnauthenticatedError } from '@fleet/errors';
import { silentLogger } from '@fleet/http';
import { createHashedEmbedder } from '@fleet/llm';
import { startScriptedOpenAI, type RecordedRequest, type ScriptedOpenAI } from '@fleet/testing';
import {
  answerResultDataSchema,
  createRagHandler,
  MAX_QUESTION_CHARS,
  errorDataSchema,
  searchResultDataSchema,
} from './agent';
import { createAnswerer } from './answering';
import { createApp } from './app';
import { createDocumentService } from './documents';
import { createRetriever } from './retrieval';
import { createDocumentStore, migrate, type DocumentStore } from './store';
import { openTestDatabase, type TestDatabase } from './store/open-test-database';
import {
  bootRagAgent,
  documentsParts,
  filePart,
  nodeParts,
  TEST_TOKEN,
  type RunningRagAgent,
} from './test-support/boot-rag-agent';
import { DEMO_CORPUS_DIR, loadDemoDocuments } from './test-support/demo-corpus';

const SLOW = 120_000;
const REDIS_URL = 'redis://127.0.0.1:6379';
const MAX_UPLOAD_BYTES = 64 * 1024;

const HANDBOOK = `# Handbook

## Vacation

Full-time employees receive 28 days of paid vacation per year.

## Parental leave

Every parent receives 18 weeks of parental leave at full salary.

## Expenses

Expenses above 500 EUR need the approval of the finance team.
`;

function text(content: string): Uint8Array {
  return new TextEncoder().encode(content);
}

function handbookPart(content = HANDBOOK, filename = 'handbook.md'): Part {
  return filePart({ filename, mediaType: 'text/markdown', bytes: text(content) });
}

function resultOf(task: Task): { text: string | undefined; data: unknown } {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return {
    text: artifact?.parts.find((part) => part.text !== undefined)?.text,
    data: artifact?.parts.find((part) => part.data !== undefined)?.data,
  };
}

function fileOf(task: Task): Part | undefined {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return artifact?.parts.find((part) => part.raw !== undefined);
}

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

function statusData(task: Task): unknown {
  return task.status.message?.parts.find((part) => part.data !== undefined)?.data;
}

async function send(agent: RunningRagAgent, parts: Part[]): Promise<Task> {
  return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
}

function documentsOf(task: Task) {
  const data = resultOf(task).data as { documents: unknown[] };
  return data.documents.map((entry) => documentInfoSchema.parse(entry));
}

/** The passages of a re-rank prompt, by index. */
function rerankPassages(message: string): Map<number, string> {
  const passages = new Map<number, string>();
  for (const block of message.split(/\n\n(?=\[\d+\] \()/)) {
    const match = /^\[(\d+)\] \(([\s\S]*)$/.exec(block.trim());
    if (match) passages.set(Number(match[1]), match[2] ?? '');
  }
  return passages;
}

function systemPrompt(recorded: RecordedRequest): string {
  const body = recorded.body as { messages?: { role: string; content: string }[] };
  return body.messages?.find((message) => message.role === 'system')?.content ?? '';
}

describe('rag-agent service', () => {
  let redis: Redis;
  let database: TestDatabase;
  let store: DocumentStore;
  let llm: ScriptedOpenAI;
  let offline: RunningRagAgent;
  let online: RunningRagAgent;
  const prefix = `test:rag-agent:${randomUUID()}`;
  const embedder = createHashedEmbedder();
  /** What the scripted LLM does when nothing is queued. */
  const script = {
    /** Passages whose text contains this get score 10 from the re-ranker, the others 1. */
    rerankTarget: 'parental',
    answer: 'Every parent receives 18 weeks of parental leave at full salary [1].',
    /** Streamed answers: characters per delta and the pause between deltas. */
    chunkSize: 3,
    chunkDelayMs: 0,
  };

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    [database, llm] = await Promise.all([
      openTestDatabase(),
      startScriptedOpenAI({
        respond: (recorded, context) => {
          if (context.jsonMode) {
            const passages = rerankPassages(context.lastUserMessage);
            return {
              json: {
                scores: [...passages].map(([index, passage]) => ({
                  index,
                  score: passage.toLowerCase().includes(script.rerankTarget) ? 10 : 1,
                })),
              },
            };
          }
          if (systemPrompt(recorded).includes('catalogue description')) {
            return { content: 'An employee handbook covering vacation, leave and expenses.' };
          }
          return {
            content: script.answer,
            chunkSize: script.chunkSize,
            chunkDelayMs: script.chunkDelayMs,
          };
        },
      }),
    ]);
    await migrate(database.database.pool, {
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
    });
    store = createDocumentStore({ pool: database.database.pool });
    const readinessChecks = {
      redis: async () => {
        await redis.ping();
      },
      database: async () => {
        await database.database.pool.query('SELECT 1');
      },
    };
    offline = await bootRagAgent({
      redis,
      keyPrefix: `${prefix}:offline`,
      store,
      embedder,
      maxUploadBytes: MAX_UPLOAD_BYTES,
      readinessChecks,
    });
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
    online = await bootRagAgent({
      redis,
      keyPrefix: `${prefix}:online`,
      store,
      embedder,
      llm: { client, model: 'rag-model' },
      maxUploadBytes: MAX_UPLOAD_BYTES,
    });
  }, SLOW);

  afterAll(async () => {
    await offline?.close();
    await online?.close();
    await llm?.close();
    await database?.dispose();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }, SLOW);

  describe('card and HTTP', () => {
    it('serves its Agent Card with the answer, search and ingest skills', async () => {
      const card = await discoverAgentCard(offline.server.url);
      expect(card.name).toBe('rag-agent');
      expect(card.capabilities.streaming).toBe(true);
      expect(card.skills.map((skill) => skill.id)).toEqual(['answer', 'search', 'ingest']);
      expect(card.skills[0]?.tags).toEqual(['rag', 'documents', 'search', 'knowledge', 'internal']);
      expect(card.skills[0]?.examples?.length).toBeGreaterThan(0);
      expect(card.securitySchemes).toEqual({
        fleetInternal: { httpAuthSecurityScheme: { scheme: 'bearer' } },
      });
      const legacy = await request(offline.server.server)
        .get('/.well-known/agent.json')
        .expect(200);
      expect(legacy.body.name).toBe('rag-agent');
    });

    it('refuses calls without the internal token', async () => {
      const card = await discoverAgentCard(offline.server.url);
      const anonymous = new A2AClient({ card, timeoutMs: 5_000 });
      await expect(
        anonymous.sendMessage({
          message: createMessage({ parts: documentsParts({ op: 'list', tenant: 'x' }) }),
        }),
      ).rejects.toBeInstanceOf(UnauthenticatedError);
    });

    it('is ready when Redis and the database answer', async () => {
      const ready = await request(offline.server.server).get('/readyz').expect(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { redis: 'ok', database: 'ok' } });
      await request(offline.server.server).get('/healthz').expect(200, { status: 'ok' });
    });
  });

  describe('documents commands', () => {
    it('ingests a file part, answers a re-upload as a duplicate, lists and deletes', async () => {
      const tenant = `t-${randomUUID()}`;
      const first = await send(offline, documentsParts({ op: 'ingest', tenant }, [handbookPart()]));
      expect(first.status.state).toBe('TASK_STATE_COMPLETED');
      const [info] = documentsOf(first);
      expect(info).toMatchObject({ filename: 'handbook.md', docType: 'md', duplicate: false });
      expect(info?.chunks).toBeGreaterThan(0);
      expect(info?.description).toContain('Full-time employees receive 28 days');
      expect(resultOf(first).text).toContain(`Ingested handbook.md as document ${info?.id}`);

      const again = await send(
        offline,
        documentsParts({ op: 'ingest', tenant }, [handbookPart(HANDBOOK, 'copy-of-handbook.md')]),
      );
      const [duplicate] = documentsOf(again);
      expect(duplicate).toMatchObject({ id: info?.id, filename: 'handbook.md', duplicate: true });
      expect(resultOf(again).text).toContain('already stored');

      const second = await send(
        offline,
        documentsParts({ op: 'ingest', tenant }, [
          filePart({
            filename: 'notes.txt',
            mediaType: 'text/plain',
            bytes: text('Team lunch is on Fridays.'),
          }),
        ]),
      );
      expect(second.status.state).toBe('TASK_STATE_COMPLETED');

      const listed = documentsOf(await send(offline, documentsParts({ op: 'list', tenant })));
      expect(listed.map((document) => document.filename)).toEqual(['notes.txt', 'handbook.md']);

      const deleted = await send(
        offline,
        documentsParts({ op: 'delete', tenant, id: info?.id ?? '' }),
      );
      expect(resultOf(deleted).data).toEqual({ deleted: true });
      expect(resultOf(deleted).text).toContain('Deleted document');
      const after = documentsOf(await send(offline, documentsParts({ op: 'list', tenant })));
      expect(after.map((document) => document.filename)).toEqual(['notes.txt']);
      expect(await store.stats(tenant)).toMatchObject({ documents: 1 });
    });

    it('answers deleted: false for an unknown id', async () => {
      const tenant = `t-${randomUUID()}`;
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const task = await send(offline, documentsParts({ op: 'delete', tenant, id }));
        expect(task.status.state).toBe('TASK_STATE_COMPLETED');
        expect(resultOf(task).data).toEqual({ deleted: false });
      }
    });

    it('fails on a corrupt or unsupported file, with the reason, and stores nothing', async () => {
      const tenant = `t-${randomUUID()}`;
      const corrupt = await send(
        offline,
        documentsParts({ op: 'ingest', tenant }, [
          handbookPart(),
          filePart({
            filename: 'broken.pdf',
            mediaType: 'application/pdf',
            bytes: text('%PDF-1.7\n1 0 obj << /Type /Catalog'),
          }),
        ]),
      );
      expect(corrupt.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(corrupt)).toContain('broken.pdf');
      expect(errorDataSchema.parse(statusData(corrupt)).error.code).toBe('VALIDATION_FAILED');

      const unsupported = await send(
        offline,
        documentsParts({ op: 'ingest', tenant }, [
          filePart({ filename: 'slides.pptx', bytes: text('PK\u0003\u0004 not really') }),
        ]),
      );
      expect(unsupported.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(unsupported)).toContain('slides.pptx');
      expect(errorDataSchema.parse(statusData(unsupported)).error.code).toBe(
        'UNSUPPORTED_MEDIA_TYPE',
      );

      const tooBig = await send(
        offline,
        documentsParts({ op: 'ingest', tenant }, [
          handbookPart('x '.repeat(MAX_UPLOAD_BYTES), 'huge.txt'),
        ]),
      );
      expect(tooBig.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(tooBig)).toMatch(/huge\.txt is 128 KB; the largest file .* is 64 KB/);
      expect(errorDataSchema.parse(statusData(tooBig)).error.code).toBe('PAYLOAD_TOO_LARGE');

      expect(await store.stats(tenant)).toEqual({ documents: 0, chunks: 0 });
      const listed = documentsOf(await send(offline, documentsParts({ op: 'list', tenant })));
      expect(listed).toEqual([]);
    });

    it('reads back a document’s original bytes by id or by a unique filename, never another tenant’s', async () => {
      const tenant = `t-${randomUUID()}`;
      const pdf = await readFile(path.join(DEMO_CORPUS_DIR, 'service-level-agreement.pdf'));
      const ingested = await send(
        offline,
        documentsParts({ op: 'ingest', tenant }, [
          // What the uploader claims is not what the original is kept as.
          filePart({ filename: 'sla.pdf', mediaType: 'application/octet-stream', bytes: pdf }),
          handbookPart(),
        ]),
      );
      const [stored, handbook] = documentsOf(ingested);
      expect(stored).toMatchObject({ filename: 'sla.pdf', original: true });
      const id = stored?.id ?? '';

      const byId = await send(offline, documentsParts({ op: 'get', tenant, id }));
      expect(byId.status.state).toBe('TASK_STATE_COMPLETED');
      const file = fileOf(byId);
      expect(file).toEqual({
        raw: expect.any(String),
        filename: 'sla.pdf',
        mediaType: 'application/pdf',
      });
      expect(Buffer.from(file?.raw ?? '', 'base64').equals(pdf)).toBe(true);
      // toEqual: `duplicate: undefined` stands for no such property (get reports none).
      expect(resultOf(byId).data).toEqual({ document: { ...stored, duplicate: undefined } });
      expect(resultOf(byId).text).toMatch(/^sla\.pdf \(document [0-9a-f-]{36}, application\/pdf, /);

      const byName = await send(
        offline,
        documentsParts({ op: 'get', tenant, filename: 'handbook.md' }),
      );
      expect(fileOf(byName)).toMatchObject({
        filename: 'handbook.md',
        mediaType: 'text/markdown; charset=utf-8',
      });
      expect(Buffer.from(fileOf(byName)?.raw ?? '', 'base64').toString('utf8')).toBe(HANDBOOK);
      expect(resultOf(byName).data).toMatchObject({ document: { id: handbook?.id } });

      // Another tenant's id reads exactly as an unknown one.
      const foreign = await send(offline, documentsParts({ op: 'get', tenant: 'intruder', id }));
      const unknownId = randomUUID();
      const unknown = await send(offline, documentsParts({ op: 'get', tenant, id: unknownId }));
      for (const task of [foreign, unknown]) {
        expect(task.status.state).toBe('TASK_STATE_FAILED');
        expect(errorDataSchema.parse(statusData(task)).error.code).toBe('NOT_FOUND');
        expect(fileOf(task)).toBeUndefined();
      }
      expect(statusText(foreign)).toBe(statusText(unknown).replace(unknownId, id));
      const foreignName = await send(
        offline,
        documentsParts({ op: 'get', tenant: 'intruder', filename: 'sla.pdf' }),
      );
      expect(errorDataSchema.parse(statusData(foreignName)).error.code).toBe('NOT_FOUND');

      // Two documents of one name: the filename does not say which.
      await send(
        offline,
        documentsParts({ op: 'ingest', tenant }, [
          filePart({ filename: 'handbook.md', mediaType: 'text/markdown', bytes: text('# Other') }),
        ]),
      );
      const ambiguous = await send(
        offline,
        documentsParts({ op: 'get', tenant, filename: 'handbook.md' }),
      );
      expect(ambiguous.status.state).toBe('TASK_STATE_FAILED');
      const error = errorDataSchema.parse(statusData(ambiguous)).error;
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.message).toMatch(/2 documents are named handbook\.md .*ask for one by id/);

      const both = await send(offline, documentsParts({ op: 'get', tenant, id, filename: 'x' }));
      expect(both.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(both)).toMatch(/exactly one of id or filename/);
    });

    it('says original: false for a document stored before originals were kept, and keeps them when it is uploaded again', async () => {
      const tenant = `t-${randomUUID()}`;
      const [stored] = documentsOf(
        await send(offline, documentsParts({ op: 'ingest', tenant }, [handbookPart()])),
      );
      const id = stored?.id ?? '';
      // What a database migrated from the previous schema holds: no bytes for the document.
      const { pool } = database.database;
      await pool.query('UPDATE documents SET original_digest = NULL WHERE id = $1', [id]);
      await pool.query('DELETE FROM document_originals WHERE tenant = $1', [tenant]);

      const [listed] = documentsOf(await send(offline, documentsParts({ op: 'list', tenant })));
      expect(listed).toMatchObject({ id, original: false });
      const missing = await send(offline, documentsParts({ op: 'get', tenant, id }));
      expect(missing.status.state).toBe('TASK_STATE_FAILED');
      expect(errorDataSchema.parse(statusData(missing)).error.code).toBe('NOT_FOUND');
      expect(statusText(missing)).toMatch(
        /before the RAG agent kept original files.*upload the file again/,
      );

      const [again] = documentsOf(
        await send(offline, documentsParts({ op: 'ingest', tenant }, [handbookPart()])),
      );
      expect(again).toMatchObject({ id, duplicate: true, original: true });
      const read = await send(offline, documentsParts({ op: 'get', tenant, id }));
      expect(Buffer.from(fileOf(read)?.raw ?? '', 'base64').toString('utf8')).toBe(HANDBOOK);
    });

    it('deletes the original with the document', async () => {
      const tenant = `t-${randomUUID()}`;
      const [stored] = documentsOf(
        await send(offline, documentsParts({ op: 'ingest', tenant }, [handbookPart()])),
      );
      const id = stored?.id ?? '';
      await send(offline, documentsParts({ op: 'delete', tenant, id }));
      const gone = await send(offline, documentsParts({ op: 'get', tenant, id }));
      expect(errorDataSchema.parse(statusData(gone)).error.code).toBe('NOT_FOUND');
      const rows = await database.database.pool.query(
        'SELECT 1 FROM document_originals WHERE tenant = $1',
        [tenant],
      );
      expect(rows.rowCount).toBe(0);
    });

    it('rejects messages it cannot act on, saying what it needs', async () => {
      const noData = await send(offline, [{ text: 'hello' }]);
      expect(noData.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(noData)).toMatch(/needs either a question/);

      const badCommand = await send(offline, [
        { data: { documents: { op: 'shred', tenant: 'x' } }, mediaType: 'application/json' },
      ]);
      expect(badCommand.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(badCommand)).toMatch(/documents data part is invalid/);

      const noFiles = await send(offline, documentsParts({ op: 'ingest', tenant: 'x' }));
      expect(noFiles.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(noFiles)).toMatch(/needs at least one file part/);
    });

    it('keeps tenants apart: ingest, list, delete and answers see only their own documents', async () => {
      const alice = `alice-${randomUUID()}`;
      const bob = `bob-${randomUUID()}`;
      const [info] = documentsOf(
        await send(offline, documentsParts({ op: 'ingest', tenant: alice }, [handbookPart()])),
      );
      // The same bytes are a new document for another tenant, not a duplicate.
      const [bobs] = documentsOf(
        await send(
          offline,
          documentsParts({ op: 'ingest', tenant: bob }, [
            filePart({
              filename: 'bob.txt',
              mediaType: 'text/plain',
              bytes: text('Bob likes tea.'),
            }),
          ]),
        ),
      );
      expect(bobs?.duplicate).toBe(false);
      const bobList = documentsOf(await send(offline, documentsParts({ op: 'list', tenant: bob })));
      expect(bobList.map((document) => document.filename)).toEqual(['bob.txt']);

      const stolen = await send(
        offline,
        documentsParts({ op: 'delete', tenant: bob, id: info?.id ?? '' }),
      );
      expect(resultOf(stolen).data).toEqual({ deleted: false });

      const answer = await send(
        offline,
        nodeParts({ question: 'How many vacation days do employees get?', tenant: bob }),
      );
      const data = answerResultDataSchema.parse(resultOf(answer).data);
      expect(data.chunks.every((chunk) => chunk.filename === 'bob.txt')).toBe(true);
      expect(resultOf(answer).text).not.toContain('28 days');

      const empty = await send(
        offline,
        nodeParts({ question: 'How many vacation days?', tenant: `carol-${randomUUID()}` }),
      );
      expect(resultOf(empty).text).toBe(
        'There are no documents in this library yet, so there is nothing to answer from.',
      );
      const aliceList = documentsOf(
        await send(offline, documentsParts({ op: 'list', tenant: alice })),
      );
      expect(aliceList.map((document) => document.id)).toEqual([info?.id]);
    });
  });

  describe('answers offline', () => {
    const tenant = `demo-${randomUUID()}`;

    beforeAll(async () => {
      const files = (await loadDemoDocuments()).map((file) =>
        filePart({
          filename: file.filename,
          bytes: file.bytes,
          ...(file.mediaType === undefined ? {} : { mediaType: file.mediaType }),
        }),
      );
      const task = await send(offline, documentsParts({ op: 'ingest', tenant }, files));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    }, SLOW);

    it('answers with the documents’ sentences, [n] citations and their sources', async () => {
      const task = await send(
        offline,
        nodeParts({
          question: 'How many days of paid vacation do full-time employees get?',
          tenant,
        }),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const { text: answer, data } = resultOf(task);
      // Prose: the documents' own sentence, cited, without a lead line or list marks.
      expect(answer).toMatch(/^Full-time employees receive 28 days of paid vacation.* \[1\]\.$/);
      expect(answer).not.toMatch(/From the documents|^- /m);
      const parsed = answerResultDataSchema.parse(data);
      expect(parsed).toMatchObject({ answeredBy: 'extractive', reranked: false });
      expect(parsed.sources[0]).toMatchObject({
        filename: 'employee-handbook.md',
        title: 'employee-handbook.md — Kestrel Analytics Employee Handbook > Time off > Vacation',
      });
      expect(parsed.sources[0]?.snippet).toContain('28 days');
      expect(parsed.confidence).toBeGreaterThan(0.5);
      expect(parsed.confidence).toBeLessThanOrEqual(1);
      expect(parsed.chunks.find((chunk) => chunk.source === 1)?.filename).toBe(
        'employee-handbook.md',
      );
      expect(statusText(task)).toMatch(/^Answered from 1 source \(confidence 0\.\d\d\)\.$/);
    });

    it('rejects a question over the size it searches for at once, and answers one just under it promptly', async () => {
      const huge = await send(
        offline,
        nodeParts({ question: `${'a'.repeat(150_000)} How many days of paid vacation?`, tenant }),
      );
      expect(huge.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(huge)).toMatch(/^The question is 150,032 characters; .* up to 8,000 /);
      const started = Date.now();
      const long = await send(
        offline,
        nodeParts({
          question: `${'a'.repeat(MAX_QUESTION_CHARS - 40)} How many days of paid vacation?`,
          tenant,
        }),
      );
      expect(long.status.state).toBe('TASK_STATE_COMPLETED');
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('applies filters from the question, and says so when it has to drop them', async () => {
      const filtered = answerResultDataSchema.parse(
        resultOf(
          await send(
            offline,
            nodeParts({ question: 'What does the PDF say about maintenance windows?', tenant }),
          ),
        ).data,
      );
      expect(filtered.filters).toEqual({
        requested: { docTypes: ['pdf'] },
        mentions: ['the PDF'],
        applied: true,
      });
      expect(filtered.chunks.every((chunk) => chunk.docType === 'pdf')).toBe(true);

      const task = await send(
        offline,
        nodeParts({
          question: 'What do the Word documents say about vacation days?',
          tenant: `${tenant}-none`,
        }),
      );
      expect(resultOf(task).text).toMatch(/^There are no documents/);

      const fallback = await send(
        offline,
        nodeParts({ question: 'Since 2099, how many vacation days do employees get?', tenant }),
      );
      const { text: answer, data } = resultOf(fallback);
      expect(answer).toMatch(
        /^No document matched the filters \(stored since 2099-01-01\), so every document was searched\.\n/,
      );
      expect(answer).toContain('28 days');
      expect(answerResultDataSchema.parse(data).filters).toMatchObject({
        applied: false,
        note: expect.stringContaining('every document was searched'),
      });
    });

    it('returns the passages found for the search skill', async () => {
      const task = await send(
        offline,
        nodeParts({ question: 'service credits below 99.0% uptime', tenant, skill: 'search' }),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const { text: list, data } = resultOf(task);
      const parsed = searchResultDataSchema.parse(data);
      expect(parsed.chunks.length).toBeGreaterThan(0);
      expect(parsed.sources[0]?.filename).toBe('service-level-agreement.pdf');
      expect(list).toMatch(
        /^Found \d+ passages in \d+ sections:\n\[1\] service-level-agreement\.pdf, p\. 1 — /,
      );
    });

    it('streams WORKING, the result artifact, then COMPLETED', async () => {
      const events: StreamResponse[] = [];
      for await (const event of offline.client.sendStreamingMessage({
        message: createMessage({
          parts: nodeParts({ question: 'Who owns ticket KST-1042?', tenant }),
        }),
      })) {
        events.push(event);
      }
      const states = events.flatMap((event) =>
        'statusUpdate' in event ? [event.statusUpdate.status.state] : [],
      );
      expect(states[0]).toBe('TASK_STATE_WORKING');
      expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
      const artifact = events.find((event) => 'artifactUpdate' in event);
      expect(
        artifact && 'artifactUpdate' in artifact && artifact.artifactUpdate.artifact.parts[0]?.text,
      ).toContain('Priya Nair');
    });
  });

  describe('answers with an LLM', () => {
    const tenant = `online-${randomUUID()}`;

    beforeAll(async () => {
      const task = await send(online, documentsParts({ op: 'ingest', tenant }, [handbookPart()]));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(documentsOf(task)[0]?.description).toBe(
        'An employee handbook covering vacation, leave and expenses.',
      );
    }, SLOW);

    it('re-ranks, passes the LLM answer through with its sources, and gives earlier steps as context', async () => {
      script.rerankTarget = 'parental';
      script.answer = 'Every parent receives 18 weeks of parental leave at full salary [1].';
      const before = llm.requests.length;
      const task = await send(
        online,
        nodeParts({
          question: 'How long is parental leave?',
          tenant,
          dependencyOutputs: {
            people: {
              agent: 'web-agent',
              summary: 'Parental leave in Germany is 14 weeks by law.',
            },
          },
        }),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const { text: answer, data } = resultOf(task);
      expect(answer).toBe(script.answer);
      const parsed = answerResultDataSchema.parse(data);
      expect(parsed).toMatchObject({ answeredBy: 'llm', reranked: true });
      expect(parsed.chunks[0]?.text).toContain('18 weeks');
      expect(parsed.chunks[0]?.rerankScore).toBe(10);
      expect(parsed.sources).toHaveLength(1);
      expect(parsed.sources[0]?.title).toBe('handbook.md — Handbook > Parental leave');
      expect(parsed.confidence).toBeGreaterThan(0);

      const calls = llm.requests.slice(before);
      expect(calls).toHaveLength(2);
      const answerCall = calls[1]?.body as { messages: { role: string; content: string }[] };
      const prompt = answerCall.messages.find((message) => message.role === 'user')?.content ?? '';
      expect(prompt).toContain('Question: How long is parental leave?');
      expect(prompt).toContain(
        '- people (web-agent): Parental leave in Germany is 14 weeks by law.',
      );
      expect(prompt).toMatch(/\[1\] handbook\.md — Handbook > Parental leave\n/);
      expect(answerCall.messages[0]?.content).toContain('using ONLY the numbered sources');
    });

    it('applies the re-ranker’s order', async () => {
      const question = 'What does the handbook say about paid vacation?';
      const fused = searchResultDataSchema.parse(
        resultOf(await send(offline, nodeParts({ question, tenant, skill: 'search' }))).data,
      );
      expect(fused.chunks[0]?.text).not.toContain('finance team');
      script.rerankTarget = 'finance team';
      script.answer = 'The finance team approves expenses above 500 EUR [1].';
      const parsed = answerResultDataSchema.parse(
        resultOf(await send(online, nodeParts({ question, tenant }))).data,
      );
      expect(parsed.chunks[0]?.text).toContain('finance team');
      expect(parsed.chunks.map((chunk) => chunk.rerankScore)).toEqual(
        [...parsed.chunks.map((chunk) => chunk.rerankScore)].sort((a, b) => (b ?? 0) - (a ?? 0)),
      );
    });

    it('keeps the hybrid order when re-ranking fails, and answers extractively when the answer call fails', async () => {
      script.answer = 'Employees get 28 days [1].';
      const question = 'How many vacation days do full-time employees get?';
      const fused = searchResultDataSchema.parse(
        resultOf(await send(offline, nodeParts({ question, tenant, skill: 'search' }))).data,
      );

      llm.enqueue({ error: { status: 500, message: 'reranker down' } });
      const parsed = answerResultDataSchema.parse(
        resultOf(await send(online, nodeParts({ question, tenant }))).data,
      );
      expect(parsed.reranked).toBe(false);
      expect(parsed.rerankError).toContain('reranker down');
      expect(parsed.chunks.map((chunk) => chunk.chunkId)).toEqual(
        fused.chunks.map((chunk) => chunk.chunkId),
      );
      expect(parsed.answeredBy).toBe('llm');

      llm.enqueue({ json: { scores: [] } }, { error: { status: 503, message: 'overloaded' } });
      const task = await send(online, nodeParts({ question, tenant }));
      const fallback = answerResultDataSchema.parse(resultOf(task).data);
      expect(fallback.rerankError).toContain('scored none of the passages');
      expect(fallback.answeredBy).toBe('extractive');
      expect(fallback.llmError).toContain('overloaded');
      expect(resultOf(task).text).toContain('28 days of paid vacation');
    });

    it('streams the answer as result chunks while the model writes it', async () => {
      script.rerankTarget = 'parental';
      script.answer = 'Every parent receives 18 weeks [1] of parental leave at full salary [1, 9].';
      script.chunkDelayMs = 15;
      const updates: { append: boolean; last: boolean; text: string; modelDone: boolean }[] = [];
      let taskId = '';
      try {
        for await (const event of online.client.sendStreamingMessage({
          message: createMessage({
            parts: nodeParts({ question: 'How long is parental leave?', tenant }),
          }),
        })) {
          if (!('artifactUpdate' in event)) continue;
          const { artifact, append, lastChunk } = event.artifactUpdate;
          taskId = event.artifactUpdate.taskId;
          updates.push({
            append: append === true,
            last: lastChunk === true,
            text: artifact.parts[0]?.text ?? '',
            modelDone: llm.requests.at(-1)?.status !== undefined,
          });
        }
      } finally {
        script.chunkDelayMs = 0;
      }
      const pieces = updates.filter((update) => update.append);
      expect(pieces.length).toBeGreaterThan(5);
      expect(pieces[0]?.modelDone).toBe(false);
      const expected = 'Every parent receives 18 weeks [1] of parental leave at full salary [1].';
      expect(pieces.map((piece) => piece.text).join('')).toBe(expected);
      expect(updates.at(-1)).toMatchObject({ append: false, last: true, text: expected });
      const task = await online.client.getTask({ id: taskId });
      expect(resultOf(task).text).toBe(expected);
      expect(answerResultDataSchema.parse(resultOf(task).data).sources).toHaveLength(1);
    });

    it('drops citation markers that point at no source', async () => {
      script.rerankTarget = 'vacation';
      script.answer = 'Employees get 28 days [1][7]. Nothing else [9].';
      const task = await send(online, nodeParts({ question: 'How many vacation days?', tenant }));
      expect(resultOf(task).text).toBe('Employees get 28 days [1]. Nothing else.');
    });
  });
});

describe('createApp', () => {
  it('is not ready when the database does not answer, and serves metrics', async () => {
    const store = {} as DocumentStore;
    const embedder = createHashedEmbedder();
    const handler = createRagHandler({
      documents: createDocumentService({ store, embedder }),
      retriever: createRetriever({ store, embedder }),
      answerer: createAnswerer(),
      store: new InMemoryTaskStore(),
      url: 'http://127.0.0.1:1',
    });
    const app = createApp({
      handler,
      internalToken: TEST_TOKEN,
      logger: silentLogger,
      readinessChecks: {
        database: () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        },
      },
    });
    const ready = await request(app).get('/readyz').expect(503);
    expect(ready.body.checks.database).toContain('ECONNREFUSED');
    const metrics = await request(app).get('/metrics').expect(200);
    expect(metrics.text).toContain('service="rag-agent"');
    await handler.close();
  });
});
