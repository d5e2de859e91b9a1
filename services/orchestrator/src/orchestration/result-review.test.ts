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
  type ReviewDecision,
  type StreamResponse,
} from '@fleet/a2a';
import { silentLogger, type RunningServer } from '@fleet/http';
import type { Session } from '@fleet/sessions';
import {
  startScriptedAgent,
  startScriptedOpenAI,
  type ScriptedAgent,
  type ScriptedOpenAI,
} from '@fleet/testing';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  eventually,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type Streaming,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';
import { REVIEW_TIMED_OUT_MESSAGE, revisionScope } from './result-review';
import { resumeSessions } from './resume-sessions';

const prefix = `test:orchestrator-result-review:${randomUUID()}:`;

type ReviewRequired = Extract<ProgressEvent, { type: 'review-required' }>;
type RunStart = Extract<ProgressEvent, { type: 'run-start' }>;
const isRunStart = (event: ProgressEvent): event is RunStart => event.type === 'run-start';
const isApprovalRequired = (
  event: ProgressEvent,
): event is Extract<ProgressEvent, { type: 'approval-required' }> =>
  event.type === 'approval-required';
/** Matches the `review-required` of one round. */
const reviewRound =
  (round: number) =>
  (event: ProgressEvent): event is ReviewRequired =>
    event.type === 'review-required' && event.round === round;

/** a and b side by side, c after b. */
const threeSteps: Plan = {
  nodes: [
    { id: 'a', agent: 'alpha', task: 'Find the prices', dependsOn: [] },
    { id: 'b', agent: 'beta', task: 'Convert the units', dependsOn: [] },
    { id: 'c', agent: 'gamma', task: 'Sum it up', dependsOn: ['b'] },
  ],
  rationale: 'prices, units, summary',
  confidence: 1,
};

/** web → send (asks for approval) → write. */
const mailPlan: Plan = {
  nodes: [
    { id: 'fetch', agent: 'alpha', task: 'Find the report', dependsOn: [] },
    { id: 'send', agent: 'mail', task: 'Send the report to Bob', dependsOn: ['fetch'] },
    { id: 'write', agent: 'gamma', task: 'Say what was done', dependsOn: ['send'] },
  ],
  rationale: 'fetch, send, report',
  confidence: 1,
};

/** The plan the planner makes: a and b, or, told a reviewer's feedback, a and x. */
const plannedFirst: Plan = {
  nodes: [
    { id: 'a', agent: 'alpha', task: 'Find the prices', dependsOn: [] },
    { id: 'b', agent: 'beta', task: 'Convert the units', dependsOn: [] },
  ],
  rationale: 'prices and units',
  confidence: 0.9,
};
const plannedAgain: Plan = {
  nodes: [
    { id: 'a', agent: 'alpha', task: 'Find the prices', dependsOn: [] },
    { id: 'x', agent: 'gamma', task: 'Compare the prices', dependsOn: ['a'] },
  ],
  rationale: 'prices, compared',
  confidence: 0.9,
};

