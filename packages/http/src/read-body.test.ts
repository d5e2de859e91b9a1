import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { type FleetError } from '@fleet/errors';
import { readBody, readJsonBody } from './read-body';

/** A server whose handler reports what readBody/readJsonBody did with each request. */
describe('readBody / readJsonBody', () => {
  let server: http.Server;
  let port: number;
  const outcomes: unknown[] = [];
  let schemaCalls = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const work =
        req.url === '/json'
          ? readJsonBody(req, { limit: 64, schema: z.object({ n: z.number() }) }).then(
              (body) => body.value,
            )
          : req.url === '/many'
            ? readJsonBody(req, {
                limit: 8 * 1024 * 1024,
                maxContainers: 1000,
                schema: z.array(z.unknown()).refine(() => {
                  schemaCalls += 1;
                  return true;
                }),
              }).then((body) => body.value.length)
            : readBody(req, { limit: 64 }).then((buffer) => buffer.toString());
      work.then(
        (value) => {
          outcomes.push(value);
          res.end(JSON.stringify({ ok: value }));
        },
        (error: unknown) => {
          outcomes.push(error);
          const fleetError = error as FleetError;
          res.statusCode = fleetError.status;
          res.end(JSON.stringify({ code: fleetError.code }));
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  async function send(path: string, body: string, headers: Record<string, string> = {}) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      body,
      headers,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('reads a body within the limit', async () => {
    expect(await send('/raw', 'hello')).toEqual({ status: 200, body: { ok: 'hello' } });
  });

  it('refuses a declared length over the limit with 413', async () => {
    expect(await send('/raw', 'x'.repeat(65))).toEqual({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE' },
    });
  });

  it('refuses a chunked body once it passes the limit', async () => {
    const stream = new ReadableStream({
      start(controller) {
        for (let index = 0; index < 10; index += 1)
          controller.enqueue(new TextEncoder().encode('x'.repeat(16)));
        controller.close();
      },
    });
    const response = await fetch(`http://127.0.0.1:${port}/raw`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
    });
    expect(response.status).toBe(413);
  });

  it('parses and validates JSON', async () => {
    expect(await send('/json', '{"n": 1}', { 'content-type': 'application/json' })).toEqual({
      status: 200,
      body: { ok: { n: 1 } },
    });
    expect(await send('/json', '{"n": ', { 'content-type': 'application/json' })).toEqual({
      status: 400,
      body: { code: 'MALFORMED_JSON' },
    });
    expect(await send('/json', '{"n": "one"}', { 'content-type': 'application/json' })).toEqual({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    });
  });

  it('refuses a body that is not JSON with 415', async () => {
    expect(
      await send('/json', 'n=1', { 'content-type': 'application/x-www-form-urlencoded' }),
    ).toEqual({
      status: 415,
      body: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    });
  });

  it('rejects with AbortError when the client goes away mid-body', async () => {
    const before = outcomes.length;
    const request = http.request({
      port,
      method: 'POST',
      path: '/raw',
      headers: { 'content-length': '60' },
    });
    request.on('error', () => undefined);
    request.write('only part of it');
    await new Promise((resolve) => setTimeout(resolve, 50));
    request.destroy();
    for (let attempt = 0; attempt < 50 && outcomes.length === before; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((outcomes.at(-1) as FleetError).code).toBe('CLIENT_CLOSED_REQUEST');
  });

  it('refuses a compressed body with 415 without inflating it', async () => {
    const { gzipSync } = await import('node:zlib');
    const response = await fetch(`http://127.0.0.1:${port}/json`, {
      method: 'POST',
      body: gzipSync(Buffer.alloc(1024 * 1024)),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const identity = await send('/raw', 'plain', { 'content-encoding': 'identity' });
    expect(identity).toEqual({ status: 200, body: { ok: 'plain' } });
  });

  it('refuses a body of more objects and arrays than allowed with 413, before parsing it', async () => {
    schemaCalls = 0;
    const many = `[${new Array<string>(500_000).fill('{}').join(',')}]`;
    expect(await send('/many', many, { 'content-type': 'application/json' })).toEqual({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE' },
    });
    expect(outcomes.at(-1)).toMatchObject({
      message: 'The request body holds more than 1000 JSON objects and arrays; send fewer items.',
    });
    expect(schemaCalls).toBe(0);
    // Brackets inside strings are text, and scalars are not counted.
    const fine = `["${'[{'.repeat(5000)}", ${new Array<string>(100_000).fill('1').join(',')}]`;
    expect(await send('/many', fine, { 'content-type': 'application/json' })).toEqual({
      status: 200,
      body: { ok: 100_001 },
    });
  });
});
