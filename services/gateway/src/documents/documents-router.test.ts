import { randomUUID } from 'node:crypto';
import type { Stream } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ServiceUnavailableError } from '@fleet/errors';
import request from 'supertest';
import { A2AClient } from '@fleet/a2a/client';
import { getFreePort } from '@fleet/testing';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  RAG_DOUBLE_TOKEN,
  startRagAgentDouble,
  type RagAgentDouble,
} from '../test-support/rag-agent-double';
import { createDocumentsClient } from './documents-client';

const REPORT = Buffer.from('# Quarterly report\nRevenue grew 12%.\nChurn fell to 3%.\n');

interface DocumentBody {
  id: string;
  object: string;
  filename: string;
  docType: string;
  chunks: number;
  description: string;
  createdAt: string;
  duplicate?: boolean;
}

interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** A request (`'get /v1/documents'`) to the gateway `app` with `key` as its bearer token. */
function authed(
  app: TestGateway['app'],
  route: `${'get' | 'post' | 'delete'} /${string}`,
  key = TEST_KEY,
) {
  const [method, path] = route.split(' ', 2) as ['get' | 'post' | 'delete', string];
  return request(app)[method](path).auth(key, { type: 'bearer' });
}

/** GET /v1/documents/{id}/content, its body as bytes whatever the type. */
function downloadContent(app: TestGateway['app'], id: string, key = TEST_KEY) {
  return authed(app, `get /v1/documents/${id}/content`, key)
    .buffer(true)
    .parse((response: Stream, callback: (error: Error | null, body: Buffer) => void) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => callback(null, Buffer.concat(chunks)));
    });
}

/**
 * A RAG agent double and a gateway (4 KiB upload limit) whose documents client talks to it; with
 * `byteRoute`, the client reads originals from the double's byte route.
 */
async function startOnAgentDouble({
  byteRoute,
}: {
  byteRoute: boolean;
}): Promise<{ agent: RagAgentDouble; gateway: TestGateway }> {
  const agent = await startRagAgentDouble();
  const gateway = await buildGateway({
    upstream: 'offline',
    overrides: {
      documents: createDocumentsClient({
        client: agent.client,
        agentUrl: agent.url,
        ...(byteRoute ? { contentUrl: agent.url, token: RAG_DOUBLE_TOKEN } : {}),
      }),
      uploadLimit: 4096,
    },
  });
  return { agent, gateway };
}

