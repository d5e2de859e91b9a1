import { describe, expect, it } from '@jest/globals';
import {
  ConflictError,
  FleetError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthenticatedError,
  ValidationError,
} from '@fleet/errors';
import {
  A2A_ERROR_CODES,
  A2A_ERROR_FACTORIES,
  A2AError,
  type A2AErrorName,
  InvalidParamsError,
  TaskNotFoundError,
} from './a2a-errors';
import { fromJsonRpcError, toJsonRpcError } from './json-rpc-error';

describe('toJsonRpcError and fromJsonRpcError', () => {
  it.each(Object.keys(A2A_ERROR_CODES) as A2AErrorName[])('keeps %s across the wire', (name) => {
    const error = A2A_ERROR_FACTORIES[name]('it went wrong', {});
    const wire = toJsonRpcError(error);
    expect(wire.code).toBe(A2A_ERROR_CODES[name].jsonRpcCode);
    const reason = A2A_ERROR_CODES[name].reason;
    if (reason === undefined) {
      expect(wire.data).toBeUndefined();
    } else {
      expect(wire.data).toEqual([
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' },
      ]);
    }
    const rebuilt = fromJsonRpcError(JSON.parse(JSON.stringify(wire)));
    expect(rebuilt.constructor).toBe(error.constructor);
    expect(rebuilt.message).toBe('it went wrong');
    expect(rebuilt.code).toBe(error.code);
  });

  it('sends metadata and rebuilds by reason before code', () => {
    const wire = toJsonRpcError(new TaskNotFoundError('gone', { metadata: { taskId: 't1' } }));
    expect(wire.data).toEqual([
      expect.objectContaining({ reason: 'TASK_NOT_FOUND', metadata: { taskId: 't1' } }),
    ]);
    const rebuilt = fromJsonRpcError({ ...wire, code: -32099 });
    expect(rebuilt).toBeInstanceOf(TaskNotFoundError);
    expect((rebuilt as TaskNotFoundError).metadata).toEqual({ taskId: 't1' });
  });

  it('names the param of an A2A error in ErrorInfo.metadata', () => {
    const wire = toJsonRpcError(new InvalidParamsError('pageSize is 0', { param: 'pageSize' }));
    expect(wire.data).toEqual([
      expect.objectContaining({ reason: 'INVALID_PARAMS', metadata: { param: 'pageSize' } }),
    ]);
  });

  it('maps fleet validation errors to -32602 with their issues', () => {
    const wire = toJsonRpcError(
      new ValidationError('bad', { details: { issues: [{ path: 'a', message: 'b' }] } }),
    );
    expect(wire.code).toBe(-32602);
    expect(fromJsonRpcError(wire)).toBeInstanceOf(InvalidParamsError);
  });

  it('keeps fleet errors without an A2A code in their own class', () => {
    for (const error of [
      new UnauthenticatedError('token needed'),
      new NotFoundError('nope'),
      new ConflictError('busy'),
      new PayloadTooLargeError('too big'),
    ]) {
      const wire = toJsonRpcError(error);
      expect(wire.code).toBe(-32600);
      const rebuilt = fromJsonRpcError(wire);
      expect(rebuilt.constructor).toBe(error.constructor);
      expect(rebuilt.status).toBe(error.status);
    }
  });

  it('keeps a code without its own class (RATE_LIMITED) and the wait it names', () => {
    const wire = toJsonRpcError(
      new FleetError('RATE_LIMITED', 'too many waiting', {
        retryAfterSeconds: 3,
        details: { retryAfterSeconds: 3 },
      }),
    );
    const rebuilt = fromJsonRpcError(JSON.parse(JSON.stringify(wire)), { status: 429 });
    expect(rebuilt.code).toBe('RATE_LIMITED');
    expect(rebuilt.status).toBe(429);
    expect(rebuilt.message).toBe('too many waiting');
    expect(rebuilt.retryAfterSeconds).toBe(3);
  });

  it('never leaks the message of an unexpected error', () => {
    expect(toJsonRpcError(new Error('password=hunter2'))).toEqual({
      code: -32603,
      message: 'Internal error.',
    });
  });

  it('rebuilds an unknown code as a plain A2AError', () => {
    const error = fromJsonRpcError({ code: -32050, message: 'custom' });
    expect(A2AError.isA2AError(error)).toBe(true);
    expect((error as A2AError).jsonRpcCode).toBe(-32050);
    expect(error.isRetryable).toBe(false);
  });
});
