import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { createApiKeyRing } from './api-key-ring';

describe('createApiKeyRing', () => {
  it('maps each key to its tenant and rejects others', () => {
    const ring = createApiKeyRing([
      { key: 'k1-aaaaaaaaaaaaaaaa', tenant: 'a' },
      { key: 'k2-bbbbbbbbbbbbbbbb', tenant: 'b' },
    ]);
    expect(ring.tenantOf('k2-bbbbbbbbbbbbbbbb')).toBe('b');
    expect(ring.tenantOf('k1-aaaaaaaaaaaaaaaa')).toBe('a');
    expect(ring.tenantOf('k1-aaaaaaaaaaaaaaa')).toBeUndefined();
    expect(ring.tenantOf('')).toBeUndefined();
  });
});

describe('authenticate', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await buildGateway();
  });
  afterAll(() => gateway.close());

  it('answers 401 in the OpenAI envelope when the key is missing', async () => {
    const response = await request(gateway.app).get('/v1/models');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: {
        message: "You didn't provide an API key. Send it as `Authorization: Bearer <key>`.",
        type: 'authentication_error',
        param: null,
        code: 'unauthenticated',
      },
    });
  });

  it('answers 401 for a wrong key, and for a malformed header', async () => {
    const wrong = await request(gateway.app)
      .get('/v1/models')
      .auth('sk-nope-0000000000', { type: 'bearer' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toBe('Incorrect API key provided.');
    const basic = await request(gateway.app)
      .get('/v1/models')
      .set('authorization', `Basic ${TEST_KEY}`);
    expect(basic.status).toBe(401);
  });

  it('does not read the body of an unauthenticated request', async () => {
    await request(gateway.app)
      .post('/v1/chat/completions')
      .send({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .expect(401);
    expect(gateway.llm?.requests).toHaveLength(0);
  });

  it('accepts every configured key', async () => {
    await request(gateway.app).get('/v1/models').auth(TEST_KEY, { type: 'bearer' }).expect(200);
    await request(gateway.app).get('/v1/models').auth(OTHER_KEY, { type: 'bearer' }).expect(200);
  });

  it('leaves health checks open', async () => {
    await request(gateway.app).get('/healthz').expect(200, { status: 'ok' });
    await request(gateway.app).get('/readyz').expect(200);
  });
});
