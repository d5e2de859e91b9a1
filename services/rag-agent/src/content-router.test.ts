import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import {
  createMessage,
  decodeContentMetadata,
  DOCUMENT_METADATA_HEADER,
  documentContentMetadataSchema,
  encodeContentMetadata,
  RESULT_ARTIFACT_NAME,
  RUN_FILE_METADATA_HEADER,
  RUN_FILE_PUT_HEADER,
  runFileSchema,
  type Part,
  type RunFile,
  type Task,
} from '@fleet/a2a';
import { errorBodySchema } from '@fleet/errors';
import { errorMiddleware, startServer, type RunningServer } from '@fleet/http';
import { createHashedEmbedder } from '@fleet/llm';
import { encodePng } from '@fleet/testing';
import { contentRouter } from './content-router';
import {
  createDocumentStore,
  createRunFileStore,
  migrate,
  type DatabaseRunFileStore,
} from './store';
import { openTestDatabase, type TestDatabase } from './store/open-test-database';
import {
  bootRagAgent,
  documentsParts,
  filePart,
  filesParts,
  TEST_TOKEN,
  type RunningRagAgent,
} from './test-support/boot-rag-agent';

const SLOW = 120_000;
const REDIS_URL = 'redis://127.0.0.1:6379';
const MIB = 1024 * 1024;
const HOUR = 3_600_000;

const png = encodePng({ width: 4, height: 4 });

function resultData(task: Task): unknown {
  return task.artifacts
    ?.find((entry) => entry.name === RESULT_ARTIFACT_NAME)
    ?.parts.find((part) => part.data !== undefined)?.data;
}