describe('documentsRouter', () => {
  let agent: RagAgentDouble;
  let gateway: TestGateway;

  beforeAll(async () => {
    ({ agent, gateway } = await startOnAgentDouble({ byteRoute: false }));
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  const upload = (key = TEST_KEY) => authed(gateway.app, 'post /v1/documents', key);

  it('ingests a multipart upload into the caller’s tenant and answers 201', async () => {
    const response = await upload()
      .field('purpose', 'ignored')
      .attach('file', REPORT, { filename: 'report.md', contentType: 'text/markdown' });
    expect(response.status).toBe(201);
    const body = response.body as DocumentBody;
    expect(body).toEqual({
      id: expect.any(String),
      object: 'document',
      filename: 'report.md',
      docType: 'md',
      chunks: 3,
      description: 'report.md, 55 bytes',
      createdAt: expect.any(String),
      duplicate: false,
      original: true,
    });
    const call = agent.calls.at(-1);
    expect(call?.command).toEqual({ op: 'ingest', tenant: 'acme' });
    expect(call?.files).toHaveLength(1);
    expect(call?.files[0]).toMatchObject({ filename: 'report.md', mediaType: 'text/markdown' });
    expect(call?.files[0]?.bytes.equals(REPORT)).toBe(true);
  });

  it('answers 200 with the stored document when the same content comes again', async () => {
    const bytes = Buffer.from(`same content ${randomUUID()}\n`);
    const first = await upload().attach('file', bytes, 'first.txt');
    expect(first.status).toBe(201);
    const again = await upload().attach('file', bytes, 'again.txt');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      id: (first.body as DocumentBody).id,
      filename: 'first.txt',
      duplicate: true,
    });
  });

  it('keeps UTF-8 file names and drops directories from them', async () => {
    const response = await upload().attach('file', Buffer.from('Grüße\n'), {
      filename: '../../notes/Übersicht – 2026.txt',
      contentType: 'text/plain',
    });
    expect(response.status).toBe(201);
    expect((response.body as DocumentBody).filename).toBe('Übersicht – 2026.txt');
  });

  it('lists only the caller’s documents, newest first', async () => {
    const globexFile = Buffer.from(`globex only ${randomUUID()}\n`);
    const created = await upload(OTHER_KEY).attach('file', globexFile, 'globex.csv');
    expect(created.status).toBe(201);

    const acme = await authed(gateway.app, 'get /v1/documents');
    expect(acme.status).toBe(200);
    const acmeBody = acme.body as { object: string; data: DocumentBody[] };
    expect(acmeBody.object).toBe('list');
    expect(acmeBody.data.map((document) => document.filename)).toEqual([
      'Übersicht – 2026.txt',
      'first.txt',
      'report.md',
    ]);
    expect(acmeBody.data[0]).not.toHaveProperty('duplicate');
    expect(agent.calls.at(-1)?.command).toEqual({ op: 'list', tenant: 'acme' });

    const globex = await authed(gateway.app, 'get /v1/documents', OTHER_KEY);
    expect((globex.body as { data: DocumentBody[] }).data.map((d) => d.filename)).toEqual([
      'globex.csv',
    ]);
  });

  it('deletes a document, and answers 404 for an unknown one or another tenant’s', async () => {
    const created = await upload().attach(
      'file',
      Buffer.from(`to delete ${randomUUID()}\n`),
      'x.md',
    );
    const { id } = created.body as DocumentBody;

    const foreign = await authed(gateway.app, `delete /v1/documents/${id}`, OTHER_KEY);
    expect(foreign.status).toBe(404);
    expect(agent.calls.at(-1)?.command).toEqual({ op: 'delete', tenant: 'globex', id });

    const deleted = await authed(gateway.app, `delete /v1/documents/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, object: 'document', deleted: true });

    const again = await authed(gateway.app, `delete /v1/documents/${id}`);
    expect(again.status).toBe(404);
    expect((again.body as ErrorEnvelope).error).toMatchObject({
      message: `No document with id ${id}.`,
      type: 'not_found_error',
      code: 'not_found',
    });
  });

  const download = (id: string, key = TEST_KEY) => downloadContent(gateway.app, id, key);

  it('returns a document’s original bytes with their media type, never sniffed', async () => {
    const bytes = Buffer.from(`name,city\nJürgen,Köln\n${randomUUID()}\n`);
    const created = await upload().attach('file', bytes, {
      filename: 'people.csv',
      contentType: 'text/csv',
    });
    const { id } = created.body as DocumentBody;

    const response = await download(id);
    expect(response.status).toBe(200);
    expect(Buffer.isBuffer(response.body)).toBe(true);
    expect((response.body as Buffer).equals(bytes)).toBe(true);
    // What the agent keeps with the bytes (the double: what was uploaded), no charset added.
    expect(response.headers).toMatchObject({
      'content-type': 'text/csv',
      'content-length': String(bytes.length),
      'content-disposition': 'inline; filename="people.csv"',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, no-store',
    });
    expect(agent.calls.at(-1)?.command).toEqual({ op: 'get', tenant: 'acme', id });
  });

  it('serves HTML as an application/octet-stream attachment, with a cleaned RFC 6266 filename', async () => {
    const page = Buffer.from(`<script>alert(document.cookie)</script>${randomUUID()}\n`);
    const created = await upload().attach('file', page, {
      filename: 'Übersicht Q1.html',
      contentType: 'text/html',
    });
    expect(created.status).toBe(201);
    const response = await download((created.body as DocumentBody).id);
    expect(response.status).toBe(200);
    expect((response.body as Buffer).equals(page)).toBe(true);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="_bersicht Q1.html"; filename*=UTF-8''%C3%9Cbersicht%20Q1.html`,
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 404 for another tenant’s document, an unknown id, and one whose original was not kept', async () => {
    const created = await upload().attach(
      'file',
      Buffer.from(`acme only ${randomUUID()}\n`),
      'acme.txt',
    );
    const { id } = created.body as DocumentBody;

    const foreign = await authed(gateway.app, `get /v1/documents/${id}/content`, OTHER_KEY);
    expect(foreign.status).toBe(404);
    expect(agent.calls.at(-1)?.command).toEqual({ op: 'get', tenant: 'globex', id });
    const unknownId = randomUUID();
    const unknown = await authed(gateway.app, `get /v1/documents/${unknownId}/content`);
    expect(unknown.status).toBe(404);
    expect((foreign.body as ErrorEnvelope).error).toEqual({
      ...(unknown.body as ErrorEnvelope).error,
      message: (unknown.body as ErrorEnvelope).error.message.replace(unknownId, id),
    });
    expect((foreign.body as ErrorEnvelope).error).toMatchObject({
      type: 'not_found_error',
      code: 'not_found',
      param: 'id',
    });

    const old = await upload().attach(
      'file',
      Buffer.from(`old ${randomUUID()}\n`),
      'old-notes.txt',
    );
    expect(old.body).toMatchObject({ original: false });
    const notKept = await authed(
      gateway.app,
      `get /v1/documents/${(old.body as DocumentBody).id}/content`,
    );
    expect(notKept.status).toBe(404);
    expect((notKept.body as ErrorEnvelope).error.message).toMatch(/upload the file again/);

    const before = agent.calls.length;
    const impossible = await authed(gateway.app, `get /v1/documents/${'x'.repeat(200)}/content`);
    expect(impossible.status).toBe(404);
    expect(agent.calls.length).toBe(before);
    expect((await request(gateway.app).get(`/v1/documents/${id}/content`)).status).toBe(401);
  });

  it('answers 404 for an id no document can have, without asking the agent', async () => {
    const before = agent.calls.length;
    const response = await authed(gateway.app, `delete /v1/documents/${'x'.repeat(200)}`);
    expect(response.status).toBe(404);
    expect(agent.calls.length).toBe(before);
  });

  it('answers 413 naming the limit when the file is over GATEWAY_UPLOAD_LIMIT', async () => {
    const before = agent.calls.length;
    const response = await upload().attach('file', Buffer.alloc(5000, 'a'), 'big.txt');
    expect(response.status).toBe(413);
    expect((response.body as ErrorEnvelope).error.message).toBe(
      'The file is larger than the upload limit of 4 KiB (GATEWAY_UPLOAD_LIMIT).',
    );
    expect(agent.calls.length).toBe(before);
  });

  it('answers 413 at once when the declared body is far over the limit', async () => {
    const response = await authed(gateway.app, 'post /v1/documents')
      .set('content-type', 'multipart/form-data; boundary=x')
      .send(Buffer.alloc(2 * 1024 * 1024, 'a'));
    expect(response.status).toBe(413);
    expect((response.body as ErrorEnvelope).error.type).toBe('invalid_request_error');
  });

  it('answers 400 without a `file` field, naming the fields it found', async () => {
    const response = await upload()
      .field('purpose', 'assistants')
      .attach('document', REPORT, 'report.md');
    expect(response.status).toBe(400);
    expect((response.body as ErrorEnvelope).error).toMatchObject({
      message:
        'The upload has no `file` field (found a file in `document`): send the document as the multipart field `file`.',
      param: 'file',
    });
  });

  it('answers 400 when `file` is a text field', async () => {
    const response = await upload().field('file', 'report.md');
    expect(response.status).toBe(400);
    expect((response.body as ErrorEnvelope).error.message).toBe(
      'The `file` field is text, not a file: attach the document as a file (e.g. curl -F file=@report.pdf).',
    );
  });

  it('answers 400 for two files, an empty file and a body that is not multipart', async () => {
    const two = await upload()
      .attach('file', Buffer.from('one\n'), 'one.txt')
      .attach('file', Buffer.from('two\n'), 'two.txt');
    expect(two.status).toBe(400);
    expect((two.body as ErrorEnvelope).error.message).toContain('one file per upload');

    const empty = await upload().attach('file', Buffer.alloc(0), 'empty.txt');
    expect(empty.status).toBe(400);
    expect((empty.body as ErrorEnvelope).error.message).toBe('The file empty.txt is empty.');

    const json = await upload().send({ file: 'report.md' });
    expect(json.status).toBe(415);
    expect((json.body as ErrorEnvelope).error.message).toContain('multipart/form-data');

    const malformed = await upload()
      .set('content-type', 'multipart/form-data')
      .send(Buffer.from('no boundary'));
    expect(malformed.status).toBe(400);
  });

  it('answers 415 with the agent’s message for an unsupported file', async () => {
    const response = await upload().attach('file', Buffer.from('MZ\x90\x00'), 'setup.exe');
    expect(response.status).toBe(415);
    expect((response.body as ErrorEnvelope).error).toMatchObject({
      message: 'setup.exe is not a supported document (PDF, DOCX, CSV, XLSX, TXT, MD, HTML).',
      type: 'invalid_request_error',
      code: 'unsupported_media_type',
    });
  });

  it('answers 400 with the agent’s message for a file it cannot read', async () => {
    const response = await upload().attach('file', Buffer.from('CORRUPT%PDF'), 'broken.pdf');
    expect(response.status).toBe(400);
    expect((response.body as ErrorEnvelope).error).toMatchObject({
      message: 'broken.pdf cannot be read: the file is damaged.',
      type: 'invalid_request_error',
      param: 'file',
    });
  });

  it('says when only part of a document was indexed, and which limit decided it', async () => {
    const response = await upload(OTHER_KEY).attach(
      'file',
      Buffer.from(`id,amount\n1,${randomUUID()}\n`),
      'big-ledger.csv',
    );
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      filename: 'big-ledger.csv',
      truncated: true,
      warnings: ['only the first 5000 of 200000 rows were indexed (RAG_MAX_ROWS)'],
    });
    // A whole document says nothing of the kind.
    const whole = await upload(OTHER_KEY).attach('file', Buffer.from(randomUUID()), 'small.txt');
    expect(whole.body).not.toHaveProperty('truncated');
    expect(whole.body).not.toHaveProperty('warnings');
  });

  it('answers 503 with Retry-After when the agent’s database is unreachable (list, delete)', async () => {
    for (const call of [
      () => authed(gateway.app, 'get /v1/documents'),
      () => authed(gateway.app, `delete /v1/documents/${randomUUID()}`),
    ]) {
      agent.failNextWith = new ServiceUnavailableError(
        'The document store (PostgreSQL) cannot be reached right now; try again in a few seconds.',
        { details: { retryAfterSeconds: 5 } },
      );
      const response = await call();
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body.error.message).toMatch(/PostgreSQL\) cannot be reached/);
    }
  });

  it('needs an API key', async () => {
    const response = await request(gateway.app)
      .post('/v1/documents')
      .attach('file', REPORT, 'report.md');
    expect(response.status).toBe(401);
    expect((await request(gateway.app).get('/v1/documents')).status).toBe(401);
  });
});

