import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Plan, ProgressEvent } from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import { A2A_ENDPOINT_PATH } from '@fleet/a2a/server';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import {
  TEST_TOKEN,
  eventually,
  orchestrate,
  outcomeOf,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-withdrawn:${randomUUID()}:`;

type ApprovalRequired = Extract<ProgressEvent, { type: 'approval-required' }>;

describe('an approval whose agent task ends at the agent before anyone decides', () => {
  let redis: Redis;
  let mail: ScriptedAgent;
  let orchestrator: TestOrchestrator;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    mail = await startScriptedAgent({
      name: 'mail',
      internalToken: TEST_TOKEN,
      respond: (request) =>
        request.isContinuation
          ? { text: 'Mail sent.' }
          : { approval: { action: 'send-mail', summary: 'Send the report to Bob' } },
    });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [mail.url],
      agentTaskCheckMs: 100,
    });
  });

  afterAll(async () => {
    await orchestrator.close();
    await mail.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('is withdrawn at once: no longer pending, its step rejected saying why, and the run ends', async () => {
    const plan: Plan = {
      nodes: [{ id: 'send', agent: 'mail', task: 'Send the report to Bob', dependsOn: [] }],
      rationale: 'one step',
      confidence: 1,
    };
    const run = orchestrate(orchestrator.client, {
      text: 'Send the report',
      fleet: { tenant: 'acme', plan },
    });
    const asked = await run.waitFor(
      (event): event is ApprovalRequired => event.type === 'approval-required',
    );
    const { sessionId } = await run.waitFor(
      (event): event is Extract<ProgressEvent, { type: 'run-start' }> => event.type === 'run-start',
    );
    const taskId = (await orchestrator.sessions.get(sessionId))?.nodes['send']?.taskId;
    expect(taskId).toEqual(expect.any(String));
    // Someone cancels the task at the agent itself (its own client, an operator, its expiry).
    const agent = new A2AClient({ url: `${mail.url}${A2A_ENDPOINT_PATH}`, token: TEST_TOKEN });
    await agent.cancelTask({ id: taskId! });

    const session = await eventually(async () => {
      const read = await orchestrator.sessions.get(sessionId);
      return read?.status === 'completed' || read?.status === 'failed' ? read : undefined;
    }, 'the run to end');
    expect(session.approvals[asked.approvalId]).toMatchObject({ status: 'withdrawn' });
    expect(session.nodes['send']).toMatchObject({
      state: 'rejected',
      error: expect.stringContaining('ended the task before anyone decided') as unknown,
    });
    const events = await run.done;
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.answer).toContain('its agent ended the task before anyone decided');
    // Nothing was sent to the ended task.
    expect(mail.requests.filter((request) => request.taskId === taskId)).toHaveLength(1);
  });
});
