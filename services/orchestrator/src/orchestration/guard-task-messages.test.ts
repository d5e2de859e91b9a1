import { describe, expect, it } from '@jest/globals';
import { buildAgentCard, type A2AHandler } from '@fleet/a2a/server';
import { guardTaskMessages } from './guard-task-messages';

const card = buildAgentCard({
  name: 'orchestrator',
  description: 'd',
  version: '1',
  url: 'http://orchestrator.test',
  skills: [],
});

/** An inner handler that answers every call it gets with `passed`. */
function inner(): { handler: A2AHandler; received: unknown[] } {
  const received: unknown[] = [];
  return {
    received,
    handler: {
      card,
      close: () => Promise.resolve(),
      handle(body) {
        received.push(body);
        return Promise.resolve({
          type: 'json',
          status: 200,
          body: { jsonrpc: '2.0', id: 1, result: 'passed' },
        });
      },
    },
  };
}

const send = (message: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'SendStreamingMessage',
  params: { message: { messageId: 'm', role: 'ROLE_USER', ...message } },
});

describe('guardTaskMessages: what an existing orchestrator task accepts', () => {
  it('refuses a message to a task that is not a resume of a session, before the task sees it', async () => {
    const { handler, received } = inner();
    const reply = await guardTaskMessages(handler).handle(
      send({ taskId: 'task-1', parts: [{ text: 'and one more thing' }] }),
      {},
    );
    expect(reply).toMatchObject({
      type: 'json',
      body: {
        id: 7,
        error: { code: -32602, message: expect.stringContaining('resumeSessionId') as unknown },
      },
    });
    expect(received).toEqual([]);
  });

  it('passes a resume to a task, a new run, and every other method through', async () => {
    const { handler, received } = inner();
    const guarded = guardTaskMessages(handler);
    const resume = send({
      taskId: 'task-1',
      parts: [{ text: 'resume' }, { data: { fleet: { tenant: 'acme', resumeSessionId: 's-1' } } }],
    });
    const fresh = send({ parts: [{ text: 'a new run' }, { data: { fleet: { tenant: 'acme' } } }] });
    const getTask = { jsonrpc: '2.0', id: 8, method: 'GetTask', params: { id: 'task-1' } };
    for (const body of [resume, fresh, getTask]) await guarded.handle(body, {});
    expect(received).toEqual([resume, fresh, getTask]);
  });
});
