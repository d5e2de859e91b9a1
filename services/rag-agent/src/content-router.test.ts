import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { Pool } from 'pg';
import {
  decodeContentMetadata,
  DOCUMENT_METADATA_HEADER,
  documentContentMetadataSchema,
  RUN_FILE_METADATA_HEADER,
  runFileSchema,
  type Part,
  type RunFile,
} from '@fleet/a2a';
import { errorBodySchema } from '@fleet/errors';
import { errorMiddleware, startServer, type RunningServer } from '@fleet/http';
import { encodePng } from '@fleet/testing';
import { contentRouter } from './content-router';
import { createRunFileStore } from './store';
import { documentsParts, filePart, filesParts, TEST_TOKEN } from './test-support/boot-rag-agent';
import { bootRunFileAgent, resultOf, type RunFileAgent } from './test-support/run-file-agent';

const SLOW = 120_000;
const MIB = 1024 * 1024;
const HOUR = 3_600_000;

const png = encodePng({ width: 4, height: 4 });

describe('the RAG agent’s byte routes (/internal/…/content)', () => {
  let booted: RunFileAgent;
  let clock = Date.now();
  const prefix = `test:rag-agent-content:${randomUUID()}`;
  const later = (hours: number) => new Date(clock + hours * HOUR).toISOString();
  const send = (parts: Part[]) => booted.send(parts);

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
    const { files } = resultOf(task).data as { files: RunFile[] };
    const [file] = files;
    if (file === undefined) throw new Error('put kept no file');
    return file;
  }

  /** A GET with the token (`null`: without an Authorization header). */
  function read(path: string, token: string | null = TEST_TOKEN): Promise<Response> {
    return fetch(`${booted.agent.url}${path}`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });
  }

  async function errorOf(response: Response) {
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    return errorBodySchema.parse(await response.json()).error;
  }

  beforeAll(async () => {
    booted = await bootRunFileAgent({ keyPrefix: prefix, now: () => clock });
  }, SLOW);

  afterAll(() => booted?.close(), SLOW);

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
      const { documents } = resultOf(ingest).data as { documents: { id: string }[] };
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
