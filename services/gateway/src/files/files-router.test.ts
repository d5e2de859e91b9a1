import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import OpenAI from 'openai';
import type { RunFile } from '@fleet/a2a';
import { createMemoryRunFileStore, type MemoryRunFileStore } from '@fleet/testing';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { seedSession } from '../test-support/seed-session';
import { serve, type Served } from '../test-support/serve';

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('chart pixels'),
]);
const EXPIRES = '2099-01-01T00:00:00.000Z';

describe('the Files API (/v1/files)', () => {
  let gateway: TestGateway;
  let served: Served;
  let store: MemoryRunFileStore;
  let openai: OpenAI;
  let chart: RunFile;
  let csv: RunFile;
  let html: RunFile;
  let svg: RunFile;
  let attachment: RunFile;

  beforeAll(async () => {
    store = createMemoryRunFileStore();
    [chart, csv, html, svg] = (await store.put({
      tenant: 'acme',
      sessionId: 'sess-files',
      nodeId: 'n1',
      agent: 'code',
      source: 'step',
      expiresAt: EXPIRES,
      files: [
        { name: 'chart.png', mediaType: 'image/png', bytes: PNG },
        { name: 'data.csv', mediaType: 'text/csv', bytes: Buffer.from('a,b\n1,2\n') },
        { name: 'page.html', mediaType: 'text/html', bytes: Buffer.from('<script>x</script>') },
        {
          name: 'logo.svg',
          mediaType: 'image/svg+xml',
          bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'),
        },
      ],
    })) as [RunFile, RunFile, RunFile, RunFile];
    [attachment] = (await store.put({
      tenant: 'acme',
      sessionId: 'sess-files',
      source: 'attachment',
      expiresAt: EXPIRES,
      files: [{ name: 'notes.txt', mediaType: 'text/plain', bytes: Buffer.from('notes') }],
    })) as [RunFile];
    gateway = await buildGateway({ upstream: 'offline', overrides: { files: store } });
    served = await serve(gateway.app);
    openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${served.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await served.close();
    await gateway.close();
  });

  it('retrieves a step file as an OpenAI file object through the SDK', async () => {
    const file = await openai.files.retrieve(chart.id);
    expect(file).toMatchObject({
      id: chart.id,
      object: 'file',
      bytes: PNG.length,
      filename: 'chart.png',
      purpose: 'assistants_output',
      status: 'processed',
      created_at: Math.floor(Date.parse(chart.createdAt) / 1000),
      expires_at: Math.floor(Date.parse(EXPIRES) / 1000),
    });
    expect((file as unknown as { fleet: unknown }).fleet).toEqual({
      mediaType: 'image/png',
      sha256: chart.sha256,
      source: 'step',
      sessionId: 'sess-files',
      nodeId: 'n1',
      agent: 'code',
    });
  });

  it('calls an attachment user_data', async () => {
    const file = await openai.files.retrieve(attachment.id);
    expect(file.purpose).toBe('user_data');
  });

  it('returns the bytes through the SDK, an image inline with nosniff and a sandboxing CSP', async () => {
    const content = await openai.files.content(chart.id);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(PNG);
    expect(content.headers.get('content-type')).toBe('image/png');
    expect(content.headers.get('content-length')).toBe(String(PNG.length));
    expect(content.headers.get('content-disposition')).toBe('inline; filename="chart.png"');
    expect(content.headers.get('x-content-type-options')).toBe('nosniff');
    expect(content.headers.get('content-security-policy')).toContain('sandbox');
    expect(content.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('serves CSV as an attachment with its type', async () => {
    const res = await request(gateway.app)
      .get(`/v1/files/${csv.id}/content`)
      .set('Authorization', `Bearer ${TEST_KEY}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv');
    expect(res.headers['content-disposition']).toBe('attachment; filename="data.csv"');
  });

  it.each([
    ['HTML', () => html, 'page.html'],
    ['SVG', () => svg, 'logo.svg'],
  ])('never renders %s: an octet-stream attachment', async (_kind, file, name) => {
    const res = await request(gateway.app)
      .get(`/v1/files/${file().id}/content`)
      .set('Authorization', `Bearer ${TEST_KEY}`)
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${name}"`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain('sandbox');
  });

  it("answers 404 in OpenAI's envelope for another tenant's id", async () => {
    const other = new OpenAI({ apiKey: OTHER_KEY, baseURL: `${served.url}/v1`, maxRetries: 0 });
    await expect(other.files.retrieve(chart.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const res = await request(gateway.app)
      .get(`/v1/files/${chart.id}/content`)
      .set('Authorization', `Bearer ${OTHER_KEY}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ param: 'id' });
    expect(JSON.stringify(res.body)).not.toContain('chart');
  });

  it.each(['file-nothex', 'file-0123456789abcdef0123456789abcdef'])(
    'answers 404 for a malformed or unknown id (%s)',
    async (id) => {
      const res = await request(gateway.app)
        .get(`/v1/files/${id}`)
        .set('Authorization', `Bearer ${TEST_KEY}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ param: 'id', type: expect.any(String) });
    },
  );

  it('needs an API key', async () => {
    const res = await request(gateway.app).get(`/v1/files/${chart.id}`);
    expect(res.status).toBe(401);
  });

  it("lists a session's files, and requires session_id", async () => {
    const res = await request(gateway.app)
      .get('/v1/files?session_id=sess-files')
      .set('Authorization', `Bearer ${TEST_KEY}`);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    const listed = res.body as { data: { id: string }[] };
    expect(listed.data.map((file) => file.id)).toEqual([
      chart.id,
      csv.id,
      html.id,
      svg.id,
      attachment.id,
    ]);
    const missing = await request(gateway.app)
      .get('/v1/files')
      .set('Authorization', `Bearer ${TEST_KEY}`);
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('session_id');
  });

  it('answers 503 without a file store', async () => {
    const bare = await buildGateway({ upstream: 'offline' });
    try {
      const res = await request(bare.app)
        .get(`/v1/files/${chart.id}`)
        .set('Authorization', `Bearer ${TEST_KEY}`);
      expect(res.status).toBe(503);
    } finally {
      await bare.close();
    }
  });

  it('lists the session files with their content paths in GET /v1/sessions/{id}', async () => {
    const session = await seedSession(gateway.sessions.store, { completedWith: 'Done.' });
    await gateway.sessions.store.update(session.id, (draft) => {
      draft.files = [chart];
    });
    const res = await request(gateway.app)
      .get(`/v1/sessions/${session.id}`)
      .set('Authorization', `Bearer ${TEST_KEY}`);
    expect(res.status).toBe(200);
    expect(res.body.files).toEqual([
      {
        id: chart.id,
        name: 'chart.png',
        mediaType: 'image/png',
        size: PNG.length,
        sha256: chart.sha256,
        source: 'step',
        sessionId: 'sess-files',
        nodeId: 'n1',
        agent: 'code',
        createdAt: chart.createdAt,
        expiresAt: EXPIRES,
        url: `/v1/files/${chart.id}/content`,
      },
    ]);
  });
});
