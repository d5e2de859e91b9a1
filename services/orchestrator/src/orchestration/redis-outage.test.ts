/**
 * Redis dies while a run waits for a person: the run's stream ends within a bounded time with a
 * clear hand-over (never keep-alives forever), and once Redis is back the session resumes where
 * it stopped and finishes — the approval is not lost and the action happens once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { partsText, type Plan, type ProgressEvent, type StreamResponse } from '@fleet/a2a';
import {
  startRedisServer,
  startScriptedAgent,
  type ScriptedAgent,
  type TestRedisServer,
} from '@fleet/testing';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-redis-outage:${randomUUID()}:`;

type ApprovalRequired = Extract<ProgressEvent, { type: 'approval-required' }>;
const isApprovalRequired = (event: ProgressEvent): event is ApprovalRequired =>
  event.type === 'approval-required';
const isRunStart = (event: ProgressEvent): event is Extract<ProgressEvent, { type: 'run-start' }> =>
  event.type === 'run-start';

const plan: Plan = {
  nodes: [{ id: 'send', agent: 'mail', task: 'Send the report to Bob', dependsOn: [] }],
  rationale: 'send',
  confidence: 1,
};

function lastStatus(events: StreamResponse[]): { state: string; text: string; meta: unknown } {
  const last = [...events].reverse().find((event) => 'statusUpdate' in event);
  if (last === undefined || !('statusUpdate' in last)) throw new Error('no status');
  return {
    state: last.statusUpdate.status.state,
    text: partsText(last.statusUpdate.status.message?.parts ?? []),
    meta: last.statusUpdate.metadata,
  };
}

describe('orchestrator when Redis dies mid-run', () => {
  let redisServer: TestRedisServer;
  let redis: Redis;
  let mail: ScriptedAgent;
  const orchestrators: TestOrchestrator[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer();
    // As in main.ts: a command fails after a few retries instead of waiting for Redis forever.
    redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    mail = await startScriptedAgent({
      name: 'mail',
      internalToken: TEST_TOKEN,
      respond: (request) =>
        request.isContinuation
          ? { text: 'Mail sent.' }
          : { approval: { action: 'send-mail', summary: 'Send the report', risk: 'high' } },
    });
  });

  afterAll(async () => {
    await Promise.all(orchestrators.map((orchestrator) => orchestrator.close()));
    await mail.close();
    redis.disconnect();
    await redisServer.stop();
  });

  it('ends the stream with a hand-over within a bounded time, and resumes once Redis is back', async () => {
    const orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [mail.url],
      runnerLeaseMs: 1500,
    });
    orchestrators.push(orchestrator);
    const run = orchestrate(orchestrator.client, {
      text: 'Send Bob the report',
      fleet: { tenant: 'acme', plan },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);

    await redisServer.kill();
    const killedAt = Date.now();
    // The run hands the session over once its lease could not be renewed for a whole TTL; the
    // task's end cannot be stored either, so the stream ends with the typed error of the outage.
    const ended = await run.done.then(
      (events) => ({ events, error: undefined }),
      (error: unknown) => ({ events: [] as StreamResponse[], error }),
    );
    // A lease TTL without renewal, and a few retries: well under the 150 s of keep-alives before.
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    if (ended.error === undefined) {
      const end = lastStatus(ended.events);
      expect(end.state).toBe('TASK_STATE_FAILED');
      expect(end.meta).toMatchObject({ sessionId, handedOver: true });
    } else {
      expect(ended.error).toMatchObject({
        message: expect.stringMatching(/Redis.*cannot be reached/),
        isRetryable: true,
      });
    }

    await redisServer.restart();
    // Nothing was lost: the session still waits for the same approval.
    let session = await orchestrator.sessions.get(sessionId).catch(() => undefined);
    for (let tries = 0; tries < 40 && session === undefined; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      session = await orchestrator.sessions.get(sessionId).catch(() => undefined);
    }
    expect(session?.approvals[asked.approvalId]?.status).toBe('pending');
    await new Promise((resolve) => setTimeout(resolve, 1600)); // the dead run's lease expires
    const resumed = orchestrate(orchestrator.client, {
      text: '',
      fleet: { tenant: 'acme', resumeSessionId: sessionId },
    });
    await resumed.waitFor(isApprovalRequired);
    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'acme',
      decision: 'approve',
    });
    const outcome = outcomeOf(await resumed.done);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.answer).toContain('Mail sent.');
    // The decision reached the agent once.
    expect(
      mail.requests.filter((request) => request.approvalDecision?.decision === 'approve'),
    ).toHaveLength(1);
  }, 60_000);
});
