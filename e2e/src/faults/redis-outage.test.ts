/**
 * Faults: the fleet's Redis (a redis-server of this test's own, with an append-only file,
 * REDIS_URL of every service) is SIGKILLed and started again on the same port and data. A run
 * waiting for a person ends its client's stream with an error within a bound (never keep-alives
 * alone); meanwhile the session API answers 503 with Retry-After; once Redis is back the approval
 * is still pending, approving it finishes the run and the action happens once. Killed while idle,
 * the fleet serves the next orchestrated request by itself.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import {
  startRedisServer,
  startScriptedOpenAI,
  type ScriptedOpenAI,
  type TestRedisServer,
} from '@fleet/testing';
import { gatewayApi, streamChat, type Json } from '../support/gateway-api';
import type { RunningFleet } from '../support/start-fleet';
import {
  approve,
  fleetClient,
  fleetReady,
  mailsSent,
  serviceLogs,
  sessionRequests,
  startFleetOnRedis,
  startRun,
  waitForSessionState,
  within,
} from './support';
import { scriptedPlan as plan } from '../support/scripted-plans';

let nextPlan: Plan | undefined;

describe('Redis killed and started again', () => {
  let redisServer: TestRedisServer;
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    redisServer = await startRedisServer();
    llm = await startScriptedOpenAI({
      respond: () => (nextPlan === undefined ? {} : { json: nextPlan }),
    });
    fleet = await startFleetOnRedis({
      redisUrl: redisServer.url,
      llmBaseUrl: llm.baseURL,
      recoveryIntervalMs: 1000,
    });
    client = fleetClient(fleet);
  }, 90_000);

  // A test that failed half-way may leave Redis just restarted: each starts from a ready fleet.
  beforeEach(() => fleetReady(fleet), 30_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    await redisServer?.stop();
  }, 60_000);

  const webRuns = (sessionId: string) => sessionRequests(fleet, 'web', sessionId);

  /**
   * Starts a run that waits for a person, kills Redis, checks what the client and the API see while
   * it is down, starts it again and returns the session (still waiting) and the approval's id.
   */
  async function killRedisWhileWaiting(
    message: string,
    headers: Record<string, string> = {},
  ): Promise<{ sessionId: string; approvalId: string; waiting: Json; asked: Json }> {
    const run = await startRun(client, message, headers);
    const asked = await run.waitForEvent((event) => event.type === 'approval-required');
    const approvalId = String(asked['approvalId']);

    await redisServer.kill();
    try {
      // The client hears within a bound that the run cannot go on now: an error, not keep-alives.
      const end = await within(run.ended, 30_000, () => {
        run.abort();
        return `Redis killed: the client's stream did not end\n${serviceLogs(fleet)}`;
      });
      expect(end.how).toBe('error');
      expect(end.error).toBeInstanceOf(OpenAI.APIError);

      // The session API says "not now, come back", not a 500.
      const listed = await within(
        fetch(`${fleet.baseURL}/sessions`, {
          headers: { authorization: `Bearer ${fleet.apiKey}` },
        }),
        15_000,
        () => `GET /v1/sessions while Redis is down\n${serviceLogs(fleet)}`,
      );
      const listedBody = await listed.text();
      expect({ status: listed.status, body: listedBody }).toMatchObject({ status: 503 });
      expect(listed.headers.get('retry-after')).toMatch(/^\d+$/);
      const one = await within(
        gatewayApi(fleet, `/sessions/${run.sessionId}/approvals`),
        15_000,
        'GET /v1/sessions/{id}/approvals while Redis is down',
      );
      expect(one.status).toBe(503);
    } finally {
      await redisServer.restart();
    }

    // Back: the session and its pending approval are there (the services reconnected by themselves).
    const waiting = await waitForSessionState(fleet, run.sessionId, {
      until: (session) => Array.isArray(session['approvals']),
      timeoutMs: 20_000,
    });
    expect(waiting['approvals']).toEqual([
      expect.objectContaining({ id: approvalId, status: 'pending' }),
    ]);
    return { sessionId: run.sessionId, approvalId, waiting, asked };
  }

  /** Approves, and waits for the session to end; returns it. */
  async function approveAndFinish(sessionId: string, approvalId: string): Promise<Json> {
    const decided = await approve(fleet, sessionId, approvalId);
    expect(decided.status).toBe(200);
    return waitForSessionState(fleet, sessionId, { timeoutMs: 45_000 });
  }

  it('node approval: ends the waiting stream with an error, answers 503 meanwhile, loses no approval', async () => {
    nextPlan = plan([
      { id: 'find', agent: 'web' },
      { id: 'send', agent: 'mail', dependsOn: ['find'] },
    ]);
    const { sessionId, approvalId, asked } = await killRedisWhileWaiting('find it and mail bob');
    expect(asked).toMatchObject({ kind: 'node', nodeId: 'send' });
    expect(mailsSent(fleet, sessionId)).toHaveLength(0);

    const done = await approveAndFinish(sessionId, approvalId);
    expect(done['status']).toBe('completed');
    expect(done['nodes']['send']).toMatchObject({ state: 'completed' });
    expect(mailsSent(fleet, sessionId)).toHaveLength(1);
    expect(webRuns(sessionId)).toHaveLength(1);
  }, 150_000);

  it('plan approval: the plan still waits after the outage, and runs once when approved', async () => {
    nextPlan = plan([{ id: 'only', agent: 'web' }]);
    const { sessionId, approvalId, asked } = await killRedisWhileWaiting('look it up, plan first', {
      'X-Plan-Approval': 'required',
    });
    expect(asked).toMatchObject({ kind: 'plan', action: 'run-plan' });
    expect(webRuns(sessionId)).toHaveLength(0);

    const done = await approveAndFinish(sessionId, approvalId);
    expect(done['status']).toBe('completed');
    expect(done['nodes']['only']).toMatchObject({ state: 'completed' });
    expect(webRuns(sessionId)).toHaveLength(1);
  }, 150_000);

  it('serves the next orchestrated request after Redis was killed while idle and started again', async () => {
    nextPlan = plan([{ id: 'look', agent: 'web' }]);
    await redisServer.kill();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await redisServer.restart();
    // No service is restarted: each notices by itself that Redis is back.
    await fleetReady(fleet, 15_000);

    const chat = await within(
      streamChat(client, { message: 'look it up again' }),
      30_000,
      () => `the first request after Redis came back\n${serviceLogs(fleet)}`,
    );
    expect(chat.error).toBeUndefined();
    expect(chat.content).toContain('web handled');
    const session = await gatewayApi(fleet, `/sessions/${chat.sessionId}`);
    expect(session.status).toBe(200);
    expect(session.body['status']).toBe('completed');
  }, 60_000);
});