describe('the RAG agent’s byte routes (/internal/…/content)', () => {
  let redis: Redis;
  let database: TestDatabase;
  let agent: RunningRagAgent;
  let runFiles: DatabaseRunFileStore;
  let clock = Date.now();
  const prefix = `test:rag-agent-content:${randomUUID()}`;
  const embedder = createHashedEmbedder();
  const later = (hours: number) => new Date(clock + hours * HOUR).toISOString();

  async function send(parts: Part[]): Promise<Task> {
    return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
  }

  async function put(
    tenant: string,
    { name, mediaType, bytes }: { name: string; mediaType: string; bytes: Uint8Array },
  ) {
    const task = await send(
      filesParts({ op: 'put', tenant, sessionId: 's-1', source: 'step', expiresAt: later(1) }, [
        filePart({ filename: name, mediaType, bytes }),
      ]),
    );
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const { files } = resultData(task) as { files: RunFile[] };
    const [file] = files;
    if (file === undefined) throw new Error('put kept no file');
    return file;
  }

  /** A GET with the token (`null`: without an Authorization header). */
  function read(path: string, token: string | null = TEST_TOKEN): Promise<Response> {
    return fetch(`${agent.url}${path}`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });
  }

  async function errorOf(response: Response) {
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    return errorBodySchema.parse(await response.json()).error;
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    database = await openTestDatabase();
    await migrate(database.database.pool, {
      embeddingModel: embedder.model,
      dimensions: embedder.dimensions,
    });
    runFiles = createRunFileStore({
      pool: database.database.pool,
      maxFileBytes: 16 * MIB,
      now: () => clock,
    });
    agent = await bootRagAgent({
      redis,
      keyPrefix: prefix,
      store: createDocumentStore({ pool: database.database.pool }),
      embedder,
      maxUploadBytes: 25 * MIB,
      runFiles,
      maxRunFileBytes: 16 * MIB,
    });
  }, SLOW);

  afterAll(async () => {
    await agent?.close();
    await database?.dispose();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }, SLOW);

  describe('GET /internal/files/:id/content', () => {
    it('refuses a missing or wrong token with 401 and the fleet’s error body, never the bytes', async () => {
      const tenant = `t-${randomUUID()}`;
      const file = await put(tenant, { name: 'chart.png', mediaType: 'image/png', bytes: png });
      const path = `/internal/files/${file.id}/content?tenant=${tenant}`;
      for (const token of [null, 'wrong-token-0123456789', `${TEST_TOKEN}x`]) {
        const response = await read(path, token);
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
        expect(response.headers.get(RUN_FILE_METADATA_HEADER)).toBeNull();
        expect((await errorOf(response)).code).toBe('UNAUTHENTICATED');
      }
      // Without the token even an unknown path under /internal says nothing else.
      expect((await read('/internal/nothing-here', null)).status).toBe(401);
      const served = await read(path);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    });

    it(
      'answers a 5 MiB file’s exact bytes with Content-Length and its RunFile in X-Fleet-File',
      async () => {
        const tenant = `t-${randomUUID()}`;
        const bytes = Buffer.alloc(5 * MIB);
        for (let index = 0; index < bytes.length; index += 1) bytes[index] = (index * 31) % 251;
        const file = await put(tenant, { name: 'big.txt', mediaType: 'text/plain', bytes });
        const response = await read(`/internal/files/${file.id}/content?tenant=${tenant}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/octet-stream');
        expect(response.headers.get('content-length')).toBe(String(5 * MIB));
        const header = response.headers.get(RUN_FILE_METADATA_HEADER);
        expect(header).toMatch(/^[A-Za-z0-9_-]+$/);
        const metadata = decodeContentMetadata(header, runFileSchema);
        expect(metadata).toEqual(file);
        expect(runFileSchema.parse(metadata)).toMatchObject({ size: 5 * MIB, name: 'big.txt' });
        const body = Buffer.from(await response.arrayBuffer());
        expect(body.byteLength).toBe(5 * MIB);
        expect(body.equals(bytes)).toBe(true);
        expect(createHash('sha256').update(body).digest('hex')).toBe(file.sha256);
      },
      SLOW,
    );

    it('answers 404 for another tenant’s id exactly as for an unknown one', async () => {
      const tenant = `t-${randomUUID()}`;
      const file = await put(tenant, { name: 'chart.png', mediaType: 'image/png', bytes: png });
      const unknownId = `file-${'0'.repeat(32)}`;
      const foreign = await read(`/internal/files/${file.id}/content?tenant=intruder`);
      const unknown = await read(`/internal/files/${unknownId}/content?tenant=${tenant}`);
      for (const response of [foreign, unknown]) {
        expect(response.status).toBe(404);
        expect(response.headers.get(RUN_FILE_METADATA_HEADER)).toBeNull();
      }
      const foreignError = await errorOf(foreign);
      const unknownError = await errorOf(unknown);
      expect(foreignError.code).toBe('NOT_FOUND');
      expect(foreignError.message).toBe(unknownError.message.replace(unknownId, file.id));
    });

    it('answers 404 for an expired file', async () => {
      const tenant = `t-${randomUUID()}`;
      const file = await put(tenant, {
        name: 'notes.txt',
        mediaType: 'text/plain',
        bytes: Buffer.from('notes'),
      });
      const path = `/internal/files/${file.id}/content?tenant=${tenant}`;
      clock += 2 * HOUR;
      try {
        const expired = await read(path);
        expect(expired.status).toBe(404);
        expect((await errorOf(expired)).message).toMatch(/may have expired/);
      } finally {
        clock -= 2 * HOUR;
      }
      expect((await read(path)).status).toBe(200);
    });

    it('answers 404 for a malformed id and 400 without a tenant', async () => {
      for (const id of ['not-an-id', 'file-XYZ', `file-${'a'.repeat(33)}`, '..%2F..%2Fetc']) {
        const response = await read(`/internal/files/${id}/content?tenant=acme`);
        expect(response.status).toBe(404);
        expect((await errorOf(response)).code).toBe('NOT_FOUND');
      }
      const id = `file-${'a'.repeat(32)}`;
      for (const query of ['', '?tenant=', '?tenant=a&tenant=b', `?tenant=${'t'.repeat(300)}`]) {
        const response = await read(`/internal/files/${id}/content${query}`);
        expect(response.status).toBe(400);
        expect(await errorOf(response)).toMatchObject({
          code: 'VALIDATION_FAILED',
          param: 'tenant',
        });
      }
    });

    it('answers 503 with Retry-After while the database cannot be reached', async () => {
      // Nothing listens on port 9 (discard): every query fails to connect.
      const pool = new Pool({
        connectionString: 'postgres://postgres@127.0.0.1:9/none',
        connectionTimeoutMillis: 2_000,
      });
      const app = express();
      app.use('/internal', contentRouter({ runFiles: createRunFileStore({ pool }) }));
      app.use(errorMiddleware());
      const server: RunningServer = await startServer({ app, port: 0, signals: [] });
      try {
        const response = await fetch(
          `${server.url}/internal/files/file-${'b'.repeat(32)}/content?tenant=acme`,
        );
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        expect(await errorOf(response)).toMatchObject({
          code: 'SERVICE_UNAVAILABLE',
          details: { retryAfterSeconds: 5 },
        });
      } finally {
        await server.shutdown();
        await pool.end();
      }
    });
  });

  describe('POST /internal/files and DELETE /internal/files/:id', () => {
    const describePut = (overrides: Record<string, unknown> = {}) =>
      encodeContentMetadata({
        name: 'chart.png',
        mediaType: 'image/png',
        sessionId: 's-put',
        nodeId: 'chart',
        agent: 'code-agent',
        source: 'step',
        expiresAt: later(1),
        ...overrides,
      });

    /** A POST of `body` with the token (`null`: without an Authorization header). */
    function post(
      tenant: string,
      body: Uint8Array,
      {
        header = describePut(),
        token = TEST_TOKEN,
        contentType = 'application/octet-stream',
      }: { header?: string | null; token?: string | null; contentType?: string } = {},
    ): Promise<Response> {
      return fetch(`${agent.url}/internal/files?tenant=${encodeURIComponent(tenant)}`, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          ...(header === null ? {} : { [RUN_FILE_PUT_HEADER]: header }),
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        },
        body,
      });
    }

    it('refuses a missing or wrong token with 401 and keeps nothing', async () => {
      const tenant = `t-${randomUUID()}`;
      for (const token of [null, 'wrong-token-0123456789']) {
        const response = await post(tenant, png, { token });
        expect(response.status).toBe(401);
        expect((await errorOf(response)).code).toBe('UNAUTHENTICATED');
      }
      expect(await runFiles.list({ tenant, sessionId: 's-put' })).toEqual([]);
      const kept = await post(tenant, png);
      expect(kept.status).toBe(201);
      expect(await runFiles.list({ tenant, sessionId: 's-put' })).toHaveLength(1);
    });

    it(
      'keeps a 5 MiB PNG, answers 201 with its RunFile, and the read route gives back the same bytes',
      async () => {
        const tenant = `t-${randomUUID()}`;
        // Stored, not deflated: a real PNG of a little over 5 MiB.
        const bytes = encodePng({ width: 1322, height: 1322, level: 0 });
        expect(bytes.byteLength).toBeGreaterThan(5 * MIB);
        const response = await post(tenant, bytes, {
          header: describePut({ name: '../chart.png' }),
        });
        expect(response.status).toBe(201);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const file = runFileSchema.parse(await response.json());
        expect(file).toMatchObject({
          name: 'chart.png',
          mediaType: 'image/png',
          size: bytes.byteLength,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          source: 'step',
          sessionId: 's-put',
          nodeId: 'chart',
          agent: 'code-agent',
          expiresAt: later(1),
        });
        const read = await fetch(
          `${agent.url}/internal/files/${file.id}/content?tenant=${tenant}`,
          {
            headers: { authorization: `Bearer ${TEST_TOKEN}` },
          },
        );
        expect(read.status).toBe(200);
        expect(
          decodeContentMetadata(read.headers.get(RUN_FILE_METADATA_HEADER), runFileSchema),
        ).toEqual(file);
        expect(Buffer.from(await read.arrayBuffer()).equals(bytes)).toBe(true);

        // Another tenant can neither read it nor delete it.
        const foreign = await fetch(
          `${agent.url}/internal/files/${file.id}/content?tenant=intruder`,
          { headers: { authorization: `Bearer ${TEST_TOKEN}` } },
        );
        expect(foreign.status).toBe(404);
        expect((await errorOf(foreign)).code).toBe('NOT_FOUND');
        const remove = (who: string) =>
          fetch(`${agent.url}/internal/files/${file.id}?tenant=${who}`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${TEST_TOKEN}` },
          });
        expect(await (await remove('intruder')).json()).toEqual({ deleted: false });
        const removed = await remove(tenant);
        expect(removed.status).toBe(200);
        expect(await removed.json()).toEqual({ deleted: true });
        expect(await (await remove(tenant)).json()).toEqual({ deleted: false });
        await expect(runFiles.get({ tenant, id: file.id })).rejects.toThrow(/There is no file/);
      },
      SLOW,
    );

    it('answers 400 naming the file for a fake PNG or a refused type, and keeps nothing', async () => {
      const tenant = `t-${randomUUID()}`;
      const fake = await post(tenant, Buffer.from('<html><script>alert(1)</script>'));
      expect(fake.status).toBe(400);
      const fakeError = await errorOf(fake);
      expect(fakeError.code).toBe('VALIDATION_FAILED');
      expect(fakeError.message).toMatch(/chart\.png says it is image\/png but its content is not/);
      const refused = await post(tenant, Buffer.from('MZ'), {
        header: describePut({ name: 'setup.exe', mediaType: 'application/x-msdownload' }),
      });
      expect(refused.status).toBe(400);
      expect((await errorOf(refused)).message).toMatch(/setup\.exe .*not a kind of file/);
      expect(await runFiles.list({ tenant, sessionId: 's-put' })).toEqual([]);
    });

    it('answers 400 naming what is wrong with a missing or malformed X-Fleet-File-Put', async () => {
      const tenant = `t-${randomUUID()}`;
      const cases: [string | null, RegExp][] = [
        [null, /X-Fleet-File-Put header is missing/],
        ['not base64!', /is not base64url/],
        [Buffer.from('{"name":').toString('base64url'), /is not base64url-encoded JSON/],
        ['A'.repeat(9000), /longer than 8192/],
        [describePut({ source: 'upload' }), /X-Fleet-File-Put header is invalid.*source/],
        [describePut({ expiresAt: undefined }), /X-Fleet-File-Put header is invalid.*expiresAt/],
        [describePut({ expiresAt: 'next week' }), /expiresAt \(next week\) is not an ISO-8601/],
        [describePut({ expiresAt: new Date(clock - HOUR).toISOString() }), /already past/],
      ];
      for (const [header, message] of cases) {
        const response = await post(tenant, png, { header });
        expect(response.status).toBe(400);
        const error = await errorOf(response);
        expect(error.code).toBe('VALIDATION_FAILED');
        expect(error.message).toMatch(message);
      }
      const noTenant = await fetch(`${agent.url}/internal/files`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_TOKEN}`,
          'content-type': 'application/octet-stream',
          [RUN_FILE_PUT_HEADER]: describePut(),
        },
        body: png,
      });
      expect(noTenant.status).toBe(400);
      expect((await errorOf(noTenant)).param).toBe('tenant');
      const json = await post(tenant, png, { contentType: 'application/json' });
      expect(json.status).toBe(415);
      expect((await errorOf(json)).code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(await runFiles.list({ tenant, sessionId: 's-put' })).toEqual([]);
    });

    describe('with a 1 MiB RAG_MAX_RUN_FILE_BYTES', () => {
      let server: RunningServer;
      let small: DatabaseRunFileStore;

      beforeAll(async () => {
        small = createRunFileStore({ pool: database.database.pool, maxFileBytes: MIB });
        const app = express();
        app.use('/internal', contentRouter({ runFiles: small, maxRunFileBytes: MIB }));
        app.use(errorMiddleware());
        server = await startServer({ app, port: 0, signals: [] });
      });

      afterAll(async () => {
        await server?.shutdown();
      });

      it('answers 413 naming the file while a chunked body streams past the limit', async () => {
        const tenant = `t-${randomUUID()}`;
        const { status, body, sent } = await new Promise<{
          status: number | undefined;
          body: string;
          sent: number;
        }>((resolve, reject) => {
          const request = http.request(`${server.url}/internal/files?tenant=${tenant}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/octet-stream',
              'transfer-encoding': 'chunked',
              [RUN_FILE_PUT_HEADER]: describePut({ name: 'big.txt', mediaType: 'text/plain' }),
            },
          });
          let sent = 0;
          request.on('error', reject);
          request.on('response', (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              resolve({
                status: response.statusCode,
                body: Buffer.concat(chunks).toString('utf8'),
                sent,
              });
              request.destroy();
            });
          });
          // Limit + 1 MiB, and the body never ends: only a server that stops at the limit answers.
          const chunk = Buffer.alloc(64 * 1024, 'x');
          for (let index = 0; index < (2 * MIB) / chunk.length; index += 1) {
            request.write(chunk);
            sent += chunk.length;
          }
        });
        expect(sent).toBe(2 * MIB);
        expect(status).toBe(413);
        const error = errorBodySchema.parse(JSON.parse(body)).error;
        expect(error.code).toBe('PAYLOAD_TOO_LARGE');
        expect(error.message).toMatch(/big\.txt is larger than 1 MiB.*RAG_MAX_RUN_FILE_BYTES/);
        expect(await small.list({ tenant, sessionId: 's-put' })).toEqual([]);
      });

      it('answers 413 at once for a Content-Length over the limit, and keeps a file at it', async () => {
        const tenant = `t-${randomUUID()}`;
        const request = (bytes: Uint8Array) =>
          fetch(`${server.url}/internal/files?tenant=${tenant}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/octet-stream',
              [RUN_FILE_PUT_HEADER]: describePut({ name: 'big.txt', mediaType: 'text/plain' }),
            },
            body: bytes,
          });
        const over = await request(Buffer.alloc(2 * MIB, 'x'));
        expect(over.status).toBe(413);
        expect((await errorOf(over)).message).toMatch(/big\.txt is larger than 1 MiB/);
        const at = await request(Buffer.alloc(MIB, 'x'));
        expect(at.status).toBe(201);
        expect(await small.list({ tenant, sessionId: 's-put' })).toHaveLength(1);
      });
    });

    it('answers 503 with Retry-After while the database cannot be reached', async () => {
      const pool = new Pool({
        connectionString: 'postgres://postgres@127.0.0.1:9/none',
        connectionTimeoutMillis: 2_000,
      });
      const app = express();
      app.use('/internal', contentRouter({ runFiles: createRunFileStore({ pool }) }));
      app.use(errorMiddleware());
      const server: RunningServer = await startServer({ app, port: 0, signals: [] });
      try {
        const response = await fetch(`${server.url}/internal/files?tenant=acme`, {
          method: 'POST',
          headers: {
            'content-type': 'application/octet-stream',
            [RUN_FILE_PUT_HEADER]: describePut(),
          },
          body: png,
        });
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('5');
        expect((await errorOf(response)).code).toBe('SERVICE_UNAVAILABLE');
      } finally {
        await server.shutdown();
        await pool.end();
      }
    });
  });

  describe('GET /internal/documents/:id/content', () => {
    it('answers a document’s original bytes with its metadata, and 404 to another tenant', async () => {
      const tenant = `t-${randomUUID()}`;
      const content = Buffer.from('# Handbook\n\nVacation is 25 days a year.\n');
      const ingest = await send(
        documentsParts({ op: 'ingest', tenant }, [
          filePart({ filename: 'handbook.md', mediaType: 'text/markdown', bytes: content }),
        ]),
      );
      expect(ingest.status.state).toBe('TASK_STATE_COMPLETED');
      const { documents } = resultData(ingest) as { documents: { id: string }[] };
      const id = documents[0]?.id ?? '';
      const response = await read(`/internal/documents/${id}/content?tenant=${tenant}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe(String(content.byteLength));
      const metadata = decodeContentMetadata(
        response.headers.get(DOCUMENT_METADATA_HEADER),
        documentContentMetadataSchema,
      );
      expect(metadata).toMatchObject({
        document: { id, filename: 'handbook.md' },
        filename: 'handbook.md',
        mediaType: expect.stringMatching(/^text\/markdown/),
      });
      expect(Buffer.from(await response.arrayBuffer()).equals(content)).toBe(true);

      const foreign = await read(`/internal/documents/${id}/content?tenant=intruder`);
      expect(foreign.status).toBe(404);
      expect((await errorOf(foreign)).code).toBe('NOT_FOUND');
      const malformed = await read(`/internal/documents/not-a-uuid/content?tenant=${tenant}`);
      expect(malformed.status).toBe(404);
      expect((await read(`/internal/documents/${id}/content?tenant=${tenant}`, 'bad')).status).toBe(
        401,
      );
    });
  });
});