describe('documentsRouter reading originals from the byte route (contentUrl)', () => {
  let agent: RagAgentDouble;
  let gateway: TestGateway;

  beforeAll(async () => {
    ({ agent, gateway } = await startOnAgentDouble({ byteRoute: true }));
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  const upload = (bytes: Buffer, filename: string, contentType: string) =>
    authed(gateway.app, 'post /v1/documents').attach('file', bytes, { filename, contentType });
  const download = (id: string, key = TEST_KEY) => downloadContent(gateway.app, id, key);

  it('serves the original bytes with their media type, asking the route, not the get command', async () => {
    const bytes = Buffer.from(`name,city\nJürgen,Köln\n${randomUUID()}\n`);
    const created = await upload(bytes, 'people.csv', 'text/csv');
    const { id } = created.body as DocumentBody;
    const response = await download(id);
    expect(response.status).toBe(200);
    expect((response.body as Buffer).equals(bytes)).toBe(true);
    expect(response.headers).toMatchObject({
      'content-type': 'text/csv',
      'content-length': String(bytes.length),
      'content-disposition': 'inline; filename="people.csv"',
    });
    expect(agent.calls.at(-1)).toMatchObject({
      command: { op: 'get', tenant: 'acme', id },
      via: 'content-route',
    });
    expect(agent.calls.some((call) => call.via === 'a2a' && call.command.op === 'get')).toBe(false);
  });

  it('answers 404 for another tenant’s document and one whose original was not kept', async () => {
    const created = await upload(Buffer.from(`acme ${randomUUID()}\n`), 'acme.txt', 'text/plain');
    const { id } = created.body as DocumentBody;
    const foreign = await download(id, OTHER_KEY);
    expect(foreign.status).toBe(404);
    expect(agent.calls.at(-1)).toMatchObject({ command: { tenant: 'globex', id } });
    const old = await upload(Buffer.from(`old ${randomUUID()}\n`), 'old-notes.txt', 'text/plain');
    const notKept = await authed(
      gateway.app,
      `get /v1/documents/${(old.body as DocumentBody).id}/content`,
    );
    expect(notKept.status).toBe(404);
    expect((notKept.body as ErrorEnvelope).error).toMatchObject({
      message: expect.stringMatching(/upload the file again/),
      param: 'id',
    });
  });

  it('answers 503 naming the token when the agent refuses it', async () => {
    const wrongToken = await buildGateway({
      upstream: 'offline',
      overrides: {
        documents: createDocumentsClient({
          client: agent.client,
          agentUrl: agent.url,
          contentUrl: agent.url,
          token: 'wrong-token-0123456789',
        }),
      },
    });
    try {
      const created = await upload(Buffer.from(`x ${randomUUID()}\n`), 'x.txt', 'text/plain');
      const response = await authed(
        wrongToken.app,
        `get /v1/documents/${(created.body as DocumentBody).id}/content`,
      );
      expect(response.status).toBe(503);
      expect((response.body as ErrorEnvelope).error.message).toMatch(/FLEET_INTERNAL_TOKEN/);
    } finally {
      await wrongToken.close();
    }
  });
});

describe('documentsRouter without a reachable RAG agent', () => {
  let gateway: TestGateway;
  let unconfigured: TestGateway;
  let agentUrl: string;

  beforeAll(async () => {
    agentUrl = `http://127.0.0.1:${await getFreePort()}`;
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: {
        documents: createDocumentsClient({
          client: new A2AClient({
            url: `${agentUrl}/a2a`,
            token: RAG_DOUBLE_TOKEN,
            maxRetries: 0,
          }),
          agentUrl,
        }),
      },
    });
    unconfigured = await buildGateway({ upstream: 'offline' });
  });
  afterAll(async () => {
    await gateway.close();
    await unconfigured.close();
  });

  it('answers 503 saying how to start the agent', async () => {
    const response = await authed(gateway.app, 'post /v1/documents').attach(
      'file',
      REPORT,
      'report.md',
    );
    expect(response.status).toBe(503);
    expect((response.body as ErrorEnvelope).error.message).toBe(
      `The RAG agent is not reachable at ${agentUrl}: start the fleet with \`pnpm fleet up\` (or the agent with \`docker compose up -d rag-agent\`), or point RAG_AGENT_URL at it.`,
    );
    const list = await authed(gateway.app, 'get /v1/documents');
    expect(list.status).toBe(503);
  });

  it('answers 503 without an internal token', async () => {
    const response = await authed(unconfigured.app, 'get /v1/documents');
    expect(response.status).toBe(503);
    expect((response.body as ErrorEnvelope).error.message).toContain('FLEET_INTERNAL_TOKEN');
  });
});

