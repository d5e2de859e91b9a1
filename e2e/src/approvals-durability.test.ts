/**
 * Durable sessions and human approval, end to end on a running fleet: a workflow pauses on an
 * agent's auth-required, survives SIGKILL of the orchestrator and the gateway, resumes when a person
 * approves, performs the approved action exactly once, and `X-Session-ID` streams the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { gatewayApi, readUntil, waitForSession } from './support/gateway-api';
import { startFleet, type RunningFleet } from './support/start-fleet';
import { scriptedPlan as plan, webThenMailAgents } from './support/scripted-plans';

let nextPlan: Plan | undefined;

describe('durable sessions and approvals', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: (_request, context) => {
        if (context.jsonSchema === undefined) return { content: 'Composed.' };
        // The planner asks for a plan; the orchestrator's instruction classifier for a mode.
        if (context.lastUserMessage.includes('instructions'))
          return { json: { mode: 'enhance', effectiveTask: '' } };
        return nextPlan === undefined ? {} : { json: nextPlan };
      },
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: {
        orchestrator: { HITL_TIMEOUT_SECONDS: '300', SESSION_RECOVERY_INTERVAL_MS: '1000' },
      },
      agents: [
        ...webThenMailAgents(),
        {
          name: 'code',
          skills: [{ id: 'run', tags: ['code'] }],
          reply: {
            approval: { action: 'run-code', summary: 'Run the chart script', risk: 'medium' },
          },
        },
      ],
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  it('survives SIGKILL of orchestrator and gateway while waiting, and acts exactly once', async () => {
    nextPlan = plan([
      { id: 'find', agent: 'web' },
      { id: 'send', agent: 'mail', dependsOn: ['find'] },
    ]);
    const abort = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create(
        {
          model: 'fleet-orchestration',
          stream: true,
          messages: [{ role: 'user', content: 'find it then mail bob' }],
        },
        { headers: { 'X-Routing-Mode': 'orchestration' }, signal: abort.signal },
      )
      .withResponse();
    const sessionId = response.headers.get('x-session-id')!;
    const events = await readUntil(stream, (event) => event.type === 'approval-required', abort);
    const asked = events.find((event) => event.type === 'approval-required')!;
    expect(asked).toMatchObject({
      kind: 'node',
      nodeId: 'send',
      agent: 'mail',
      action: 'send-mail',
      risk: 'high',
    });
    const approvalId = String(asked['approvalId']);

    // Both die without a word: no graceful shutdown, no hand-over.
    await fleet.crashAndRestart('orchestrator');
    await fleet.crashAndRestart('gateway');

    const pending = await gatewayApi(fleet, `/sessions/${sessionId}/approvals`);
    expect(pending.status).toBe(200);
    expect(pending.body['data']).toEqual([
      expect.objectContaining({
        id: approvalId,
        status: 'pending',
        nodeId: 'send',
        agent: 'mail',
        action: 'send-mail',
      }),
    ]);

    const decided = await gatewayApi(fleet, `/sessions/${sessionId}/approvals/${approvalId}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    const again = await gatewayApi(fleet, `/sessions/${sessionId}/approvals/${approvalId}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(again.status).toBe(409);

    // No client is attached: the workflow completes on its own once the dead runner's lease lapses.
    const completed = await waitForSession(
      fleet,
      sessionId,
      (session) => session['status'] === 'completed',
    );
    // Whole nodes, so a failure shows the node's error.
    expect(completed['nodes']['find']).toMatchObject({ state: 'completed' });
    expect(completed['nodes']['send']).toMatchObject({ state: 'completed' });

    // X-Session-ID streams the rest: here, the finished answer.
    const rest = await client.chat.completions.create(
      {
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: 'resume' }],
      },
      { headers: { 'X-Session-ID': sessionId } },
    );
    let content = '';
    for await (const chunk of rest) content += chunk.choices[0]?.delta.content ?? '';
    expect(content).toContain('Composed.');

    // The web step ran once (not again after the restart); the mail went out exactly once.
    expect(
      fleet.agents['web']!.requests.filter((request) => request.nodeInput?.sessionId === sessionId),
    ).toHaveLength(1);
    expect(
      fleet.agents['mail']!.sideEffects.filter((effect) => effect.action === 'send-mail'),
    ).toHaveLength(1);
  }, 90_000);

  it('decides parallel approvals independently, in reverse order, while other branches run', async () => {
    nextPlan = plan([
      { id: 'mail-it', agent: 'mail' },
      { id: 'chart-it', agent: 'code' },
      { id: 'look', agent: 'web' },
    ]);
    const abort = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create(
        {
          model: 'fleet-orchestration',
          stream: true,
          messages: [{ role: 'user', content: 'mail, chart and look' }],
        },
        { headers: { 'X-Routing-Mode': 'orchestration' }, signal: abort.signal },
      )
      .withResponse();
    const sessionId = response.headers.get('x-session-id')!;
    // Read until both approvals are asked for and the branch needing none has finished: it does,
    // while the other two wait, since nothing is decided yet.
    let asked = 0;
    let lookEnded = false;
    const events = await readUntil(
      stream,
      (event) => {
        if (event.type === 'approval-required') asked += 1;
        if (event.type === 'node-end' && event['nodeId'] === 'look') lookEnded = true;
        return asked === 2 && lookEnded;
      },
      abort,
    );
    expect(
      events.find((event) => event.type === 'node-end' && event['nodeId'] === 'look'),
    ).toMatchObject({
      state: 'completed',
    });
    const approvals = events.filter((event) => event.type === 'approval-required');
    const [first, second] = approvals.map((event) => String(event['approvalId']));
    const decide = (id: string | undefined, decision: 'approve' | 'deny', instructions?: string) =>
      gatewayApi(fleet, `/sessions/${sessionId}/approvals/${id}`, {
        method: 'POST',
        body: JSON.stringify({ decision, ...(instructions ? { instructions } : {}) }),
      });
    expect((await decide(second, 'deny', 'not today')).status).toBe(200);
    expect((await decide(first, 'approve')).status).toBe(200);

    const done = await waitForSession(
      fleet,
      sessionId,
      (session) => session['status'] === 'completed',
    );
    const byNode = Object.fromEntries(
      (done['approvals'] as Record<string, any>[]).map((approval) => [
        approval['nodeId'],
        approval['status'],
      ]),
    );
    const secondNode = approvals[1]!['nodeId'] as string;
    const firstNode = approvals[0]!['nodeId'] as string;
    expect(byNode[secondNode]).toBe('denied');
    expect(byNode[firstNode]).toBe('approved');
    expect(done['nodes'][secondNode]['state']).toBe('rejected');
    expect(done['nodes'][firstNode]['state']).toBe('completed');
    expect(done['result']['text']).toMatch(/not done/i);
  }, 60_000);

  it('shows the plan first with X-Plan-Approval: required, and runs nothing until it is approved', async () => {
    nextPlan = plan([{ id: 'only', agent: 'web' }]);
    const before = fleet.agents['web']!.requests.length;
    const abort = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create(
        {
          model: 'fleet-orchestration',
          stream: true,
          messages: [{ role: 'user', content: 'look it up' }],
        },
        {
          headers: { 'X-Routing-Mode': 'orchestration', 'X-Plan-Approval': 'required' },
          signal: abort.signal,
        },
      )
      .withResponse();
    const sessionId = response.headers.get('x-session-id')!;
    const events = await readUntil(stream, (event) => event.type === 'approval-required', abort);
    const asked = events.find((event) => event.type === 'approval-required')!;
    expect(asked).toMatchObject({ kind: 'plan', action: 'run-plan' });
    expect(String(asked['preview'])).toContain('web');
    expect(fleet.agents['web']!.requests.length).toBe(before);

    const decided = await gatewayApi(
      fleet,
      `/sessions/${sessionId}/approvals/${String(asked['approvalId'])}`,
      {
        method: 'POST',
        body: JSON.stringify({ decision: 'approve' }),
      },
    );
    expect(decided.status).toBe(200);
    const done = await waitForSession(
      fleet,
      sessionId,
      (session) => session['status'] === 'completed',
    );
    expect(done['nodes']['only']['state']).toBe('completed');
    expect(fleet.agents['web']!.requests.length).toBe(before + 1);
  }, 60_000);
});
