import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  dataPart,
  findData,
  planRequestSchema,
  textPart,
  type Plan,
  type PlanRequest,
  type ProgressEvent,
} from '@fleet/a2a';
import type { RunningServer } from '@fleet/http';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';
import { isGoAhead } from './plan-confidence';
import type { PlanConfidenceSettings } from './plan-confidence';

const prefix = `test:orchestrator-confidence:${randomUUID()}:`;

type RunStart = Extract<ProgressEvent, { type: 'run-start' }>;
const isRunStart = (event: ProgressEvent): event is RunStart => event.type === 'run-start';
type InputRequired = Extract<ProgressEvent, { type: 'input-required' }>;
const isInputRequired = (event: ProgressEvent): event is InputRequired =>
  event.type === 'input-required';
type ApprovalRequired = Extract<ProgressEvent, { type: 'approval-required' }>;
const isApprovalRequired = (event: ProgressEvent): event is ApprovalRequired =>
  event.type === 'approval-required';

const UNCERTAIN = /^The plan is uncertain \(confidence 0\.30, below 0\.5\): /;

describe('plan confidence (real Redis, real A2A agents)', () => {
  let redis: Redis;
  let web: ScriptedAgent;
  let planner: RunningServer;
  const planRequests: PlanRequest[] = [];
  const orchestrators: TestOrchestrator[] = [];

  const start = async (planConfidence?: PlanConfidenceSettings): Promise<TestOrchestrator> => {
    const orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [web.url],
      plannerUrl: planner.url,
      ...(planConfidence === undefined ? {} : { planConfidence }),
    });
    orchestrators.push(orchestrator);
    return orchestrator;
  };
  const sent = (sessionId: string) =>
    web.requests.filter((request) => request.nodeInput?.sessionId === sessionId);

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    web = await startScriptedAgent({
      name: 'web',
      internalToken: TEST_TOKEN,
      respond: (request) => ({ text: `web did: ${request.text.split('\n')[0] ?? ''}` }),
    });
    // A planner over A2A: unsure of "vague" requests unless told more.
    planner = await startTestAgent({
      name: 'planner',
      token: TEST_TOKEN,
      execute: answering(({ message }) => {
        const request = findData(message.parts, planRequestSchema)?.planRequest;
        if (request !== undefined) planRequests.push(request);
        const vague = request?.request.startsWith('vague') === true;
        const plan: Plan =
          request?.feedback === undefined
            ? {
                nodes: [{ id: 'guess', agent: 'web', task: 'Guess what is meant', dependsOn: [] }],
                rationale: 'a guess',
                confidence: vague ? 0.3 : 0.8,
              }
            : {
                nodes: [{ id: 'search', agent: 'web', task: request.feedback, dependsOn: [] }],
                rationale: `as told: ${request.feedback}`,
                confidence: request.feedback.includes('still vague') ? 0.3 : 0.9,
              };
        return [
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [textPart('plan'), dataPart({ plan, source: 'llm', attempts: 1 })],
            },
          },
        ];
      }),
    });
  });

  afterAll(async () => {
    await Promise.all(orchestrators.map((orchestrator) => orchestrator.close()));
    await Promise.all([web.close(), planner.shutdown()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('runs an uncertain plan by default, saying so in the stream', async () => {
    const orchestrator = await start();
    const events = await orchestrate(orchestrator.client, {
      text: 'vague request',
      fleet: { tenant: 'acme' },
    }).done;
    const { lines } = readStream(events);
    expect(lines.filter((line) => UNCERTAIN.test(line))).toEqual([
      'The plan is uncertain (confidence 0.30, below 0.5): running it anyway (X-Low-Confidence: approve or ask to be consulted first).',
    ]);
    expect(outcomeOf(events).state).toBe('TASK_STATE_COMPLETED');
    expect(outcomeOf(events).result?.plan.nodes.map((node) => node.id)).toEqual(['guess']);
  });

  it('says nothing about a plan at or above the threshold, whatever the mode', async () => {
    const orchestrator = await start({ threshold: 0.5, mode: 'ask' });
    const events = await orchestrate(orchestrator.client, {
      text: 'clear request',
      fleet: { tenant: 'acme' },
    }).done;
    expect(readStream(events).lines.some((line) => line.includes('uncertain'))).toBe(false);
    expect(readStream(events).progress.some(isInputRequired)).toBe(false);
    expect(outcomeOf(events).state).toBe('TASK_STATE_COMPLETED');
  });

  it('approve: shows the uncertain plan for approval before any step runs', async () => {
    const orchestrator = await start();
    const run = orchestrate(orchestrator.client, {
      text: 'vague request',
      fleet: { tenant: 'acme', lowConfidence: 'approve' },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    expect(asked).toMatchObject({ kind: 'plan', action: 'run-plan' });
    expect(sent(sessionId)).toEqual([]);
    expect(await orchestrator.sessions.get(sessionId)).toMatchObject({
      status: 'waiting_approval',
      planApproval: true,
    });
    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'acme',
      decision: 'approve',
    });
    const events = await run.done;
    expect(readStream(events).lines).toContain(
      'The plan is uncertain (confidence 0.30, below 0.5): showing it for your approval before any step runs.',
    );
    expect(outcomeOf(events).state).toBe('TASK_STATE_COMPLETED');
    expect(sent(sessionId)).toHaveLength(1);
  });

  it('ask: the reply re-plans; the new plan runs', async () => {
    // The orchestrator-wide default, not the request, chooses here.
    const orchestrator = await start({ threshold: 0.5, mode: 'ask' });
    const before = planRequests.length;
    const run = orchestrate(orchestrator.client, {
      text: 'vague request',
      fleet: { tenant: 'acme' },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const question = await run.waitFor(isInputRequired);
    expect(question).toMatchObject({ nodeId: 'plan', agent: 'orchestrator' });
    expect(question.question).toContain('confidence 0.30, below 0.5');
    expect(question.question).toContain('1. guess (web): Guess what is meant');
    expect(question.question).toContain('"go ahead"');
    expect(await orchestrator.sessions.get(sessionId)).toMatchObject({ status: 'waiting_input' });
    expect(sent(sessionId)).toEqual([]);

    await orchestrator.sessions.answerInput({
      sessionId,
      inputId: question.inputId,
      tenant: 'acme',
      text: 'search the web for the 2026 Lisbon marathon date',
    });
    const events = await run.done;
    const stream = readStream(events);
    expect(stream.lines).toContain(
      'The plan is uncertain (confidence 0.30, below 0.5): asking you about it before any step runs.',
    );
    // The agents' own progress lines (agent-progress.test.ts) are not state changes.
    expect(
      stream.progress.map((event) => event.type).filter((type) => type !== 'node-progress'),
    ).toEqual([
      'run-start',
      'plan-start',
      'plan-end',
      'input-required',
      'plan-start',
      'input-end',
      'plan-end',
      'node-start',
      'node-end',
      'compose-start',
      'run-end',
    ]);
    expect(planRequests.slice(before)[1]).toMatchObject({
      feedback: 'search the web for the 2026 Lisbon marathon date',
      previousPlan: { rationale: 'a guess' },
    });
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.result?.plan.nodes.map((node) => node.id)).toEqual(['search']);
    expect(sent(sessionId).map((request) => request.text.split('\n')[0])).toEqual([
      'search the web for the 2026 Lisbon marathon date',
    ]);
    expect(await orchestrator.sessions.get(sessionId)).toMatchObject({
      status: 'completed',
      planFeedback: ['search the web for the 2026 Lisbon marathon date'],
    });
  });

  it('ask: "go ahead" runs the plan as it is', async () => {
    const orchestrator = await start();
    const before = planRequests.length;
    const run = orchestrate(orchestrator.client, {
      text: 'vague request',
      fleet: { tenant: 'acme', lowConfidence: 'ask' },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const question = await run.waitFor(isInputRequired);
    await orchestrator.sessions.answerInput({
      sessionId,
      inputId: question.inputId,
      tenant: 'acme',
      text: 'Go ahead.',
    });
    const events = await run.done;
    expect(planRequests.length - before).toBe(1);
    expect(outcomeOf(events).result?.plan.nodes.map((node) => node.id)).toEqual(['guess']);
    expect(sent(sessionId)).toHaveLength(1);
  });

  it('ask: nobody answering runs nothing', async () => {
    const orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [web.url],
      plannerUrl: planner.url,
      hitlTimeoutSeconds: 1,
    });
    orchestrators.push(orchestrator);
    const run = orchestrate(orchestrator.client, {
      text: 'vague request',
      fleet: { tenant: 'acme', lowConfidence: 'ask' },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const events = await run.done;
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.answer).toMatch(
      /^The plan was not approved \(nobody answered the question about the uncertain plan \(timed out\)\), so no step was run\./,
    );
    expect(sent(sessionId)).toEqual([]);
  });
});

describe('isGoAhead', () => {
  it('takes short consent as "run it" and anything else as feedback', () => {
    for (const reply of ['go ahead', 'Yes!', 'ok', 'run it.', ' proceed ']) {
      expect(isGoAhead(reply)).toBe(true);
    }
    for (const reply of ['no', 'yes but only the docs', 'search the web instead']) {
      expect(isGoAhead(reply)).toBe(false);
    }
  });
});
