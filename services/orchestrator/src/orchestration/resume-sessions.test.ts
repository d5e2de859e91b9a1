import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { A2AHandler, A2AHandlerResult } from '@fleet/a2a/server';
import { silentLogger } from '@fleet/http';
import { createSessionStore, type SessionStore } from '@fleet/sessions';
import { resumeSessions } from './resume-sessions';

/** A handler that answers GetTask with a task in `state` (or not found) and records every call. */
function scriptedHandler(getTask: { state: string } | 'not-found', sendError?: string) {
  const calls: { method: string; params: Record<string, any> }[] = [];
  const handler: Pick<A2AHandler, 'handle'> = {
    handle(body) {
      const { method, params, id } = body as { method: string; params: any; id: string };
      calls.push({ method, params });
      const json = (
        payload: { result: unknown } | { error: { code: number; message: string } },
      ): Promise<A2AHandlerResult> =>
        Promise.resolve({ type: 'json', status: 200, body: { jsonrpc: '2.0', id, ...payload } });
      if (method === 'GetTask') {
        if (getTask === 'not-found') {
          return json({ error: { code: -32001, message: 'Task not found.' } });
        }
        return json({
          result: { id: params.id, contextId: 'c', status: { state: getTask.state } },
        });
      }
      if (sendError !== undefined) return json({ error: { code: -32004, message: sendError } });
      return json({
        result: {
          task: {
            id: params.message.taskId ?? 'new-task',
            contextId: 'c',
            status: { state: 'TASK_STATE_WORKING' },
          },
        },
      });
    },
  };
  return { handler, calls };
}

describe('resumeSessions: the recovery sweep takes a dead orchestrator’s task over', () => {
  let redis: Redis;
  let sessions: SessionStore;

  beforeAll(() => {
    redis = new Redis('redis://127.0.0.1:6379');
    sessions = createSessionStore({ redis, keyPrefix: `test:resume-sweep:${randomUUID()}` });
  });

  afterAll(async () => {
    await redis.quit();
  });

  const openSession = async (taskId?: string) => {
    const session = await sessions.create({ tenant: 'acme', request: 'Pay INV-1' });
    if (taskId !== undefined) {
      await sessions.update(session.id, (draft) => {
        draft.taskId = taskId;
      });
    }
    return session.id;
  };

  it('sends the resume to the task that ran the session while that task is still WORKING', async () => {
    const sessionId = await openSession('task-1');
    const { handler, calls } = scriptedHandler({ state: 'TASK_STATE_WORKING' });
    const started = await resumeSessions({
      handler,
      sessions,
      sessionIds: [sessionId],
      logger: silentLogger,
    });
    expect(started).toEqual({ [sessionId]: 'task-1' });
    const send = calls.find((call) => call.method === 'SendMessage');
    expect(send?.params['message']).toMatchObject({ taskId: 'task-1' });
    expect(send?.params['message'].parts[1].data).toEqual({
      fleet: { tenant: 'acme', resumeSessionId: sessionId },
    });
  });

  it('starts a new task when the old one has ended (a graceful hand-over) or is gone', async () => {
    for (const answer of [{ state: 'TASK_STATE_FAILED' }, 'not-found'] as const) {
      const sessionId = await openSession('task-2');
      const { handler, calls } = scriptedHandler(answer);
      const started = await resumeSessions({
        handler,
        sessions,
        sessionIds: [sessionId],
        logger: silentLogger,
      });
      expect(started).toEqual({ [sessionId]: 'new-task' });
      const send = calls.find((call) => call.method === 'SendMessage');
      expect(send?.params['message'].taskId).toBeUndefined();
    }
  });

  it('leaves a session whose task still has a live turn to its runner', async () => {
    const sessionId = await openSession('task-3');
    const { handler } = scriptedHandler(
      { state: 'TASK_STATE_WORKING' },
      'Task task-3 is TASK_STATE_WORKING: its turn is still running',
    );
    const started = await resumeSessions({
      handler,
      sessions,
      sessionIds: [sessionId],
      logger: silentLogger,
    });
    expect(started).toEqual({});
  });
});
