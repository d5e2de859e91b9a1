import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ConnectionError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnauthenticatedError,
  UpstreamError,
  UpstreamTimeoutError,
} from '@fleet/errors';
import type { Task } from '../schemas/core';
import { dataPart, textPart } from '../schemas/helpers';
import type { A2AClient } from './a2a-client';
import { createTaskFailures, resultArtifactParts, typedFailure } from './task-failures';

const URL = 'http://agent.test:9';

const failures = createTaskFailures({
  who: 'The file store',
  whoInFull: 'The file store (the RAG agent)',
  agentUrl: URL,
  unreachableHint: 'start it.',
  tokenHint: 'the services need the same FLEET_INTERNAL_TOKEN.',
  explained: {
    PAYLOAD_TOO_LARGE: (cause) => new PayloadTooLargeError('Too large for the store.', { cause }),
  },
});

/** A transport failure whose cause carries the network `code`. */
function unreachable(code?: string): ConnectionError {
  const cause = code === undefined ? undefined : Object.assign(new Error(code), { code });
  return new ConnectionError('fetch failed', { cause });
}

function task(state: Task['status']['state'], parts: Task['artifacts'] = undefined): Task {
  return {
    id: 'task-1',
    contextId: '',
    status: { state, message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } },
    ...(parts === undefined ? {} : { artifacts: parts }),
  };
}

describe('createTaskFailures', () => {
  it('explains transport failures in the wording it was given', () => {
    const refused = failures.explain(unreachable('ECONNREFUSED'));
    expect(refused).toBeInstanceOf(ServiceUnavailableError);
    expect((refused as Error).message).toBe(
      `The file store (the RAG agent) is not reachable at ${URL}: start it.`,
    );
    expect((failures.explain(unreachable()) as Error).message).toMatch(/is not reachable at/);
    const headers = failures.explain(unreachable('UND_ERR_HEADERS_TIMEOUT'));
    expect(headers).toBeInstanceOf(UpstreamTimeoutError);
    expect((headers as Error).message).toBe(
      `The file store at ${URL} did not answer in time (UND_ERR_HEADERS_TIMEOUT).`,
    );
    const reset = failures.explain(unreachable('ECONNRESET'));
    expect(reset).toBeInstanceOf(UpstreamError);
    expect((reset as UpstreamError).status).toBe(502);
    expect((reset as Error).message).toBe(
      `The connection to the file store at ${URL} failed mid-request (ECONNRESET).`,
    );
    const token = failures.explain(new UnauthenticatedError('no'));
    expect(token).toBeInstanceOf(ServiceUnavailableError);
    expect((token as Error).message).toBe(
      'The file store (the RAG agent) refused the internal token: the services need the same FLEET_INTERNAL_TOKEN.',
    );
    expect((failures.explain(new UpstreamTimeoutError('slow')) as Error).message).toBe(
      `The file store at ${URL} did not answer in time.`,
    );
    expect((failures.explain(new PayloadTooLargeError('big')) as Error).message).toBe(
      'Too large for the store.',
    );
    const other = new NotFoundError('gone');
    expect(failures.explain(other)).toBe(other);
    const plain = new Error('not a fleet error');
    expect(failures.explain(plain)).toBe(plain);
  });

  it('says how a command ended, with the agent’s words or that it gave none', () => {
    const silent = task('TASK_STATE_FAILED');
    expect(failures.failureMessage(silent)).toBe('The file store failed without saying why.');
    const said = task('TASK_STATE_REJECTED');
    said.status.message = { messageId: 'm', role: 'ROLE_AGENT', parts: [textPart(' no room ')] };
    const ended = failures.ended(said, 'put');
    expect(ended.status).toBe(502);
    expect(ended.message).toBe("The file store's put command ended rejected: no room");
  });

  it('reads the typed failure and the result artifact, and refuses a malformed one', () => {
    const failed = task('TASK_STATE_FAILED');
    expect(typedFailure(failed)).toBeUndefined();
    failed.status.message = {
      messageId: 'm',
      role: 'ROLE_AGENT',
      parts: [dataPart({ error: { code: 'NOT_FOUND', message: 'There is no file x.' } })],
    };
    expect(typedFailure(failed)).toBeInstanceOf(NotFoundError);
    expect(typedFailure(failed)?.message).toBe('There is no file x.');

    const done = task('TASK_STATE_COMPLETED', [
      { artifactId: 'a', name: 'result', parts: [dataPart({ deleted: true })] },
    ]);
    expect(resultArtifactParts(done)).toHaveLength(1);
    expect(failures.resultData(done, z.object({ deleted: z.boolean() }), 'delete')).toEqual({
      deleted: true,
    });
    expect(() =>
      failures.resultData(done, z.object({ files: z.array(z.string()) }), 'list'),
    ).toThrow("The file store's list result has no valid `result` artifact.");
    expect(resultArtifactParts(task('TASK_STATE_COMPLETED'))).toBeUndefined();
  });

  it('sends a command and refuses a message in place of a task', async () => {
    const sent: unknown[] = [];
    const answering = (reply: unknown) =>
      ({
        sendMessage: (params: unknown) => {
          sent.push(params);
          return Promise.resolve(reply);
        },
      }) as unknown as A2AClient;
    const command = {
      op: 'list',
      data: { files: { op: 'list' } },
      signal: undefined,
      timeoutMs: 5,
    };
    const done = task('TASK_STATE_COMPLETED');
    await expect(failures.send(answering(done), command)).resolves.toBe(done);
    expect(sent[0]).toMatchObject({ message: { parts: [{ data: { files: { op: 'list' } } }] } });
    await expect(
      failures.send(answering({ messageId: 'm', role: 'ROLE_AGENT', parts: [] }), command),
    ).rejects.toThrow('The file store answered the list command with a message instead of a task.');
    const throwing = {
      sendMessage: () => Promise.reject(unreachable('ECONNREFUSED')),
    } as unknown as A2AClient;
    await expect(failures.send(throwing, command)).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
