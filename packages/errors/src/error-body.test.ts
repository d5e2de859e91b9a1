import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ConflictError,
  FleetError,
  NotFoundError,
  UpstreamError,
  fromErrorBody,
  parseJson,
  toErrorBody,
  toFleetError,
  toOpenAIErrorBody,
  MalformedJsonError,
  ValidationError,
  HeadersTooLargeError,
  RateLimitError,
  ServiceUnavailableError,
  InternalError,
  isRedisUnavailableError,
} from './index';

describe('toErrorBody / fromErrorBody', () => {
  it('round-trips a typed error across the wire', () => {
    const original = new NotFoundError('Task t-1 does not exist.', { details: { taskId: 't-1' } });
    const body = JSON.parse(JSON.stringify(toErrorBody(original, { requestId: 'r-1' }))) as unknown;
    const rebuilt = fromErrorBody(404, body, { 'x-request-id': 'r-1' });
    expect(rebuilt).toBeInstanceOf(NotFoundError);
    expect(rebuilt.message).toBe('Task t-1 does not exist.');
    expect(rebuilt.details).toEqual({ taskId: 't-1' });
    expect(rebuilt.requestId).toBe('r-1');
  });

  it('renders unknown errors as a generic 500 without leaking their message', () => {
    const body = toErrorBody(new Error('password=hunter2'));
    expect(body.error.code).toBe('INTERNAL');
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });

  it('turns a foreign body into an UpstreamError keeping the status', () => {
    const error = fromErrorBody(429, { error: { message: 'slow down', type: 'rate_limit_error' } });
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(429);
    expect(error.message).toBe('slow down');
    expect(error.isRetryable).toBe(true);
  });
});

describe('toOpenAIErrorBody', () => {
  it('uses the OpenAI envelope with a type the SDK knows', () => {
    expect(toOpenAIErrorBody(new ConflictError('busy'))).toEqual({
      error: { message: 'busy', type: 'conflict_error', param: null, code: 'conflict' },
    });
  });
});

describe('FleetError.isInstance', () => {
  it('recognises errors from another copy of the package by their brand', () => {
    const foreign = Object.defineProperty(new Error('x'), Symbol.for('fleet.error'), {
      value: true,
    });
    expect(FleetError.isInstance(foreign)).toBe(true);
    expect(FleetError.isInstance(new Error('x'))).toBe(false);
  });
});

describe('toFleetError', () => {
  it('keeps the cause of an unexpected error', () => {
    const cause = new TypeError('boom');
    const error = toFleetError(cause);
    expect(error.code).toBe('INTERNAL');
    expect(error.cause).toBe(cause);
  });
});

describe('parseJson', () => {
  const schema = z.object({ messages: z.array(z.object({ role: z.enum(['user']) })) });

  it('throws MalformedJsonError for bad JSON', () => {
    expect(() => parseJson({ text: '{"messages": [', schema })).toThrow(MalformedJsonError);
  });

  it('throws ValidationError naming the path of the first problem', () => {
    let caught: unknown;
    try {
      parseJson({ text: '{"messages":[{"role":"robot"}]}', schema });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).param).toBe('messages[0].role');
    expect((caught as ValidationError).message).toContain("'messages[0].role'");
  });
});

describe('toFleetError and Redis outages', () => {
  const named = (name: string, message = 'x'): Error => Object.assign(new Error(message), { name });

  it('maps what Redis clients throw while Redis is unreachable to a 503 with Retry-After', () => {
    for (const error of [
      named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 1).'),
      new Error('Connection is closed.'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('Command timed out'),
      named(
        'ExecutionError',
        'The operation was unable to achieve a quorum during its retry window.',
      ),
      named('ReplyError', 'LOADING Redis is loading the dataset in memory'),
      new InternalError(undefined, { cause: new Error('Connection is closed.') }),
    ]) {
      const mapped = toFleetError(error);
      expect(mapped).toBeInstanceOf(ServiceUnavailableError);
      expect(mapped.status).toBe(503);
      expect(mapped.retryAfterSeconds).toBe(5);
      expect(mapped.isRetryable).toBe(true);
      expect(toOpenAIErrorBody(mapped).error).toMatchObject({
        type: 'server_error',
        code: 'service_unavailable',
      });
    }
  });

  it('leaves other errors alone', () => {
    expect(isRedisUnavailableError(new Error('Connection refused by the upstream'))).toBe(false);
    expect(isRedisUnavailableError(named('ReplyError', 'WRONGTYPE Operation'))).toBe(false);
    expect(toFleetError(new TypeError('boom')).code).toBe('INTERNAL');
  });
});

describe('HeadersTooLargeError', () => {
  it('is a 431 clients can read', () => {
    const error = new HeadersTooLargeError('Headers over 16 KiB.');
    expect(error.status).toBe(431);
    expect(toOpenAIErrorBody(error).error.type).toBe('invalid_request_error');
    const rebuilt = fromErrorBody(431, toErrorBody(error));
    expect(rebuilt).toBeInstanceOf(HeadersTooLargeError);
  });
});

describe('RateLimitError', () => {
  it('is a retryable 429 rate_limit_error whose OpenAI code names the limit', () => {
    const error = new RateLimitError('Too many runs.', {
      limitCode: 'concurrency_limit_exceeded',
      retryAfterSeconds: 5,
    });
    expect(error.status).toBe(429);
    expect(error.isRetryable).toBe(true);
    expect(error.retryAfterSeconds).toBe(5);
    expect(toOpenAIErrorBody(error)).toEqual({
      error: {
        message: 'Too many runs.',
        type: 'rate_limit_error',
        param: null,
        code: 'concurrency_limit_exceeded',
      },
    });
    expect(toOpenAIErrorBody(new RateLimitError('Slow down.')).error.code).toBe(
      'rate_limit_exceeded',
    );
    expect(fromErrorBody(429, toErrorBody(error))).toBeInstanceOf(RateLimitError);
  });
});
