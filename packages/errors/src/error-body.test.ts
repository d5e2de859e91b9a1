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
