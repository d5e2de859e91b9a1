import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { findFreePort } from './ports';
import { describeAnswer, probeReadyz, readReadinessDetails, waitForReady } from './readiness';

const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

describe('probeReadyz', () => {
  it('returns the status of GET /readyz', async () => {
    const paths: string[] = [];
    const url = await serve((request, response) => {
      paths.push(request.url ?? '');
      response.statusCode = 503;
      response.end();
    });
    await expect(probeReadyz({ url })).resolves.toEqual({ status: 503 });
    expect(paths).toEqual(['/readyz']);
  });

  it('explains a refused connection', async () => {
    const answer = await probeReadyz({ url: `http://127.0.0.1:${await findFreePort()}` });
    expect(describeAnswer(answer)).toBe('not listening yet');
  });
});

describe('waitForReady', () => {
  it('keeps probing until /readyz answers 200', async () => {
    let calls = 0;
    const url = await serve((_request, response) => {
      calls += 1;
      response.statusCode = calls < 3 ? 503 : 200;
      response.end();
    });
    const answers: string[] = [];
    const outcome = await waitForReady({
      url,
      timeoutMs: 10_000,
      intervalMs: 10,
      exitInfo: () => undefined,
      onProbe: (answer) => answers.push(describeAnswer(answer)),
    });
    expect(outcome.state).toBe('ready');
    expect(answers).toEqual(['503', '503', '200']);
  });

  it('stops at once when the process has exited', async () => {
    const outcome = await waitForReady({
      url: `http://127.0.0.1:${await findFreePort()}`,
      timeoutMs: 10_000,
      exitInfo: () => ({ code: 1, signal: null }),
    });
    expect(outcome).toMatchObject({ state: 'exited', exit: { code: 1 } });
  });

  it('times out with the last answer', async () => {
    const url = await serve((_request, response) => {
      response.statusCode = 503;
      response.end();
    });
    const outcome = await waitForReady({
      url,
      timeoutMs: 300,
      intervalMs: 20,
      exitInfo: () => undefined,
    });
    expect(outcome).toMatchObject({ state: 'timeout', last: { status: 503 } });
  });

  it('keeps the last real answer when the deadline cuts the final probe short', async () => {
    let calls = 0;
    const url = await serve((_request, response) => {
      calls += 1;
      if (calls === 1) {
        response.statusCode = 503;
        response.end();
      }
      // Later probes get no answer: only the deadline ends them.
    });
    const outcome = await waitForReady({
      url,
      timeoutMs: 300,
      intervalMs: 20,
      exitInfo: () => undefined,
    });
    expect(outcome).toMatchObject({ state: 'timeout', last: { status: 503 } });
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await waitForReady({
      url: 'http://127.0.0.1:1',
      timeoutMs: 10_000,
      exitInfo: () => undefined,
      signal: controller.signal,
    });
    expect(outcome.state).toBe('aborted');
  });
});

describe('readReadinessDetails', () => {
  it("returns the degraded checks' reasons from the /readyz body", async () => {
    const url = await serve((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          status: 'degraded',
          checks: {
            redis: 'ok',
            embeddings:
              'degraded: full-text search only: the embedding model m returned 768-dimensional vectors, but the RAG store expects 1536. Set EMBEDDING_DIMENSIONS=768.',
          },
        }),
      );
    });
    await expect(readReadinessDetails({ url })).resolves.toEqual({
      status: 'degraded',
      degraded: {
        embeddings:
          'full-text search only: the embedding model m returned 768-dimensional vectors, but the RAG store expects 1536. Set EMBEDDING_DIMENSIONS=768.',
      },
    });
  });

  it('is undefined when the body is not a readiness report, or nothing answers', async () => {
    const url = await serve((_request, response) => response.end('ok'));
    await expect(readReadinessDetails({ url })).resolves.toBeUndefined();
    const silent = `http://127.0.0.1:${await findFreePort()}`;
    await expect(readReadinessDetails({ url: silent })).resolves.toBeUndefined();
  });
});