describe('createDocumentsClient', () => {
  let agent: RagAgentDouble;

  beforeAll(async () => {
    agent = await startRagAgentDouble();
  });
  afterAll(async () => {
    await agent.close();
  });

  it('tells a connection that failed mid-request or timed out from an agent that is down', async () => {
    const failing = (code: string): typeof fetch =>
      function failingFetch() {
        return Promise.reject(
          Object.assign(new TypeError('fetch failed'), {
            cause: Object.assign(new Error(code), { code }),
          }),
        );
      };
    const documentsWith = (code: string) =>
      createDocumentsClient({
        client: new A2AClient({ url: `${agent.url}/a2a`, fetch: failing(code), maxRetries: 0 }),
        agentUrl: agent.url,
      });
    await expect(documentsWith('ECONNREFUSED').list({ tenant: 'acme' })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    await expect(
      documentsWith('UND_ERR_HEADERS_TIMEOUT').list({ tenant: 'acme' }),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      message: `The RAG agent at ${agent.url} did not answer in time (UND_ERR_HEADERS_TIMEOUT).`,
    });
    await expect(documentsWith('UND_ERR_SOCKET').list({ tenant: 'acme' })).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
      status: 502,
      message: `The connection to the RAG agent at ${agent.url} failed mid-request (UND_ERR_SOCKET).`,
    });
  });

  it('explains a token the agent refuses', async () => {
    const documents = createDocumentsClient({
      client: new A2AClient({ url: `${agent.url}/a2a`, token: 'wrong-token-0123456789' }),
      agentUrl: agent.url,
    });
    await expect(documents.list({ tenant: 'acme' })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message:
        'The RAG agent refused the internal token: the gateway and the agent need the same FLEET_INTERNAL_TOKEN.',
    });
  });
});
