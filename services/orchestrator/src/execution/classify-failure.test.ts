import { describe, expect, it } from '@jest/globals';
import { dataPart, textPart } from '@fleet/a2a';
import {
  ConfigError,
  ConnectionError,
  InternalError,
  UnauthenticatedError,
  UpstreamTimeoutError,
  ValidationError,
} from '@fleet/errors';
import { classifyFailure, reportedFailure } from './classify-failure';

describe('classifyFailure', () => {
  it('calls an agent that cannot be reached or does not answer a transient failure of the fleet', () => {
    expect(classifyFailure(new ConnectionError('connect ECONNREFUSED'))).toMatchObject({
      transient: true,
      failure: 'fleet',
    });
    expect(classifyFailure(new UpstreamTimeoutError('no answer within 120000 ms'))).toMatchObject({
      transient: true,
      failure: 'fleet',
    });
  });

  it('calls a refused token and an unexpected error the fleet’s failure, never retried', () => {
    expect(classifyFailure(new UnauthenticatedError('bad token'))).toMatchObject({
      transient: false,
      failure: 'fleet',
    });
    expect(classifyFailure(new TypeError('x is undefined'))).toMatchObject({
      transient: false,
      failure: 'fleet',
    });
  });

  it('calls an agent’s non-retryable answer about the request a failure of the task', () => {
    expect(classifyFailure(new ValidationError('the task is empty'))).toEqual({
      message: 'the task is empty',
      transient: false,
      failure: 'task',
    });
  });
});

describe('reportedFailure', () => {
  it('reads a task the agent failed in its own words as a failure of the task', () => {
    expect(reportedFailure([textPart('The ledger is closed.')])).toBe('task');
    expect(
      reportedFailure([
        textPart('Stopped: it tried to use more than the 512 MiB memory limit (MemoryError).'),
        dataPart({ error: { code: 'CODE_FAILED', message: 'Stopped' }, code: 'x = [0] * 10**10' }),
      ]),
    ).toBe('task');
    const unconfigured = new ConfigError('No mailbox is configured: set MAIL_IMAP_HOST');
    expect(
      reportedFailure([
        textPart(unconfigured.message),
        dataPart({ error: { code: unconfigured.code, message: unconfigured.message } }),
      ]),
    ).toBe('task');
  });

  it('reads an agent whose own dependency failed, or that says to try again, as the fleet’s failure', () => {
    expect(
      reportedFailure([
        textPart('The model upstream answered 502.'),
        dataPart({
          error: { code: 'UPSTREAM_ERROR', message: 'The model upstream answered 502.' },
        }),
      ]),
    ).toBe('fleet');
    const internal = new InternalError('boom');
    expect(
      reportedFailure([dataPart({ error: { code: internal.code, message: internal.message } })]),
    ).toBe('fleet');
    expect(reportedFailure([textPart('busy'), dataPart({ retryable: true })])).toBe('fleet');
  });
});
