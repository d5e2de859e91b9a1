import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { callProvider } from './call-provider';

describe('callProvider', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/redirect') {
        response.writeHead(302, { location: '/ok' });
        response.end();
      } else if (request.url === '/big') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ padding: 'p'.repeat(500) }));
      } else if (request.url === '/gzip') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        response.end(gzipSync(JSON.stringify({ answer: 'ünïcode' })));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ answer: 'ok' }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const call = (path: string, maxBytes?: number) =>
    callProvider({
      provider: 'Test',
      url: `${base}${path}`,
      request: { method: 'GET', headers: { accept: 'application/json' } },
      schema: z.object({ answer: z.string() }),
      timeoutMs: 3000,
      ...(maxBytes === undefined ? {} : { maxBytes }),
    });

  it('parses the body, decompressed', async () => {
    await expect(call('/ok')).resolves.toEqual({ answer: 'ok' });
    await expect(call('/gzip')).resolves.toEqual({ answer: 'ünïcode' });
  });

  it('does not follow a redirect: the configured URL is reported unreachable', async () => {
    await expect(call('/redirect')).rejects.toThrow(
      /Could not reach Test at http:\/\/127\.0\.0\.1/,
    );
  });

  it('refuses a body over maxBytes', async () => {
    await expect(call('/big', 100)).rejects.toThrow(/Test answered with more than 100 bytes/);
  });
});