describe('result review (real Redis, real A2A agents, scripted model)', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let alpha: ScriptedAgent;
  let beta: ScriptedAgent;
  let gamma: ScriptedAgent;
  let mail: ScriptedAgent;
  let streamer: ScriptedAgent;
  let planner: RunningServer;
  const planRequests: PlanRequest[] = [];
  const orchestrators: TestOrchestrator[] = [];
  let agentUrls: string[];
  let composed = 0;

  const start = async (
    options: Partial<Parameters<typeof startTestOrchestrator>[0]> = {},
  ): Promise<TestOrchestrator> => {
    const orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls,
      plannerUrl: planner.url,
      llmBaseUrl: llm.baseURL,
      ...options,
    });
    orchestrators.push(orchestrator);
    return orchestrator;
  };

  /** The turns one session's steps got from a scripted agent. */
  const turnsOf = (agent: ScriptedAgent, sessionId: string) => {
    const first = agent.requests.filter((request) => request.nodeInput?.sessionId === sessionId);
    const taskIds = new Set(first.map((request) => request.taskId));
    return agent.requests.filter((request) => taskIds.has(request.taskId));
  };

  /** The composer's calls so far (every chat completion of the scripted model). */
  const composerCalls = () =>
    llm.requests.filter((request) => request.path.endsWith('/completions'));

  const decide = (
    orchestrator: TestOrchestrator,
    sessionId: string,
    decision: ReviewDecision,
  ): Promise<unknown> =>
    orchestrator.sessions.decideReview({ sessionId, tenant: 'acme', decision });

  const reviewsOf = (session: Session | undefined) =>
    Object.values(session?.approvals ?? {})
      .filter((approval) => approval.kind === 'review')
      .sort((a, b) => (a.review?.round ?? 0) - (b.review?.round ?? 0));

  const start3 = (orchestrator: TestOrchestrator, plan: Plan = threeSteps): Streaming =>
    orchestrate(orchestrator.client, {
      text: 'What do the parts cost in metric?',
      fleet: { tenant: 'acme', plan, resultReview: 'required' },
    });

  const artifacts = (events: StreamResponse[]) =>
    events.filter((event) => 'artifactUpdate' in event).length;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    llm = await startScriptedOpenAI({
      respond: () => {
        composed += 1;
        return { content: `Composed answer ${composed}.` };
      },
    });
    alpha = await startScriptedAgent({ name: 'alpha', internalToken: TEST_TOKEN });
    beta = await startScriptedAgent({ name: 'beta', internalToken: TEST_TOKEN });
    gamma = await startScriptedAgent({ name: 'gamma', internalToken: TEST_TOKEN });
    mail = await startScriptedAgent({
      name: 'mail',
      internalToken: TEST_TOKEN,
      respond: (request) =>
        request.isContinuation
          ? { text: 'Mail sent.' }
          : { approval: { action: 'send-mail', summary: 'Send the report to Bob' } },
    });
    streamer = await startScriptedAgent({
      name: 'streamer',
      internalToken: TEST_TOKEN,
      reply: { chunks: ['Paris is ', 'the capital.'] },
    });
    planner = await startTestAgent({
      name: 'planner',
      token: TEST_TOKEN,
      execute: answering(({ message }) => {
        const request = findData(message.parts, planRequestSchema)?.planRequest;
        if (request !== undefined) planRequests.push(request);
        const plan = request?.feedback === undefined ? plannedFirst : plannedAgain;
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
    agentUrls = [alpha.url, beta.url, gamma.url, mail.url, streamer.url];
  });

  afterAll(async () => {
    await Promise.all(orchestrators.map((orchestrator) => orchestrator.close()));
    await Promise.all([
      alpha.close(),
      beta.close(),
      gamma.close(),
      mail.close(),
      streamer.close(),
      llm.close(),
      planner.shutdown(),
    ]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('re-runs a revised step and its dependents only, with the feedback, then sends the approved answer', async () => {
    const orchestrator = await start();
    const run = start3(orchestrator);
    const { sessionId } = await run.waitFor(isRunStart);
    const first = await run.waitFor(reviewRound(1));
    expect(first.answer).toMatch(/^Composed answer \d+\.$/);
    expect(first.onTimeout).toBe('approve');
    expect(first.steps).toEqual([
      { id: 'a', agent: 'alpha', state: 'completed', summary: 'alpha handled: Find the prices' },
      { id: 'b', agent: 'beta', state: 'completed', summary: 'beta handled: Convert the units' },
      { id: 'c', agent: 'gamma', state: 'completed', summary: expect.stringContaining('gamma') },
    ]);
    // Nothing of the answer went out: it is not final.
    expect(artifacts(run.events)).toBe(0);
    const waiting = await orchestrator.sessions.get(sessionId);
    expect(waiting?.status).toBe('waiting_approval');
    expect(waiting?.approvals[first.approvalId]).toMatchObject({
      kind: 'review',
      action: 'review-answer',
      status: 'pending',
      risk: 'low',
      preview: first.answer,
      review: { round: 1, answer: first.answer },
    });

    await decide(orchestrator, sessionId, {
      decision: 'revise',
      steps: ['b'],
      feedback: 'Use metric units',
    });
    const second = await run.waitFor(reviewRound(2));
    expect(second.answer).not.toBe(first.answer);
    expect(artifacts(run.events)).toBe(0);
    await decide(orchestrator, sessionId, { decision: 'approve' });
    const events = await run.done;

    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.answer).toBe(second.answer);
    expect(artifacts(events)).toBe(1);
    const { progress } = readStream(events);
    expect(progress.filter((event) => event.type === 'review-end')).toEqual([
      {
        type: 'review-end',
        approvalId: first.approvalId,
        round: 1,
        decision: 'revise',
        feedback: 'Use metric units',
        targets: ['b'],
        rerun: ['b', 'c'],
        kept: [],
      },
      { type: 'review-end', approvalId: second.approvalId, round: 2, decision: 'approve' },
    ]);

    // a ran once; b and c twice, b the second time with the feedback and its previous result.
    expect(turnsOf(alpha, sessionId)).toHaveLength(1);
    const betaTurns = turnsOf(beta, sessionId);
    expect(betaTurns).toHaveLength(2);
    expect(betaTurns[1]?.text).toContain(
      'Convert the units\n\nA reviewer sent this step back: Use metric units\nYour previous result: beta handled: Convert the units',
    );
    const gammaTurns = turnsOf(gamma, sessionId);
    expect(gammaTurns).toHaveLength(2);
    // c was not named: its task is as planned; it works from b's new result.
    expect(gammaTurns[1]?.text).not.toContain('Your previous result: gamma');
    expect(gammaTurns[1]?.nodeInput?.dependencyOutputs['b']?.summary).toContain(
      'A reviewer sent this step back: Use metric units',
    );

    const done = await orchestrator.sessions.get(sessionId);
    expect(done?.status).toBe('completed');
    expect(done?.result?.text).toBe(second.answer);
    // The recorded plan keeps the original task; the node says why it ran again.
    expect(done?.plan?.nodes.find((node) => node.id === 'b')?.task).toBe('Convert the units');
    expect(done?.nodes['b']).toMatchObject({
      state: 'completed',
      attempts: 1,
      revision: { round: 1, feedback: 'Use metric units' },
    });
    expect(done?.nodes['c']?.revision).toBeUndefined();
    expect(done?.nodes['a']?.revision).toBeUndefined();
    const rounds = reviewsOf(done);
    expect(rounds.map((approval) => [approval.status, approval.review])).toEqual([
      [
        'denied',
        expect.objectContaining({
          round: 1,
          decision: 'revise',
          targets: ['b'],
          feedback: 'Use metric units',
          rerun: ['b', 'c'],
          kept: [],
        }),
      ],
      ['approved', expect.objectContaining({ round: 2, decision: 'approve' })],
    ]);
    expect(rounds.every((approval) => approval.deliveredAt !== undefined)).toBe(true);
  });

  it('keeps the result of a dependent whose approved action was carried out', async () => {
    const orchestrator = await start();
    const run = start3(orchestrator, mailPlan);
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'acme',
      decision: 'approve',
    });
    await run.waitFor(reviewRound(1));
    await decide(orchestrator, sessionId, {
      decision: 'revise',
      steps: ['fetch'],
      feedback: 'Find the newer report',
    });
    const second = await run.waitFor(reviewRound(2));
    expect(second.steps.map((step) => [step.id, step.state])).toEqual([
      ['fetch', 'completed'],
      ['send', 'completed'],
      ['write', 'completed'],
    ]);
    await decide(orchestrator, sessionId, { decision: 'approve' });
    const events = await run.done;
    expect(outcomeOf(events).state).toBe('TASK_STATE_COMPLETED');
    expect(readStream(events).progress.find((event) => event.type === 'review-end')).toMatchObject({
      decision: 'revise',
      rerun: ['fetch', 'write'],
      kept: ['send'],
    });
    // The mail went once: its first turn and the approved continuation, nothing more.
    expect(turnsOf(mail, sessionId)).toHaveLength(2);
    expect(turnsOf(alpha, sessionId)).toHaveLength(2);
    expect(turnsOf(gamma, sessionId)).toHaveLength(2);
    const done = await orchestrator.sessions.get(sessionId);
    expect(done?.nodes['send']).toMatchObject({ state: 'completed', summary: 'Mail sent.' });
    expect(reviewsOf(done)[0]?.review).toMatchObject({ rerun: ['fetch', 'write'], kept: ['send'] });
  });

  it('writes the answer again with the feedback without calling any agent again', async () => {
    const orchestrator = await start();
    const run = start3(orchestrator);
    const { sessionId } = await run.waitFor(isRunStart);
    const first = await run.waitFor(reviewRound(1));
    const calls = composerCalls().length;
    await decide(orchestrator, sessionId, { decision: 'recompose', feedback: 'Shorter, please' });
    const second = await run.waitFor(reviewRound(2));
    expect(second.answer).not.toBe(first.answer);
    // One more composer call, with the reviewer's instructions in its prompt.
    const after = composerCalls();
    expect(after).toHaveLength(calls + 1);
    expect(JSON.stringify(after.at(-1)?.body)).toContain('Shorter, please');
    await decide(orchestrator, sessionId, { decision: 'approve' });
    const events = await run.done;
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      answer: second.answer,
    });
    for (const agent of [alpha, beta, gamma]) expect(turnsOf(agent, sessionId)).toHaveLength(1);
    expect(readStream(events).progress.find((event) => event.type === 'review-end')).toEqual({
      type: 'review-end',
      approvalId: first.approvalId,
      round: 1,
      decision: 'recompose',
      feedback: 'Shorter, please',
    });
  });

  it('plans again with the feedback and what the steps did, keeping the unchanged steps', async () => {
    const orchestrator = await start();
    const run = orchestrate(orchestrator.client, {
      text: 'What do the parts cost?',
      fleet: { tenant: 'acme', resultReview: 'required' },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    await run.waitFor(reviewRound(1));
    const asked = planRequests.length;
    await decide(orchestrator, sessionId, {
      decision: 'replan',
      feedback: 'Compare the prices instead of converting units',
    });
    const second = await run.waitFor(reviewRound(2));
    expect(second.steps.map((step) => step.id)).toEqual(['a', 'x']);
    const replanRequest = planRequests[asked];
    expect(planRequests).toHaveLength(asked + 1);
    expect(replanRequest?.feedback).toContain('Compare the prices instead of converting units');
    expect(replanRequest?.feedback).toContain(
      '- a (alpha, completed): alpha handled: Find the prices',
    );
    expect(replanRequest?.previousPlan?.nodes.map((node) => node.id)).toEqual(['a', 'b']);
    await decide(orchestrator, sessionId, { decision: 'approve' });
    const events = await run.done;
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.result?.plan.nodes.map((node) => node.id)).toEqual(['a', 'x']);
    // a is the same step in both plans: it kept its result.
    expect(turnsOf(alpha, sessionId)).toHaveLength(1);
    expect(turnsOf(beta, sessionId)).toHaveLength(1);
    expect(turnsOf(gamma, sessionId)).toHaveLength(1);
    const types = readStream(events).progress.map((event) => event.type);
    expect(types.filter((type) => type === 'plan-start')).toHaveLength(2);
    expect(types.filter((type) => type === 'plan-end')).toHaveLength(2);
    const done = await orchestrator.sessions.get(sessionId);
    expect(done?.plan?.nodes.map((node) => node.id)).toEqual(['a', 'x']);
  });

  it('sends the answer as it stands when nobody reviews it in time', async () => {
    const orchestrator = await start({ review: { timeoutSeconds: 1 } });
    const run = start3(orchestrator);
    const { sessionId } = await run.waitFor(isRunStart);
    const first = await run.waitFor(reviewRound(1));
    const expiresIn = Date.parse(first.expiresAt) - Date.now();
    expect(expiresIn).toBeLessThanOrEqual(1000);
    const events = await run.done;
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      answer: first.answer,
    });
    expect(readStream(events).progress.find((event) => event.type === 'review-end')).toEqual({
      type: 'review-end',
      approvalId: first.approvalId,
      round: 1,
      decision: 'approve',
      timedOut: true,
    });
    const done = await orchestrator.sessions.get(sessionId);
    expect(done?.status).toBe('completed');
    expect(reviewsOf(done)[0]).toMatchObject({
      status: 'timed_out',
      review: { round: 1, decision: 'approve', timedOut: true },
    });
  });

  it('fails the run when nobody reviews the answer in time and the time-out fails it', async () => {
    const orchestrator = await start({ review: { timeoutSeconds: 1, onTimeout: 'fail' } });
    const run = start3(orchestrator);
    const { sessionId } = await run.waitFor(isRunStart);
    const first = await run.waitFor(reviewRound(1));
    expect(first.onTimeout).toBe('fail');
    const events = await run.done;
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_FAILED',
      message: REVIEW_TIMED_OUT_MESSAGE,
      answer: undefined,
    });
    const done = await orchestrator.sessions.get(sessionId);
    expect(done).toMatchObject({ status: 'failed', error: REVIEW_TIMED_OUT_MESSAGE });
    expect(done?.result).toBeUndefined();
    expect(reviewsOf(done)[0]?.review).toMatchObject({ round: 1, timedOut: true });
  });

  it('keeps every round with its decision: revised twice, then approved', async () => {
    const orchestrator = await start();
    const run = start3(orchestrator);
    const { sessionId } = await run.waitFor(isRunStart);
    await run.waitFor(reviewRound(1));
    await decide(orchestrator, sessionId, { decision: 'revise', steps: ['a'], feedback: 'Newer' });
    await run.waitFor(reviewRound(2));
    await decide(orchestrator, sessionId, {
      decision: 'revise',
      steps: ['c'],
      feedback: 'Shorter',
    });
    const third = await run.waitFor(reviewRound(3));
    await decide(orchestrator, sessionId, { decision: 'approve' });
    const events = await run.done;
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      answer: third.answer,
    });
    const done = await orchestrator.sessions.get(sessionId);
    expect(reviewsOf(done).map((approval) => approval.review)).toEqual([
      expect.objectContaining({ round: 1, decision: 'revise', targets: ['a'], rerun: ['a'] }),
      expect.objectContaining({ round: 2, decision: 'revise', targets: ['c'], rerun: ['c'] }),
      expect.objectContaining({ round: 3, decision: 'approve' }),
    ]);
    expect(turnsOf(alpha, sessionId)).toHaveLength(2);
    expect(turnsOf(beta, sessionId)).toHaveLength(1);
    expect(turnsOf(gamma, sessionId)).toHaveLength(2);
    expect(done?.nodes['a']?.revision).toEqual({ round: 1, feedback: 'Newer' });
    expect(done?.nodes['c']?.revision).toEqual({ round: 2, feedback: 'Shorter' });
  });

  it('sends the answer as it stands after the last round', async () => {
    const orchestrator = await start({ review: { maxRounds: 1 } });
    const run = start3(orchestrator);
    const { sessionId } = await run.waitFor(isRunStart);
    const first = await run.waitFor(reviewRound(1));
    await decide(orchestrator, sessionId, { decision: 'recompose', feedback: 'Again' });
    const events = await run.done;
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      answer: first.answer,
    });
    expect(readStream(events).lines).toContain(
      'The answer was reviewed 1 time, the most a run is; it is sent as it stands.',
    );
    const done = await orchestrator.sessions.get(sessionId);
    expect(reviewsOf(done)).toHaveLength(1);
  });

  it('survives its orchestrator stopping while the answer waits for review, and while a decision waits to be acted on', async () => {
    const first = await start();
    const run = start3(first);
    const { sessionId } = await run.waitFor(isRunStart);
    const round1 = await run.waitFor(reviewRound(1));
    await first.close();
    expect(outcomeOf(await run.done).state).toBe('TASK_STATE_FAILED');

    // Resumed while the review is pending: the same round is announced again; nothing is called.
    const calls = composerCalls().length;
    const turns = () =>
      [alpha, beta, gamma].map((agent) => turnsOf(agent, sessionId).length).join(',');
    const turnsBefore = turns();
    const second = await start();
    const resumed = orchestrate(second.client, {
      text: 'resume',
      fleet: { tenant: 'acme', resumeSessionId: sessionId },
    });
    const again = await resumed.waitFor(reviewRound(1));
    expect(again).toEqual(round1);
    expect(readStream(resumed.events).lines[1]).toBe(
      `Resuming session ${sessionId}: 3 of 3 steps done (a, b, c); the answer waits for review (round 1).`,
    );
    expect(composerCalls()).toHaveLength(calls);
    expect(turns()).toBe(turnsBefore);
    await second.close();
    await resumed.done;

    // Decided while no orchestrator runs the session: the next one acts on it.
    const third = await start();
    await decide(third, sessionId, { decision: 'revise', steps: ['b'], feedback: 'Metric' });
    const resumedAgain = orchestrate(third.client, {
      text: 'resume',
      fleet: { tenant: 'acme', resumeSessionId: sessionId },
    });
    const round2 = await resumedAgain.waitFor(reviewRound(2));
    expect(composerCalls()).toHaveLength(calls + 1);
    expect(turnsOf(alpha, sessionId)).toHaveLength(1);
    expect(turnsOf(beta, sessionId)).toHaveLength(2);
    expect(turnsOf(beta, sessionId)[1]?.text).toContain('A reviewer sent this step back: Metric');
    await decide(third, sessionId, { decision: 'approve' });
    const events = await resumedAgain.done;
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      answer: round2.answer,
    });
  });

  it('ends a resumed run with the answer approved while no orchestrator ran it, calling nothing', async () => {
    const first = await start();
    const run = start3(first);
    const { sessionId } = await run.waitFor(isRunStart);
    const round1 = await run.waitFor(reviewRound(1));
    await first.close();
    await run.done;
    const second = await start();
    await decide(second, sessionId, { decision: 'approve' });
    const calls = composerCalls().length;
    const events = await orchestrate(second.client, {
      text: 'resume',
      fleet: { tenant: 'acme', resumeSessionId: sessionId },
    }).done;
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      answer: round1.answer,
    });
    expect(composerCalls()).toHaveLength(calls);
    for (const agent of [alpha, beta, gamma]) expect(turnsOf(agent, sessionId)).toHaveLength(1);
    const done = await second.sessions.get(sessionId);
    expect(done?.result?.text).toBe(round1.answer);
    expect(reviewsOf(done)[0]).toMatchObject({
      status: 'approved',
      deliveredAt: expect.any(String),
    });
  });

  it('does not stream a single step’s answer while it waits for review: the composer writes it', async () => {
    const orchestrator = await start();
    const calls = composerCalls().length;
    const run = orchestrate(orchestrator.client, {
      text: 'Capital of France?',
      fleet: {
        tenant: 'acme',
        plan: {
          nodes: [{ id: 'ask', agent: 'streamer', task: 'Capital of France?', dependsOn: [] }],
          rationale: 'one step',
          confidence: 1,
        },
        resultReview: 'required',
      },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const first = await run.waitFor(reviewRound(1));
    expect(artifacts(run.events)).toBe(0);
    expect(composerCalls()).toHaveLength(calls + 1);
    expect(first.steps).toEqual([
      { id: 'ask', agent: 'streamer', state: 'completed', summary: 'Paris is the capital.' },
    ]);
    await decide(orchestrator, sessionId, { decision: 'approve' });
    const events = await run.done;
    expect(artifacts(events)).toBe(1);
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
      answer: first.answer,
    });
  });

  it('sends the answer of a review that expired while no orchestrator ran the session', async () => {
    const first = await start({ review: { timeoutSeconds: 1 } });
    const run = start3(first);
    const { sessionId } = await run.waitFor(isRunStart);
    const round1 = await run.waitFor(reviewRound(1));
    await first.close();
    await run.done;
    await eventually(
      () => Promise.resolve(Date.now() > Date.parse(round1.expiresAt) ? true : undefined),
      'the review’s expiry',
    );
    // What main.ts does at start-up.
    const next = await start({ review: { timeoutSeconds: 1 } });
    const expired = await next.sessions.expireOverdueApprovals();
    expect(expired).toContainEqual({ sessionId, approvalId: round1.approvalId });
    const calls = composerCalls().length;
    await resumeSessions({
      handler: next.handler,
      sessions: next.sessions,
      sessionIds: [sessionId],
      logger: silentLogger,
    });
    const done = await eventually(async () => {
      const current = await next.sessions.get(sessionId);
      return current?.status === 'completed' ? current : undefined;
    }, 'the session to complete');
    expect(done.result?.text).toBe(round1.answer);
    expect(reviewsOf(done)[0]).toMatchObject({
      status: 'expired',
      review: { round: 1, decision: 'approve', timedOut: true },
    });
    expect(composerCalls()).toHaveLength(calls);
    for (const agent of [alpha, beta, gamma]) expect(turnsOf(agent, sessionId)).toHaveLength(1);
  });
});

