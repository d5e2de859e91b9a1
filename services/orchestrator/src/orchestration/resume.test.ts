import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { z } from 'zod';
import {
  approvalDecisionSchema,
  createMessage,
  dataPart,
  findData,
  nodeInputSchema,
  partsText,
  textPart,
  type Plan,
  type ProgressEvent,
} from '@fleet/a2a';
import type { AgentContext } from '@fleet/a2a/server';
import { silentLogger, type RunningServer } from '@fleet/http';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import { startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  eventually,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';
import { resumeSessions } from './resume-sessions';

const prefix = `test:orchestrator-resume:${randomUUID()}:`;

type ApprovalRequired = Extract<ProgressEvent, { type: 'approval-required' }>;
const isApprovalRequired = (event: ProgressEvent): event is ApprovalRequired =>
  event.type === 'approval-required';
type RunStart = Extract<ProgressEvent, { type: 'run-start' }>;
const isRunStart = (event: ProgressEvent): event is RunStart => event.type === 'run-start';

/** A gate the test opens by hand. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

const runningElsewhereSchema = z.object({
  runningElsewhere: z.object({ sessionId: z.string(), taskId: z.string().optional() }),
});

describe('orchestrator resume and durability (real Redis, real A2A agents)', () => {
  let redis: Redis;
  let web: ScriptedAgent;
  let mail: ScriptedAgent;
  let writer: ScriptedAgent;
  /** Agents that keep working when their caller goes away (as the fleet's agents do). */
  let slowMail: RunningServer;
  let slow: RunningServer;
  const slowMailTurns: { taskId: string; decision: unknown }[] = [];
  const slowTurns: string[] = [];
  let slowMailGate = gate();
  let slowMailContinued = gate();
  let slowGate = gate();
  const orchestrators: TestOrchestrator[] = [];
  let agentUrls: string[];

  const start = async (
    options: Partial<Parameters<typeof startTestOrchestrator>[0]> = {},
  ): Promise<TestOrchestrator> => {
    const orchestrator = await startTestOrchestrator({ redis, prefix, agentUrls, ...options });
    orchestrators.push(orchestrator);
    return orchestrator;
  };

  /** The turns one session's node got from a scripted agent (its first turn, then continuations). */
  const turnsOf = (agent: ScriptedAgent, sessionId: string) => {
    const first = agent.requests.filter((request) => request.nodeInput?.sessionId === sessionId);
    const taskIds = new Set(first.map((request) => request.taskId));
    return agent.requests.filter((request) => taskIds.has(request.taskId));
  };

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    web = await startScriptedAgent({ name: 'web', internalToken: TEST_TOKEN });
    mail = await startScriptedAgent({
      name: 'mail',
      internalToken: TEST_TOKEN,
      respond: (request) =>
        request.isContinuation
          ? { text: 'Mail sent.' }
          : { approval: { action: 'send-mail', summary: 'Send the report to Bob' } },
    });
    writer = await startScriptedAgent({ name: 'writer', internalToken: TEST_TOKEN });
    slowMail = await startTestAgent({
      name: 'slow-mail',
      token: TEST_TOKEN,
      cancelOnDisconnect: false,
      execute: async function* ({ taskId, message, isContinuation }: AgentContext) {
        await Promise.resolve();
        if (!isContinuation) {
          yield {
            type: 'status',
            state: 'TASK_STATE_AUTH_REQUIRED',
            message: [
              textPart('Send it?'),
              dataPart({ approval: { action: 'send-mail', summary: 'Send it slowly' } }),
            ],
          };
          return;
        }
        slowMailTurns.push({
          taskId,
          decision: findData(message.parts, approvalDecisionSchema)?.approvalDecision,
        });
        slowMailContinued.open();
        await slowMailGate.wait;
        yield { type: 'artifact', artifact: { name: 'result', parts: [textPart('Sent slowly.')] } };
      },
    });
    slow = await startTestAgent({
      name: 'slow',
      token: TEST_TOKEN,
      cancelOnDisconnect: false,
      execute: async function* ({ message }: AgentContext) {
        slowTurns.push(findData(message.parts, nodeInputSchema)?.fleet.sessionId ?? '?');
        yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'working' };
        await slowGate.wait;
        yield { type: 'artifact', artifact: { name: 'result', parts: [textPart('slow result')] } };
      },
    });
    agentUrls = [web.url, mail.url, writer.url, slowMail.url, slow.url];
  });

  afterAll(async () => {
    slowMailGate.open();
    slowGate.open();
    await Promise.all(orchestrators.map((orchestrator) => orchestrator.close()));
    await Promise.all([
      web.close(),
      mail.close(),
      writer.close(),
      slowMail.shutdown(),
      slow.shutdown(),
    ]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  const mailPlan: Plan = {
    nodes: [
      { id: 'fetch', agent: 'web', task: 'Find the report', dependsOn: [] },
      { id: 'send', agent: 'mail', task: 'Send the report to Bob', dependsOn: ['fetch'] },
      { id: 'write', agent: 'writer', task: 'Say what was done', dependsOn: ['send'] },
    ],
    rationale: 'fetch, send, report',
    confidence: 1,
  };

  /** Starts a run on a first orchestrator and stops that orchestrator once the step waits. */
  async function stopWhileWaiting(plan: Plan, options: { hitlTimeoutSeconds?: number } = {}) {
    const first = await start(options);
    const run = orchestrate(first.client, {
      text: 'Send Bob the report',
      fleet: { tenant: 'acme', plan },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    await first.close();
    const events = await run.done;
    return { sessionId, asked, events, sessions: first.sessions };
  }

  let completedSessionId: string | undefined;

  it('resumes a session whose orchestrator stopped while a step waited for approval', async () => {
    const { sessionId, asked, events: firstEvents } = await stopWhileWaiting(mailPlan);
    // The first orchestrator handed the session over: its task says how to go on, the session is
    // still open, and its runner lease is free.
    expect(outcomeOf(firstEvents)).toMatchObject({
      state: 'TASK_STATE_FAILED',
      message: expect.stringContaining(`Resume session ${sessionId}`),
    });
    const second = await start();
    const stored = await second.sessions.get(sessionId);
    expect(stored?.status).toBe('waiting_approval');
    expect(stored?.nodes['fetch']?.state).toBe('completed');
    expect(stored?.nodes['send']?.state).toBe('waiting_approval');

    // A person decides while no orchestrator runs the session (the gateway records it).
    await second.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'acme',
      decision: 'approve',
    });
    const resumed = orchestrate(second.client, {
      text: 'resume',
      fleet: { tenant: 'acme', resumeSessionId: sessionId },
    });
    const events = await resumed.done;
    const { progress, lines } = readStream(events);
    expect(progress[0]).toEqual({ type: 'run-start', sessionId });
    expect(lines[1]).toBe(
      `Resuming session ${sessionId}: 1 of 3 steps done (fetch); waiting for approval: send; still to run: write.`,
    );
    // The agents' own progress lines (agent-progress.test.ts) are not state changes.
    expect(progress.map((event) => event.type).filter((type) => type !== 'node-progress')).toEqual([
      'run-start',
      'plan-end',
      'approval-end',
      'node-end',
      'node-start',
      'node-end',
      'compose-start',
      'run-end',
    ]);
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.result?.nodes.map((node) => [node.id, node.state])).toEqual([
      ['fetch', 'completed'],
      ['send', 'completed'],
      ['write', 'completed'],
    ]);
    // The completed step was not run again; the approved action ran exactly once.
    expect(turnsOf(web, sessionId)).toHaveLength(1);
    const mailTurns = turnsOf(mail, sessionId);
    expect(mailTurns).toHaveLength(2);
    expect(mailTurns[1]?.approvalDecision).toEqual({ decision: 'approve' });
    // The writer got the step done before the restart as its dependency.
    expect(turnsOf(writer, sessionId)[0]?.nodeInput?.dependencyOutputs['send']?.summary).toBe(
      'Mail sent.',
    );
    const taskEvent = events[0];
    const done = await second.sessions.get(sessionId);
    expect(done?.status).toBe('completed');
    expect(done?.taskId).toBe(
      taskEvent !== undefined && 'task' in taskEvent ? taskEvent.task.id : '',
    );
    completedSessionId = sessionId;
  });

  it('answers a resume of a completed session with its stored result at once', async () => {
    const orchestrator = await start();
    const sessionId = completedSessionId as string;
    const stored = await orchestrator.sessions.get(sessionId);
    const webTurns = web.requests.length;
    const events = await orchestrate(orchestrator.client, {
      text: 'resume',
      fleet: { tenant: 'acme', resumeSessionId: sessionId },
    }).done;
    expect(readStream(events).progress).toEqual([
      { type: 'run-start', sessionId },
      { type: 'run-end', state: 'completed' },
    ]);
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.answer).toBe(stored?.result?.text);
    expect(outcome.result).toMatchObject({ sessionId, failedNodes: [], plan: mailPlan });
    expect(web.requests.length).toBe(webTurns);
  });

  it('does not deliver again a decision that reached the agent before the orchestrator stopped', async () => {
    slowMailGate = gate();
    slowMailContinued = gate();
    const plan: Plan = {
      nodes: [{ id: 'send', agent: 'slow-mail', task: 'Send it', dependsOn: [] }],
      rationale: 'one step',
      confidence: 1,
    };
    const first = await start();
    const run = orchestrate(first.client, { text: 'Send it', fleet: { tenant: 'acme', plan } });
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    await first.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'acme',
      decision: 'approve',
    });
    // The agent got the decision and is acting on it when the orchestrator stops.
    await slowMailContinued.wait;
    await first.close();
    await run.done;
    const stopped = await first.sessions.get(sessionId);
    const deliveredAt = stopped?.approvals[asked.approvalId]?.deliveredAt;
    expect(deliveredAt).toEqual(expect.any(String));
    expect(stopped?.nodes['send']?.state).toBe('running');

    // The gateway's way: a non-blocking SendMessage; the run goes on in the background.
    const second = await start();
    const reply = await second.client.sendMessage({
      message: createMessage({
        parts: [
          textPart('resume'),
          dataPart({ fleet: { tenant: 'acme', resumeSessionId: sessionId } }),
        ],
      }),
      configuration: { returnImmediately: true },
    });
    if (!('id' in reply)) throw new Error('expected a task');
    slowMailGate.open();
    const task = await eventually(async () => {
      const current = await second.client.getTask({ id: reply.id });
      return current.status.state === 'TASK_STATE_COMPLETED' ? current : undefined;
    }, 'the resumed run to complete');
    expect(partsText(task.artifacts?.[0]?.parts ?? [])).toContain('Sent slowly.');
    expect(slowMailTurns.filter((turn) => turn.taskId === stopped?.nodes['send']?.taskId)).toEqual([
      { taskId: stopped?.nodes['send']?.taskId, decision: { decision: 'approve' } },
    ]);
    const done = await second.sessions.get(sessionId);
    expect(done?.status).toBe('completed');
    expect(done?.approvals[asked.approvalId]?.deliveredAt).toBe(deliveredAt);
    expect(done?.nodes['send']).toMatchObject({ state: 'completed', summary: 'Sent slowly.' });
  });

  it('follows a step that was running when the orchestrator stopped instead of sending it again', async () => {
    slowGate = gate();
    const plan: Plan = {
      nodes: [
        { id: 'work', agent: 'slow', task: 'Work slowly', dependsOn: [] },
        { id: 'write', agent: 'writer', task: 'Write it up', dependsOn: ['work'] },
      ],
      rationale: 'r',
      confidence: 1,
    };
    const first = await start();
    const run = orchestrate(first.client, { text: 'Work', fleet: { tenant: 'acme', plan } });
    const { sessionId } = await run.waitFor(isRunStart);
    await eventually(
      async () => (await first.sessions.get(sessionId))?.nodes['work']?.taskId,
      'the step’s agent task to be recorded',
    );
    await first.close();
    await run.done;

    const second = await start();
    const resumed = orchestrate(second.client, {
      text: 'resume',
      fleet: { tenant: 'acme', resumeSessionId: sessionId },
    });
    await resumed.waitFor((event) => event.type === 'plan-end');
    slowGate.open();
    const events = await resumed.done;
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.answer).toContain('slow result');
    expect(slowTurns.filter((id) => id === sessionId)).toHaveLength(1);
    expect(readStream(events).lines[1]).toBe(
      `Resuming session ${sessionId}: 0 of 2 steps done; under way: work; still to run: write.`,
    );
  });

  it('lets one of two concurrent resumes run and tells the other the session runs elsewhere', async () => {
    const { sessionId, asked } = await stopWhileWaiting(mailPlan);
    const [second, third] = await Promise.all([start(), start()]);
    const resumes = [second, third].map((orchestrator) =>
      orchestrate(orchestrator.client, {
        text: 'resume',
        fleet: { tenant: 'acme', resumeSessionId: sessionId },
      }),
    );
    // One of them ends at once; the other waits for the approval.
    const firstDone = await Promise.race(
      resumes.map((resume, index) => resume.done.then(() => index)),
    );
    const loser = resumes[firstDone];
    const winner = resumes[1 - firstDone];
    if (loser === undefined || winner === undefined) throw new Error('expected two resumes');
    const lost = outcomeOf(loser.events);
    expect(lost.state).toBe('TASK_STATE_FAILED');
    expect(lost.message).toMatch(
      new RegExp(`^Session ${sessionId} is running on another orchestrator`),
    );
    const last = loser.events.at(-1);
    const parts =
      last !== undefined && 'statusUpdate' in last ? last.statusUpdate.status.message?.parts : [];
    expect(findData(parts ?? [], runningElsewhereSchema)?.runningElsewhere.sessionId).toBe(
      sessionId,
    );

    await winner.waitFor(isApprovalRequired);
    await second.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'acme',
      decision: 'approve',
    });
    expect(outcomeOf(await winner.done).state).toBe('TASK_STATE_COMPLETED');
    expect(turnsOf(mail, sessionId)).toHaveLength(2);
  });

  it('expires overdue approvals at start-up and finishes their sessions without a client', async () => {
    const { sessionId, asked } = await stopWhileWaiting(mailPlan, { hitlTimeoutSeconds: 2 });
    // Nobody runs the session while its approval expires.
    await eventually(
      () => Promise.resolve(Date.now() > Date.parse(asked.expiresAt) ? true : undefined),
      'the approval’s expiry',
    );
    // What main.ts does at start-up.
    const next = await start();
    const expired = await next.sessions.expireOverdueApprovals();
    expect(expired).toContainEqual({ sessionId, approvalId: asked.approvalId });
    const started = await resumeSessions({
      handler: next.handler,
      sessions: next.sessions,
      sessionIds: expired.map((entry) => entry.sessionId),
      logger: silentLogger,
    });
    expect(started[sessionId]).toEqual(expect.any(String));
    const done = await eventually(async () => {
      const current = await next.sessions.get(sessionId);
      return current?.status === 'completed' ? current : undefined;
    }, 'the session to complete');
    expect(done.approvals[asked.approvalId]).toMatchObject({ status: 'expired' });
    expect(done.nodes['send']).toMatchObject({
      state: 'rejected',
      error: 'approval expired before anyone decided',
    });
    expect(done.result?.text).toContain('approval expired before anyone decided');
    expect(turnsOf(mail, sessionId)[1]?.approvalDecision).toEqual({
      decision: 'deny',
      instructions: 'approval expired before anyone decided',
    });
  });

  it('refuses to resume an unknown session or another tenant’s', async () => {
    const orchestrator = await start();
    const sessionId = completedSessionId as string;
    for (const fleet of [
      { tenant: 'acme', resumeSessionId: 'no-such-session' },
      { tenant: 'other-tenant', resumeSessionId: sessionId },
    ]) {
      const outcome = outcomeOf(await orchestrate(orchestrator.client, { text: 'x', fleet }).done);
      expect(outcome.state).toBe('TASK_STATE_FAILED');
      expect(outcome.message).toMatch(/does not exist or has expired/);
    }
  });
});
