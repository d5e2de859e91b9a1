import { describe, expect, it } from '@jest/globals';
import type { StreamResponse } from '@fleet/a2a';
import { StreamInterruptedError, UpstreamError } from '@fleet/errors';
import type { RunEventSource } from './answer-run';
import { followAfterCut } from './follow-after-cut';

const status = (line: string, metadata?: Record<string, unknown>): StreamResponse => ({
  statusUpdate: {
    taskId: 't',
    contextId: 'c',
    status: {
      state: metadata?.['handedOver'] === true ? 'TASK_STATE_FAILED' : 'TASK_STATE_WORKING',
      message: { messageId: line, role: 'ROLE_AGENT', parts: [{ text: line }] },
    },
    ...(metadata === undefined ? {} : { metadata }),
  },
});

const lineOf = (event: StreamResponse): string =>
  'statusUpdate' in event ? (event.statusUpdate.status.message?.parts[0]?.text ?? '') : '?';

/** A source that yields `events`, then throws `error` if given. */
function source(events: StreamResponse[], error?: Error): RunEventSource {
  return async function* events_() {
    for (const event of events) {
      await Promise.resolve();
      yield event;
    }
    if (error !== undefined) throw error;
  };
}

async function read(events: RunEventSource): Promise<string[]> {
  const lines: string[] = [];
  for await (const event of events(new AbortController().signal)) lines.push(lineOf(event));
  return lines;
}

describe('followAfterCut: a new run carried on when its orchestrator goes away', () => {
  const follows: string[] = [];
  const follow = (sessionId: string): RunEventSource => {
    follows.push(sessionId);
    return source([status('taken over'), status('answer')]);
  };

  it('follows the session once the stream breaks after the run named it', async () => {
    const start = source(
      [status('run-start', { sessionId: 's-1' }), status('waiting')],
      new StreamInterruptedError('cut'),
    );
    expect(await read(followAfterCut(start, follow))).toEqual([
      'run-start',
      'waiting',
      'taken over',
      'answer',
    ]);
    expect(follows).toEqual(['s-1']);
  });

  it('follows the session at a graceful hand-over instead of ending with it', async () => {
    follows.length = 0;
    const start = source([
      status('run-start', { sessionId: 's-2' }),
      status('handed over', { sessionId: 's-2', handedOver: true }),
      status('never read'),
    ]);
    expect(await read(followAfterCut(start, follow))).toEqual([
      'run-start',
      'taken over',
      'answer',
    ]);
    expect(follows).toEqual(['s-2']);
  });

  it('passes a cut before the session is known, and any other failure, to the client', async () => {
    follows.length = 0;
    await expect(
      read(followAfterCut(source([], new StreamInterruptedError('cut')), follow)),
    ).rejects.toThrow('cut');
    await expect(
      read(
        followAfterCut(
          source(
            [status('run-start', { sessionId: 's-3' })],
            new UpstreamError('broken', { status: 502 }),
          ),
          follow,
        ),
      ),
    ).rejects.toThrow('broken');
    expect(follows).toEqual([]);
  });
});
