import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  approvalDecisionSchema,
  dataPart,
  findData,
  planRequestSchema,
  textPart,
  type Plan,
  type PlanRequest,
  type ProgressEvent,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import type { RunningServer } from '@fleet/http';
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
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-approvals:${randomUUID()}:`;

type ApprovalRequired = Extract<ProgressEvent, { type: 'approval-required' }>;
const isApprovalRequired = (event: ProgressEvent): event is ApprovalRequired =>
  event.type === 'approval-required';
type RunStart = Extract<ProgressEvent, { type: 'run-start' }>;
const isRunStart = (event: ProgressEvent): event is RunStart => event.type === 'run-start';

/** web → send (needs approval) → write. */
const mailPlan: Plan = {
  nodes: [
    { id: 'fetch', agent: 'web', task: 'Find the quarterly report', dependsOn: [] },
    { id: 'send', agent: 'mail', task: 'Send the report to Bob', dependsOn: ['fetch'] },
    { id: 'write', agent: 'writer', task: 'Say what was done', dependsOn: ['send'] },
  ],
  rationale: 'fetch, send, report',
  confidence: 1,
};

describe('orchestrator approvals (real Redis, real A2A agents)', () => {
  let redis: Redis;
  let web: ScriptedAgent;
  let mail: ScriptedAgent;
  let writer: ScriptedAgent;
  let planner: RunningServer;
  const planRequests: PlanRequest[] = [];
  const orchestrators: TestOrchestrator[] = [];
  let agentUrls: string[];

  const start = async (
    options: Partial<Parameters<typeof startTestOrchestrator>[0]> = {},
  ): Promise<TestOrchestrator> => {
    const orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls,
      plannerUrl: planner.url,
      ...options,
    });
    orchestrators.push(orchestrator);
    return orchestrator;
  };

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    web = await startScriptedAgent({
      name: 'web',
      internalToken: TEST_TOKEN,
      respond: (request) => ({ text: `web found: ${request.text.split('\n')[0] ?? ''}` }),
    });
    mail = await startScriptedAgent({
      name: 'mail',
      internalToken: TEST_TOKEN,
      respond: (request) =>
        request.isContinuation
          ? { text: 'Mail sent.' }
          : {
              approval: {
                action: 'send-mail',
                summary: `Send: ${request.text.split('\n')[0] ?? ''}`,
                preview: 'To: bob@example.com',
                risk: 'high',
              },
            },
    });
    writer = await startScriptedAgent({ name: 'writer', internalToken: TEST_TOKEN });
    // A planner over A2A: the plan it returns depends on the feedback it gets.
    planner = await startTestAgent({
      name: 'planner',
      token: TEST_TOKEN,
      execute: answering(({ message }) => {
        const request = findData(message.parts, planRequestSchema)?.planRequest;
        if (request !== undefined) planRequests.push(request);
        const plan: Plan =
          request?.feedback === undefined
            ? {
                nodes: [
                  { id: 'search', agent: 'web', task: 'Search the web', dependsOn: [] },
                  { id: 'send', agent: 'mail', task: 'Mail the findings', dependsOn: ['search'] },
                ],
                rationale: 'search, then mail',
                confidence: 0.8,
              }
            : {
                nodes: [{ id: 'search', agent: 'web', task: 'Search the web only', dependsOn: [] }],
                rationale: `as asked: ${request.feedback}`,
                confidence: 0.9,
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
    agentUrls = [web.url, mail.url, writer.url];
  });

  afterAll(async () => {
    await Promise.all(orchestrators.map((orchestrator) => orchestrator.close()));
    await Promise.all([web.close(), mail.close(), writer.close(), planner.shutdown()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('waits for approval, continues the same agent task when approved, and completes', async () => {
    const orchestrator = await start();
    const before = mail.requests.length;
    const run = orchestrate(orchestrator.client, {
      text: 'Send Bob the report',
      fleet: { tenant: 'acme', plan: mailPlan },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    expect(asked).toMatchObject({
      kind: 'node',
      nodeId: 'send',
      agent: 'mail',
      action: 'send-mail',
      summary: 'Send: Send the report to Bob',
      preview: 'To: bob@example.com',
      risk: 'high',
    });
    // At most HITL_TIMEOUT_SECONDS (120) from now, and no later than the agent's own expiry.
    const expiresIn = Date.parse(asked.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(120_000);
    const waiting = await orchestrator.sessions.get(sessionId);
    expect(waiting?.status).toBe('waiting_approval');
    expect(waiting?.nodes['send']).toMatchObject({
      state: 'waiting_approval',
      approvalId: asked.approvalId,
    });
    expect(waiting?.approvals[asked.approvalId]).toMatchObject({
      kind: 'node',
      status: 'pending',
      nodeId: 'send',
      agent: 'mail',
    });

    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'acme',
      decision: 'approve',
    });
    const events = await run.done;
    const { progress } = readStream(events);
    expect(progress.find((event) => event.type === 'approval-end')).toEqual({
      type: 'approval-end',
      approvalId: asked.approvalId,
      status: 'approved',
    });
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.result?.failedNodes).toEqual([]);
    expect(outcome.answer).toContain('Mail sent.');

    // The agent got its task once, then one continuation of the same task.
    const turns = mail.requests.slice(before);
    expect(turns).toHaveLength(2);
    expect(turns[1]).toMatchObject({
      taskId: turns[0]?.taskId,
      isContinuation: true,
      approvalDecision: { decision: 'approve' },
    });
    const done = await orchestrator.sessions.get(sessionId);
    expect(done?.status).toBe('completed');
    expect(done?.approvals[asked.approvalId]).toMatchObject({
      status: 'approved',
      deliveredAt: expect.any(String),
    });
    expect(done?.nodes['send']).toMatchObject({
      state: 'completed',
      approvalId: asked.approvalId,
      taskId: turns[0]?.taskId,
    });
  });

  it('ends a denied step rejected, hands the reason downstream, and says so in the answer', async () => {
    const orchestrator = await start();
    const before = mail.requests.length;
    const writerBefore = writer.requests.length;
    const run = orchestrate(orchestrator.client, {
      text: 'Send Bob the report',
      fleet: { tenant: 'acme', plan: mailPlan },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'acme',
      decision: 'deny',
      instructions: 'not before Monday',
    });
    const events = await run.done;
    const { progress } = readStream(events);
    expect(progress.find((event) => event.type === 'approval-end')).toEqual({
      type: 'approval-end',
      approvalId: asked.approvalId,
      status: 'denied',
      instructions: 'not before Monday',
    });
    expect(progress.find((event) => event.type === 'node-end' && event.nodeId === 'send')).toEqual(
      expect.objectContaining({
        state: 'rejected',
        error: 'denied by a person: not before Monday',
      }),
    );
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.result?.nodes.find((node) => node.id === 'send')?.state).toBe('rejected');
    expect(outcome.answer).toContain(
      'Steps that were not done: Send the report to Bob (in your mailbox): denied by a person: not before Monday.',
    );
    expect(outcome.answer).not.toContain('Steps that failed');
    // The agent was told (and ended its task REJECTED); the writer got the reason as partial.
    expect(mail.requests.slice(before)[1]?.approvalDecision).toEqual({
      decision: 'deny',
      instructions: 'not before Monday',
    });
    expect(writer.requests.slice(writerBefore)[0]?.nodeInput?.dependencyOutputs['send']).toEqual({
      agent: 'mail',
      summary: 'Step send (mail) was not done: denied by a person: not before Monday',
      partial: true,
      error: 'denied by a person: not before Monday',
    });
    expect((await orchestrator.sessions.get(sessionId))?.nodes['send']).toMatchObject({
      state: 'rejected',
      error: 'denied by a person: not before Monday',
    });
  });

  it('times an approval out after HITL_TIMEOUT_SECONDS and counts it as a denial', async () => {
    const orchestrator = await start({ hitlTimeoutSeconds: 1 });
    const before = mail.requests.length;
    const run = orchestrate(orchestrator.client, {
      text: 'Send Bob the report',
      fleet: { tenant: 'acme', plan: mailPlan },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    const events = await run.done;
    expect(readStream(events).progress).toContainEqual({
      type: 'approval-end',
      approvalId: asked.approvalId,
      status: 'timed_out',
    });
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.answer).toContain(
      'Send the report to Bob (in your mailbox): approval timed out.',
    );
    expect(mail.requests.slice(before)[1]?.approvalDecision).toEqual({
      decision: 'deny',
      instructions: 'approval timed out',
    });
    const session = await orchestrator.sessions.get(sessionId);
    expect(session?.approvals[asked.approvalId]).toMatchObject({
      status: 'timed_out',
      decidedAt: expect.any(String),
      deliveredAt: expect.any(String),
    });
    expect(session?.nodes['send']).toMatchObject({
      state: 'rejected',
      error: 'approval timed out',
    });
    // A late decision is refused.
    await expect(
      orchestrator.sessions.decideApproval({
        sessionId,
        approvalId: asked.approvalId,
        tenant: 'acme',
        decision: 'approve',
      }),
    ).rejects.toThrow(/timed out/);
  });

  describe('instructions given with an approval', () => {
    let llm: ScriptedOpenAI;
    beforeAll(async () => {
      llm = await startScriptedOpenAI({
        respond: (request) => {
          const body = request.body as {
            response_format?: { json_schema?: { name?: string } };
            messages?: { role: string; content: string }[];
          };
          if (body.response_format?.json_schema?.name === 'approval_instructions') {
            const text = body.messages?.find((message) => message.role === 'user')?.content ?? '';
            if (text.includes('classifier must fail')) return { error: { status: 500 } };
            return text.includes('instead')
              ? { json: { mode: 'override', effectiveTask: 'Send the report to Carol' } }
              : { json: { mode: 'enhance', effectiveTask: '' } };
          }
          return { content: 'The report went out [1].' };
        },
      });
    });
    afterAll(async () => {
      await llm.close();
    });

    async function approveWith(orchestrator: TestOrchestrator, instructions: string) {
      const before = mail.requests.length;
      const requestsBefore = llm.requests.length;
      const run = orchestrate(orchestrator.client, {
        text: 'Send Bob the report',
        fleet: { tenant: 'acme', plan: mailPlan },
      });
      const { sessionId } = await run.waitFor(isRunStart);
      const asked = await run.waitFor(isApprovalRequired);
      await orchestrator.sessions.decideApproval({
        sessionId,
        approvalId: asked.approvalId,
        tenant: 'acme',
        decision: 'approve',
        instructions,
      });
      const events = await run.done;
      const continuation = mail.requests.slice(before)[1];
      return {
        events,
        asked,
        decision: findData(continuation?.message.parts ?? [], approvalDecisionSchema)
          ?.approvalDecision,
        session: await orchestrator.sessions.get(sessionId),
        llmRequests: llm.requests.slice(requestsBefore),
      };
    }

    it('overrides the task when the LLM says the instructions replace it', async () => {
      const orchestrator = await start({ llmBaseUrl: llm.baseURL });
      const { events, asked, decision, session, llmRequests } = await approveWith(
        orchestrator,
        'send it to Carol instead',
      );
      expect(decision).toEqual({
        decision: 'approve',
        instructions: 'send it to Carol instead',
        mode: 'override',
        effectiveTask: 'Send the report to Carol',
      });
      expect(readStream(events).progress).toContainEqual({
        type: 'approval-end',
        approvalId: asked.approvalId,
        status: 'approved',
        instructions: 'send it to Carol instead',
        mode: 'override',
      });
      expect(session?.nodes['send']?.effectiveTask).toBe('Send the report to Carol');
      expect(session?.approvals[asked.approvalId]?.mode).toBe('override');
      // The composer was told what was actually done.
      const composerPrompt = JSON.stringify(llmRequests.at(-1)?.body);
      expect(composerPrompt).toContain(
        'carried out as changed at approval: Send the report to Carol',
      );
      expect(outcomeOf(events).result?.composer).toBe('llm');
    });

    it('enhances the task when the LLM says the instructions add to it', async () => {
      const orchestrator = await start({ llmBaseUrl: llm.baseURL });
      const { decision, session } = await approveWith(orchestrator, 'also cc Alice');
      const effectiveTask =
        'Send the report to Bob\n\nAdditional instructions from the approver: also cc Alice';
      expect(decision).toEqual({
        decision: 'approve',
        instructions: 'also cc Alice',
        mode: 'enhance',
        effectiveTask,
      });
      expect(session?.nodes['send']?.effectiveTask).toBe(effectiveTask);
    });

    it('falls back to enhance when the classifier fails', async () => {
      const orchestrator = await start({ llmBaseUrl: llm.baseURL });
      const { decision } = await approveWith(orchestrator, 'classifier must fail, send it instead');
      expect(decision).toMatchObject({ mode: 'enhance' });
    });

    it('enhances offline, and the offline answer says how the step was carried out', async () => {
      const orchestrator = await start();
      const { decision, events } = await approveWith(orchestrator, 'also cc Alice');
      expect(decision).toMatchObject({
        mode: 'enhance',
        effectiveTask:
          'Send the report to Bob\n\nAdditional instructions from the approver: also cc Alice',
      });
      expect(outcomeOf(events).answer).toContain(
        '**Send the report to Bob Additional instructions from the approver: also cc Alice (in your mailbox)**, as changed by the approver',
      );
    });
  });

  it('decides parallel approvals independently, in any order, while other branches go on', async () => {
    const orchestrator = await start();
    const plan: Plan = {
      nodes: [
        { id: 'first', agent: 'mail', task: 'Mail Alice', dependsOn: [] },
        { id: 'second', agent: 'mail', task: 'Mail Bob', dependsOn: [] },
        { id: 'look', agent: 'web', task: 'Look something up', dependsOn: [] },
      ],
      rationale: 'three branches',
      confidence: 1,
    };
    const run = orchestrate(orchestrator.client, {
      text: 'Do three things',
      fleet: { tenant: 'acme', plan },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const approvalFor = (nodeId: string) =>
      run.waitFor(
        (event): event is ApprovalRequired =>
          event.type === 'approval-required' && event.nodeId === nodeId,
      );
    const [first, second] = await Promise.all([approvalFor('first'), approvalFor('second')]);
    // The branch without approval completes while both wait.
    await run.waitFor((event) => event.type === 'node-end' && event.nodeId === 'look');
    expect((await orchestrator.sessions.get(sessionId))?.status).toBe('waiting_approval');

    // The later one first: it completes while the earlier one still waits.
    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: second.approvalId,
      tenant: 'acme',
      decision: 'approve',
    });
    await run.waitFor((event) => event.type === 'node-end' && event.nodeId === 'second');
    const between = await orchestrator.sessions.get(sessionId);
    expect(between?.approvals[first.approvalId]?.status).toBe('pending');
    expect(between?.nodes['first']?.state).toBe('waiting_approval');
    expect(between?.status).toBe('waiting_approval');

    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: first.approvalId,
      tenant: 'acme',
      decision: 'deny',
    });
    const events = await run.done;
    const types = readStream(events).progress.map((event) =>
      event.type === 'node-end' ? `end ${event.nodeId} ${event.state}` : event.type,
    );
    expect(types.indexOf('end look completed')).toBeLessThan(types.indexOf('approval-end'));
    expect(types.indexOf('end second completed')).toBeLessThan(types.indexOf('end first rejected'));
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.result?.nodes.map((node) => [node.id, node.state])).toEqual([
      ['first', 'rejected'],
      ['second', 'completed'],
      ['look', 'completed'],
    ]);
    expect(outcome.answer).toContain(
      'Steps that were not done: Mail Alice (in your mailbox): denied by a person.',
    );
  });

  describe('plan approval', () => {
    it('re-plans with the instructions of a denial, then runs the approved plan', async () => {
      const orchestrator = await start();
      const before = planRequests.length;
      const mailBefore = mail.requests.length;
      const run = orchestrate(orchestrator.client, {
        text: 'Find out about X and mail it',
        fleet: { tenant: 'acme', planApproval: 'required' },
      });
      const { sessionId } = await run.waitFor(isRunStart);
      const firstAsk = await run.waitFor(isApprovalRequired);
      expect(firstAsk).toMatchObject({
        kind: 'plan',
        action: 'run-plan',
        summary: 'Run 2 steps with web and mail: search, then mail.',
        preview: '1. search (web): Search the web\n2. send (mail, after search): Mail the findings',
        risk: 'low',
      });
      expect(firstAsk.nodeId).toBeUndefined();
      expect((await orchestrator.sessions.get(sessionId))?.status).toBe('waiting_approval');
      // Nothing runs before the plan is approved.
      expect(web.requests.filter((request) => request.nodeInput?.sessionId === sessionId)).toEqual(
        [],
      );

      await orchestrator.sessions.decideApproval({
        sessionId,
        approvalId: firstAsk.approvalId,
        tenant: 'acme',
        decision: 'deny',
        instructions: 'do not send any mail',
      });
      const secondAsk = await run.waitFor(
        (event): event is ApprovalRequired =>
          event.type === 'approval-required' && event.approvalId !== firstAsk.approvalId,
      );
      expect(secondAsk.summary).toBe('Run 1 step with web: as asked: do not send any mail.');
      const replan = planRequests.slice(before)[1];
      expect(replan).toMatchObject({
        feedback: 'do not send any mail',
        previousPlan: { rationale: 'search, then mail' },
      });
      await orchestrator.sessions.decideApproval({
        sessionId,
        approvalId: secondAsk.approvalId,
        tenant: 'acme',
        decision: 'approve',
      });
      const events = await run.done;
      const types = readStream(events)
        .progress.map((event) => event.type)
        // The agents' own progress lines (agent-progress.test.ts) are not state changes.
        .filter((type) => type !== 'node-progress');
      expect(types).toEqual([
        'run-start',
        'plan-start',
        'plan-end',
        'approval-required',
        'approval-end',
        'plan-start',
        'plan-end',
        'approval-required',
        'approval-end',
        'node-start',
        'node-end',
        'compose-start',
        'run-end',
      ]);
      const outcome = outcomeOf(events);
      expect(outcome.state).toBe('TASK_STATE_COMPLETED');
      expect(outcome.result?.plan.nodes.map((node) => node.id)).toEqual(['search']);
      expect(mail.requests.length).toBe(mailBefore);
      const session = await orchestrator.sessions.get(sessionId);
      expect(session).toMatchObject({
        status: 'completed',
        planApproval: true,
        planFeedback: ['do not send any mail'],
      });
      expect(Object.values(session?.approvals ?? {}).map((approval) => approval.status)).toEqual(
        expect.arrayContaining(['denied', 'approved']),
      );
    });

    it('ends the run without running anything when the plan is denied without instructions', async () => {
      const orchestrator = await start();
      const run = orchestrate(orchestrator.client, {
        text: 'Find out about X and mail it',
        fleet: { tenant: 'acme', planApproval: 'required' },
      });
      const { sessionId } = await run.waitFor(isRunStart);
      const asked = await run.waitFor(isApprovalRequired);
      await orchestrator.sessions.decideApproval({
        sessionId,
        approvalId: asked.approvalId,
        tenant: 'acme',
        decision: 'deny',
      });
      const events = await run.done;
      const outcome = outcomeOf(events);
      expect(outcome.state).toBe('TASK_STATE_COMPLETED');
      expect(outcome.answer).toMatch(
        /^The plan was not approved \(denied by a person\), so no step was run\./,
      );
      expect(outcome.result?.failedNodes).toEqual(['search', 'send']);
      expect(web.requests.filter((request) => request.nodeInput?.sessionId === sessionId)).toEqual(
        [],
      );
      expect(await orchestrator.sessions.get(sessionId)).toMatchObject({
        status: 'completed',
        nodes: { search: { state: 'skipped' }, send: { state: 'skipped' } },
      });
    });
  });

  it('cancels a run that waits for approval: approvals denied, agent task canceled, event published', async () => {
    const orchestrator = await start();
    const before = mail.requests.length;
    const run = orchestrate(orchestrator.client, {
      text: 'Send Bob the report',
      fleet: { tenant: 'acme', plan: mailPlan },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    const heard: string[] = [];
    const unsubscribe = await orchestrator.sessions.subscribe(sessionId, (event) => {
      heard.push(event.type);
    });
    const taskEvent = run.events[0];
    if (taskEvent === undefined || !('task' in taskEvent)) throw new Error('expected the task');
    await orchestrator.client.cancelTask({ id: taskEvent.task.id });
    const events = await run.done;
    expect(outcomeOf(events).state).toBe('TASK_STATE_CANCELED');
    // The task ends at once; the run records the cancel right after.
    const session = await eventually(async () => {
      const current = await orchestrator.sessions.get(sessionId);
      return current?.status === 'canceled' ? current : undefined;
    }, 'the session to be canceled');
    expect(session?.approvals[asked.approvalId]).toMatchObject({
      status: 'denied',
      instructions: 'session canceled',
    });
    for (let tries = 0; tries < 100 && !heard.includes('session-canceled'); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(heard).toContain('session-canceled');
    await unsubscribe();
    // The agent's task that waited for approval was canceled too.
    const agentTask = mail.requests[before]?.taskId as string;
    const agentClient = new A2AClient({ card: mail.card, token: TEST_TOKEN });
    let state = '';
    for (let tries = 0; tries < 100 && state !== 'TASK_STATE_CANCELED'; tries += 1) {
      state = (await agentClient.getTask({ id: agentTask })).status.state;
      if (state !== 'TASK_STATE_CANCELED') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(state).toBe('TASK_STATE_CANCELED');
  });

  it('stops a run when its session is canceled elsewhere (session-canceled)', async () => {
    const orchestrator = await start();
    const run = orchestrate(orchestrator.client, {
      text: 'Send Bob the report',
      fleet: { tenant: 'acme', plan: mailPlan },
    });
    const { sessionId } = await run.waitFor(isRunStart);
    await run.waitFor(isApprovalRequired);
    await orchestrator.sessions.publish(sessionId, { type: 'session-canceled' });
    const events = await run.done;
    expect(outcomeOf(events)).toMatchObject({
      state: 'TASK_STATE_CANCELED',
      message: 'The session was canceled.',
    });
    expect((await orchestrator.sessions.get(sessionId))?.status).toBe('canceled');
  });

  describe('questions (TASK_STATE_INPUT_REQUIRED)', () => {
    type InputRequired = Extract<ProgressEvent, { type: 'input-required' }>;
    const isInputRequired = (event: ProgressEvent): event is InputRequired =>
      event.type === 'input-required';
    let booker: ScriptedAgent;
    const bookPlan: Plan = {
      nodes: [{ id: 'book', agent: 'booker', task: 'Book a hotel', dependsOn: [] }],
      rationale: 'book',
      confidence: 1,
    };

    beforeAll(async () => {
      booker = await startScriptedAgent({
        name: 'booker',
        internalToken: TEST_TOKEN,
        respond: (request) =>
          request.isContinuation
            ? { text: `Booked a hotel in ${request.text}.` }
            : { question: 'Which city should I book?' },
      });
    });

    afterAll(async () => {
      await booker.close();
    });

    it('relays the question, waits, and continues the same task with the answer', async () => {
      const orchestrator = await start({ agentUrls: [...agentUrls, booker.url] });
      const before = booker.requests.length;
      const run = orchestrate(orchestrator.client, {
        text: 'Book me a hotel',
        fleet: { tenant: 'acme', plan: bookPlan },
      });
      const { sessionId } = await run.waitFor(isRunStart);
      const asked = await run.waitFor(isInputRequired);
      expect(asked).toMatchObject({
        nodeId: 'book',
        agent: 'booker',
        question: 'Which city should I book?',
      });
      const waiting = await orchestrator.sessions.get(sessionId);
      expect(waiting?.status).toBe('waiting_input');
      expect(waiting?.nodes['book']).toMatchObject({
        state: 'waiting_input',
        approvalId: asked.inputId,
      });
      // A question is not an approval: it cannot be approved.
      await expect(
        orchestrator.sessions.decideApproval({
          sessionId,
          approvalId: asked.inputId,
          tenant: 'acme',
          decision: 'approve',
        }),
      ).rejects.toThrow(/does not exist/);
      await orchestrator.sessions.answerInput({
        sessionId,
        inputId: asked.inputId,
        tenant: 'acme',
        text: 'Lisbon',
      });
      const events = await run.done;
      const { progress, lines } = readStream(events);
      expect(progress).toContainEqual({
        type: 'input-end',
        inputId: asked.inputId,
        status: 'answered',
      });
      expect(lines.some((line) => line.includes('asks: Which city should I book?'))).toBe(true);
      const outcome = outcomeOf(events);
      expect(outcome.state).toBe('TASK_STATE_COMPLETED');
      expect(outcome.answer).toContain('Booked a hotel in Lisbon.');
      const turns = booker.requests.slice(before);
      expect(turns).toHaveLength(2);
      expect(turns[1]).toMatchObject({ taskId: turns[0]?.taskId, isContinuation: true });
      expect(turns[1]?.message.messageId).toBe(`fleet-answer-${asked.inputId}`);
      const done = await orchestrator.sessions.get(sessionId);
      expect(done?.status).toBe('completed');
      expect(done?.approvals[asked.inputId]).toMatchObject({
        kind: 'input',
        status: 'answered',
        answer: 'Lisbon',
        deliveredAt: expect.any(String),
        askedStatus: { state: 'TASK_STATE_INPUT_REQUIRED' },
      });
    });

    it('ends a step whose question nobody answers in time, canceling its agent task', async () => {
      const orchestrator = await start({
        agentUrls: [...agentUrls, booker.url],
        hitlTimeoutSeconds: 1,
      });
      const before = booker.requests.length;
      const run = orchestrate(orchestrator.client, {
        text: 'Book me a hotel',
        fleet: { tenant: 'acme', plan: bookPlan },
      });
      const asked = await run.waitFor(isInputRequired);
      const events = await run.done;
      const { progress } = readStream(events);
      expect(progress).toContainEqual({
        type: 'input-end',
        inputId: asked.inputId,
        status: 'timed_out',
      });
      expect(progress.find((event) => event.type === 'node-end')).toMatchObject({
        state: 'rejected',
        error: 'its question was not answered in time',
      });
      // Nothing was sent to the agent after its question, and its task was canceled.
      const turns = booker.requests.slice(before);
      expect(turns).toHaveLength(1);
      const agentClient = new A2AClient({
        card: await discoverAgentCard(booker.url),
        token: TEST_TOKEN,
      });
      await eventually(async () => {
        const task = await agentClient.getTask({ id: turns[0]?.taskId ?? '' });
        return task.status.state === 'TASK_STATE_CANCELED' ? task : undefined;
      }, 'the agent task to be canceled');
      const outcome = outcomeOf(events);
      expect(outcome.answer).toContain('its question was not answered in time');
    });
  });
});
