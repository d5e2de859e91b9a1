import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { bearerTokenCheck, requireBearerToken } from './bearer-token';
import { errorMiddleware } from './error-middleware';

const TOKEN = 'internal-token-0123456789';

describe('bearerTokenCheck', () => {
  it('accepts exactly Bearer <token>, in any case of the scheme', () => {
    const matches = bearerTokenCheck(TOKEN);
    expect(matches(`Bearer ${TOKEN}`)).toBe(true);
    expect(matches(`bearer ${TOKEN}`)).toBe(true);
    for (const header of [
      undefined,
      '',
      TOKEN,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`,
      `Bearer ${TOKEN} extra`,
      'Bearer ',
    ]) {
      expect(matches(header)).toBe(false);
    }
  });
});

describe('requireBearerToken', () => {
  const app = express();
  app.use('/internal', requireBearerToken({ token: TOKEN }), (_req, res) => {
    res.json({ served: true });
  });
  app.use(errorMiddleware());

  it('answers 401 with WWW-Authenticate and the fleet’s error body without the token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`]) {
      const call = request(app).get('/internal/anything');
      if (authorization !== undefined) call.set('authorization', authorization);
      const response = await call.expect(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
      expect(response.body).not.toHaveProperty('served');
    }
  });

  it('lets the request through with the token', async () => {
    const response = await request(app)
      .get('/internal/anything')
      .set('authorization', `Bearer ${TOKEN}`)
      .expect(200);
    expect(response.body).toEqual({ served: true });
  });
});