describe('revisionScope', () => {
  /** a → b → c → d, and e beside them. */
  const chain: Plan = {
    nodes: [
      { id: 'd', agent: 'x', task: 'd', dependsOn: ['c'] },
      { id: 'c', agent: 'x', task: 'c', dependsOn: ['b'] },
      { id: 'b', agent: 'x', task: 'b', dependsOn: ['a'] },
      { id: 'a', agent: 'x', task: 'a', dependsOn: [] },
      { id: 'e', agent: 'x', task: 'e', dependsOn: [] },
    ],
    rationale: 'a chain',
    confidence: 1,
  };
  const node = (approvalId?: string) => ({
    agent: 'x',
    state: 'completed' as const,
    attempts: 1,
    ...(approvalId === undefined ? {} : { approvalId }),
  });
  const approval = (id: string, status: 'approved' | 'denied') => ({
    id,
    kind: 'node' as const,
    action: 'act',
    summary: 'act',
    preview: '',
    risk: 'low' as const,
    status,
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T00:02:00.000Z',
  });

  it('runs again every step depending on a target, in plan order, however far down', () => {
    const session = {
      nodes: { a: node(), b: node(), c: node(), d: node(), e: node() },
      approvals: {},
    };
    expect(revisionScope(chain, session, ['a'])).toEqual({
      rerun: ['d', 'c', 'b', 'a'],
      kept: [],
    });
    expect(revisionScope(chain, session, ['c', 'e'])).toEqual({ rerun: ['d', 'c', 'e'], kept: [] });
  });

  it('keeps a dependent whose approved action was carried out, unless it is named itself', () => {
    const session = {
      nodes: { a: node(), b: node('ok'), c: node('no'), d: node(), e: node() },
      approvals: { ok: approval('ok', 'approved'), no: approval('no', 'denied') },
    };
    expect(revisionScope(chain, session, ['a'])).toEqual({ rerun: ['d', 'c', 'a'], kept: ['b'] });
    expect(revisionScope(chain, session, ['a', 'b'])).toEqual({
      rerun: ['d', 'c', 'b', 'a'],
      kept: [],
    });
  });
});
