import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { NotFoundError, ServiceUnavailableError, UpstreamError } from '@fleet/errors';
import { errorMiddleware, notFoundHandler } from './error-middleware';
import type { HttpLogger } from './logger';
import { requestId } from './request-id';

function recordingLogger(): HttpLogger & {
  lines: { level: string; object: object; message?: string }[];
} {
  const lines: { level: string; object: object; message?: string }[] = [];
  const log = (level: string) => (object: object, message?: string) => {
    lines.push({ level, object, ...(message === undefined ? {} : { message }) });
  };
  return { lines, info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') };
}

function appThrowing(error: unknown, options: Parameters<typeof errorMiddleware>[0] = {}) {
  const app = express();
  app.use(requestId());
  app.get('/boom', () => {
    throw error;
  });
  app.get('/half', (_req, res) => {
    res.write('partial');
    throw error;
  });
  app.use(notFoundHandler(options.format === undefined ? {} : { format: options.format }));
  app.use(errorMiddleware(options));
  return app;
}

describe('errorMiddleware', () => {
  it('maps a fleet error to its status and the fleet body with the request id', async () => {
    const response = await request(appThrowing(new NotFoundError('No task t-9.')))
      .get('/boom')
      .set('x-request-id', 'req-42');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: { code: 'NOT_FOUND', message: 'No task t-9.', requestId: 'req-42' },
    });
  });

  it('hides unexpected errors behind a generic 500 and logs them in full', async () => {
    const logger = recordingLogger();
    const response = await request(appThrowing(new Error('db password wrong'), { logger })).get(
      '/boom',
    );
    expect(response.status).toBe(500);
    expect(response.body.error).toMatchObject({
      code: 'INTERNAL',
      message: 'Internal server error.',
    });
    expect(JSON.stringify(response.body)).not.toContain('password');
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]?.level).toBe('error');
    expect((logger.lines[0]?.object as { err: Error }).err.message).toBe('db password wrong');
  });

  it('adds the stack only when asked (outside production)', async () => {
    const response = await request(appThrowing(new Error('x'), { exposeStack: true })).get('/boom');
    expect(response.body.error.stack).toContain('Error: x');
    const hidden = await request(appThrowing(new Error('x'))).get('/boom');
    expect(hidden.body.error.stack).toBeUndefined();
  });

  it("answers in OpenAI's envelope when asked, keeping an upstream's retry-after", async () => {
    const upstream = new UpstreamError('The upstream LLM answered HTTP 429.', {
      status: 429,
      body: {
        error: { message: 'Too many requests', type: 'rate_limit_error', code: 'rate_limit' },
      },
      headers: { 'retry-after': '3' },
    });
    const response = await request(appThrowing(upstream, { format: 'openai' })).get('/boom');
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('3');
    expect(response.body).toEqual({
      error: {
        message: 'Too many requests',
        type: 'rate_limit_error',
        param: null,
        code: 'rate_limit',
      },
    });
  });

  it('only ends a response that already started', async () => {
    const response = await request(appThrowing(new Error('late'))).get('/half');
    expect(response.status).toBe(200);
    expect(response.text).toBe('partial');
  });

  it('answers unknown routes with 404 in the chosen format', async () => {
    const response = await request(appThrowing(new Error('x'), { format: 'openai' })).get('/nope');
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({
      type: 'not_found_error',
      message: 'No route for GET /nope.',
    });
  });

  it('answers a path parameter with a malformed percent-escape with 400, not 500', async () => {
    const app = express();
    app.get('/v1/sessions/:id', (req, res) => {
      res.json({ id: req.params['id'] });
    });
    app.use(errorMiddleware({ format: 'openai' }));
    const response = await request(app).get('/v1/sessions/%zz');
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      type: 'invalid_request_error',
      message: expect.stringMatching(/malformed percent-escape/),
    });
  });
});

describe('errorMiddleware and Redis outages', () => {
  /** What ioredis rejects a command with after its reconnection attempts (duck-typed by name). */
  class MaxRetriesPerRequestError extends Error {
    override name = 'MaxRetriesPerRequestError';
  }

  it('answers 503 with Retry-After for what a Redis client throws while disconnected', async () => {
    for (const error of [
      new MaxRetriesPerRequestError('Reached the max retries per request limit (which is 1).'),
      new Error('Connection is closed.'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    ]) {
      const response = await request(appThrowing(error, { format: 'openai' })).get('/boom');
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body.error).toMatchObject({
        type: 'server_error',
        code: 'service_unavailable',
      });
    }
  });

  it('adds Retry-After to a 503 whose cause is a Redis outage, and to one that names a wait', async () => {
    const lock = new ServiceUnavailableError('Could not lock session s-1: Redis did not answer.', {
      cause: Object.assign(new Error('quorum'), { name: 'ExecutionError' }),
    });
    const locked = await request(appThrowing(lock)).get('/boom');
    expect(locked.status).toBe(503);
    expect(locked.headers['retry-after']).toBe('5');

    const named = new ServiceUnavailableError('Busy.', { retryAfterSeconds: 30 });
    expect((await request(appThrowing(named)).get('/boom')).headers['retry-after']).toBe('30');

    const plain = new ServiceUnavailableError('Not configured.');
    expect((await request(appThrowing(plain)).get('/boom')).headers['retry-after']).toBeUndefined();
  });
});
