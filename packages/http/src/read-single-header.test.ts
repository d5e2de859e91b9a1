import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BadRequestError } from '@fleet/errors';
import { assertHeadersSentOnce, readSingleHeader } from './read-single-header';

describe('readSingleHeader and assertHeadersSentOnce', () => {
  let server: http.Server;
  let url: string;
  let inspect: (req: IncomingMessage) => unknown = () => undefined;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let answer: unknown;
      try {
        answer = { value: inspect(req) ?? null };
      } catch (error) {
        answer = {
          error: error instanceof BadRequestError ? error.message : String(error),
          param: error instanceof BadRequestError ? error.param : undefined,
        };
      }
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Sends headers exactly as listed; the server answers what `inspect` made of them. */
  const send = async (headers: Record<string, string | string[]>): Promise<unknown> => {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = http.request(url, { headers, agent: false });
      req.on('response', resolve).on('error', reject).end();
    });
    let text = '';
    for await (const chunk of response) text += String(chunk);
    return JSON.parse(text) as unknown;
  };

  it('reads a header sent once, a comma in its value included', async () => {
    inspect = (req) => readSingleHeader(req, 'X-Fleet-User');
    expect(await send({ 'x-fleet-user': 'alice, bob' })).toEqual({ value: 'alice, bob' });
    expect(await send({})).toEqual({ value: null });
  });

  it('refuses a custom header Node would join into one value', async () => {
    inspect = (req) => readSingleHeader(req, 'X-Fleet-User');
    expect(await send({ 'X-Fleet-User': ['alice', 'bob'] })).toEqual({
      error: expect.stringContaining('X-Fleet-User was sent 2 times'),
      param: 'X-Fleet-User',
    });
  });

  it('refuses a repeated Authorization, of which Node keeps only the first', async () => {
    inspect = (req) => assertHeadersSentOnce(req, ['Authorization', 'X-Session-ID']);
    expect(await send({ authorization: ['Bearer a', 'bearer b'] })).toEqual({
      error: expect.stringContaining('Authorization was sent 2 times'),
      param: 'Authorization',
    });
    expect(await send({ authorization: 'Bearer a', 'x-session-id': 's' })).toEqual({
      value: null,
    });
  });
});
