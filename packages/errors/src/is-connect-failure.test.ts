import { describe, expect, it } from '@jest/globals';
import { ConnectionError } from './fleet-error';
import { CONNECT_FAILURE_CODES, isConnectFailure, networkErrorCode } from './is-connect-failure';

function withCode(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe('isConnectFailure', () => {
  it.each([...CONNECT_FAILURE_CODES])('is true for %s', (code) => {
    expect(isConnectFailure(withCode(code))).toBe(true);
  });

  it('finds the code on the cause chain, as fetch reports it', () => {
    const fetchFailure = new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') });
    const wrapped = new ConnectionError('Cannot reach the agent.', { cause: fetchFailure });
    expect(isConnectFailure(fetchFailure)).toBe(true);
    expect(isConnectFailure(wrapped)).toBe(true);
  });

  it('is false for a connection lost after it was made', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET']) {
      expect(isConnectFailure(new TypeError('fetch failed', { cause: withCode(code) }))).toBe(
        false,
      );
    }
  });

  it('decides by the first network code on the chain', () => {
    const reset = withCode('ECONNRESET');
    const outer = Object.assign(new Error('wrapped'), { code: 'UPSTREAM_UNREACHABLE' });
    expect(isConnectFailure(Object.assign(outer, { cause: reset }))).toBe(false);
    expect(isConnectFailure(new Error('x', { cause: withCode('EAI_AGAIN') }))).toBe(true);
  });

  it('takes the codes that count from its options', () => {
    const codes = new Set(['ECONNREFUSED', 'ETIMEDOUT']);
    expect(isConnectFailure(withCode('ETIMEDOUT'), { codes })).toBe(true);
    expect(isConnectFailure(withCode('EHOSTUNREACH'), { codes })).toBe(false);
  });

  it('is false for errors without a network code, and for non-errors', () => {
    expect(isConnectFailure(new Error('boom'))).toBe(false);
    expect(isConnectFailure(new ConnectionError('no code'))).toBe(false);
    expect(isConnectFailure('ECONNREFUSED')).toBe(false);
    expect(isConnectFailure(undefined)).toBe(false);
  });
});

describe('networkErrorCode', () => {
  it('answers the first errno-style code, skipping fleet codes', () => {
    const error = new ConnectionError('x', {
      cause: new TypeError('fetch failed', { cause: withCode('ECONNRESET') }),
    });
    expect(networkErrorCode(error)).toBe('ECONNRESET');
  });

  it('stops after a few levels of causes', () => {
    let error: unknown = withCode('ECONNREFUSED');
    for (let level = 0; level < 5; level += 1) error = new Error('wrap', { cause: error });
    expect(networkErrorCode(error)).toBeUndefined();
  });
});
