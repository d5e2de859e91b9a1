import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  documentsClientOf,
  startRagAgentDouble,
  type RagAgentDouble,
} from '../test-support/rag-agent-double';

interface SearchBody {
  object: string;
  query: string;
  confidence: number;
  searchMode: string;
  data: { documentId: string; filename: string; chunkId: string; text: string; score: number }[];
}

interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

describe('POST /v1/documents/search', () => {
  let agent: RagAgentDouble;
  let gateway: TestGateway;
  let policyId: string;

  const search = (body: unknown, key = TEST_KEY) =>
    request(gateway.app)
      .post('/v1/documents/search')
      .auth(key, { type: 'bearer' })
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  beforeAll(async () => {
    agent = await startRagAgentDouble();
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: {
        documents: documentsClientOf(agent),
      },
    });
    const upload = (key: string, name: string, text: string) =>
      request(gateway.app)
        .post('/v1/documents')
        .auth(key, { type: 'bearer' })
        .attach('file', Buffer.from(text), name);
    policyId = (
      (
        await upload(
          TEST_KEY,
          'refunds.md',
          '# Refunds\nRefunds are paid within 14 days.\nShipping is free over 50 euros.\n',
        )
      ).body as { id: string }
    ).id;
    await upload(TEST_KEY, 'travel.md', '# Travel\nTrain travel is refunded in second class.\n');
    await upload(OTHER_KEY, 'globex-refunds.md', 'Globex refunds are paid within 90 days.\n');
  });

  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  it('answers the passages found in the tenant’s documents, best first', async () => {
    const response = await search({ query: 'when are refunds paid', limit: 2 });
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.body as SearchBody;
    expect(body).toMatchObject({
      object: 'list',
      query: 'when are refunds paid',
      confidence: 0.8,
      searchMode: 'hybrid',
    });
    expect(body.data).toHaveLength(2);
    expect(body.data[0]).toEqual({
      documentId: policyId,
      filename: 'refunds.md',
      chunkId: expect.any(String),
      docType: 'md',
      section: '',
      text: 'Refunds are paid within 14 days.',
      score: expect.any(Number),
    });
    expect(agent.searches.at(-1)).toEqual({
      tenant: 'acme',
      query: 'when are refunds paid',
      limit: 2,
    });
  });

  it('takes 8 passages when no limit is named', async () => {
    const response = await search({ query: 'refunds' });
    expect(response.status).toBe(200);
    expect(agent.searches.at(-1)?.limit).toBe(8);
  });

  it('searches only the caller’s tenant', async () => {
    const acme = (await search({ query: 'refunds paid' })).body as SearchBody;
    expect(acme.data.map((hit) => hit.filename)).not.toContain('globex-refunds.md');
    const globex = (await search({ query: 'refunds paid' }, OTHER_KEY)).body as SearchBody;
    expect(globex.data.map((hit) => hit.filename)).toEqual(['globex-refunds.md']);
    expect(agent.searches.at(-1)?.tenant).toBe('globex');
  });

  it.each([
    ['no query', { limit: 3 }, 'query'],
    ['an empty query', { query: '   ' }, 'query'],
    ['a query over 2000 characters', { query: 'x'.repeat(2001) }, 'query'],
    ['a limit of 0', { query: 'refunds', limit: 0 }, 'limit'],
    ['a limit over 50', { query: 'refunds', limit: 51 }, 'limit'],
    ['a limit that is not a number', { query: 'refunds', limit: '5' }, 'limit'],
    ['an unknown field', { query: 'refunds', top_k: 3 }, 'top_k'],
  ])('answers 400 for %s', async (_case, body, param) => {
    const before = agent.searches.length;
    const response = await search(body);
    expect(response.status).toBe(400);
    const { error } = response.body as ErrorEnvelope;
    expect(error.type).toBe('invalid_request_error');
    expect(`${error.param ?? ''} ${error.message}`).toContain(param);
    expect(agent.searches).toHaveLength(before);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await search('{"query": ');
    expect(response.status).toBe(400);
  });

  it('answers 401 without a key', async () => {
    const response = await request(gateway.app)
      .post('/v1/documents/search')
      .send({ query: 'refunds' });
    expect(response.status).toBe(401);
  });
});
