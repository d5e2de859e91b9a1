/**
 * Agents the fleet did not write, in every flow that asks a person: agents built only on
 * `@a2a-js/sdk` 1.3 (`@fleet/testing`'s SDK agents), added with AGENT_URLS, driven end to end
 * through the gateway with the official openai SDK. The fleet runs offline (heuristic planner,
 * offline composer), so the plan comes from the agents' cards and the answer quotes what the agents
 * said.
 *
 * The invoice agent is not idempotent: it pays once per approve decision it receives, so every
 * payment count here is a count of decisions the orchestrator delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  BILLS_AGENT_CARD,
  createInvoiceExecutor,
  createQuestionExecutor,
  INVOICE_AGENT_CARD,
  startSdkAgent,
  TRAVEL_AGENT_CARD,
  type InvoiceExecutor,
  type QuestionExecutor,
  type SdkAgent,
  type SdkAgentRequest,
} from '@fleet/testing';
import {
  eventsOf,
  gatewayApi,
  streamChat,
  waitForSession,
  type FleetEvent,
  type Json,
} from './support/gateway-api';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

/** The messages an SDK agent received for a session's tasks: the first turn, then continuations. */
function requestsFor(agent: SdkAgent, sessionId: string): SdkAgentRequest[] {
  const tasks = new Set(
    agent.requests
      .filter((request) => request.fleet?.['sessionId'] === sessionId)
      .map((request) => request.taskId),
  );
  return agent.requests.filter((request) => tasks.has(request.taskId));
}

/** The node report of the run's `run-result` event for an agent. */
function nodeReport(events: readonly FleetEvent[], agent: string): Json | undefined {
  const result = events.find((event) => event.type === 'run-result');
  return (result?.['nodes'] as Json[] | undefined)?.find((node) => node['agent'] === agent);
}

describe('agents built on @a2a-js/sdk, in every flow that asks a person', () => {
  let fleet: RunningFleet;
  let client: OpenAI;
  const invoices: InvoiceExecutor = createInvoiceExecutor();
  const bills: InvoiceExecutor = createInvoiceExecutor({ ask: 'text' });
  const travel: QuestionExecutor = createQuestionExecutor();
  const agents: Record<string, SdkAgent> = {};

  const decide = (
    sessionId: string,
    approvalId: string,
    body: { decision: 'approve' | 'deny'; instructions?: string },
  ) =>
    gatewayApi(fleet, `/sessions/${sessionId}/approvals/${approvalId}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });

  const paymentsFor = (executor: InvoiceExecutor, agent: SdkAgent, sessionId: string) => {
    const tasks = new Set(requestsFor(agent, sessionId).map((request) => request.taskId));
    return executor.payments.filter((payment) => tasks.has(payment.taskId));
  };

  beforeAll(async () => {
    for (const [card, executor] of [
      [INVOICE_AGENT_CARD, invoices],
      [BILLS_AGENT_CARD, bills],
      [TRAVEL_AGENT_CARD, travel],
    ] as const) {
      agents[card.name] = await startSdkAgent({ ...card, executor, token: E2E_INTERNAL_TOKEN });
    }
    fleet = await startFleet({
      agents: [],
      agentUrls: Object.values(agents).map((agent) => agent.url),
      serviceEnv: {
        orchestrator: { SESSION_RECOVERY_INTERVAL_MS: '1000', MEMORY_ENABLED: 'false' },
      },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    for (const agent of Object.values(agents)) await agent.stop();
  }, 60_000);

  it('shows an approval whose risk is in words, and pays exactly once when approved', async () => {
    let decided: { status: number; body: Json } | undefined;
    const chat = await streamChat(client, {
      message: 'Pay invoice INV-1001 (€950) to our supplier',
      onEvent: async (event, { sessionId }) => {
        if (event.type !== 'approval-required') return;
        decided = await decide(sessionId, String(event['approvalId']), {
          decision: 'approve',
        });
      },
    });
    const [asked, ...more] = eventsOf(chat.events, 'approval-required');
    expect(more).toEqual([]);
    expect(asked).toMatchObject({
      kind: 'node',
      agent: 'invoices',
      action: 'pay-invoice',
      summary: 'Pay invoice INV-1001 (€950) to ACME GmbH',
      preview: expect.stringContaining('Amount: €950'),
      // Words name no level: medium, and the words are shown as the agent gave them.
      risk: 'medium',
      riskDescription: 'Money leaves the company account',
    });
    expect(chat.reasoning).toContain('medium risk: Money leaves the company account');
    expect(decided?.status).toBe(200);
    const approvalId = String(asked?.['approvalId']);
    expect(eventsOf(chat.events, 'approval-end')).toEqual([
      expect.objectContaining({ approvalId, status: 'approved' }),
    ]);
    expect(nodeReport(chat.events, 'invoices')).toMatchObject({ state: 'completed' });
    expect(chat.content).toContain('Paid invoice INV-1001 (€950) to ACME GmbH');
    expect(chat.error).toBeUndefined();

    expect(paymentsFor(invoices, agents['invoices']!, chat.sessionId)).toHaveLength(1);
    // The decision came as the same task's continuation, with its stable message id.
    const [first, continuation, ...rest] = requestsFor(agents['invoices']!, chat.sessionId);
    expect(rest).toEqual([]);
    expect(first?.isContinuation).toBe(false);
    expect(continuation).toMatchObject({
      taskId: first?.taskId,
      isContinuation: true,
      messageId: `fleet-decision-${approvalId}`,
      text: 'Approved.',
    });
    expect(invoices.decisions.find((each) => each.taskId === first?.taskId)).toMatchObject({
      decision: 'approve',
      from: 'data',
    });

    const listed = await gatewayApi(fleet, `/sessions/${chat.sessionId}/approvals`);
    expect(listed.body['data']).toEqual([
      expect.objectContaining({
        id: approvalId,
        status: 'approved',
        riskDescription: 'Money leaves the company account',
      }),
    ]);
  });

  it('makes a plain auth-required (text only) approvable, its text the summary', async () => {
    const chat = await streamChat(client, {
      message: 'Settle the electricity bill INV-2002',
      onEvent: async (event, { sessionId }) => {
        if (event.type !== 'approval-required') return;
        await decide(sessionId, String(event['approvalId']), { decision: 'approve' });
      },
    });
    const [asked, ...more] = eventsOf(chat.events, 'approval-required');
    expect(more).toEqual([]);
    expect(asked).toMatchObject({
      agent: 'utility-bills',
      summary: 'Pay invoice INV-2002 (€1,200) to ACME GmbH?',
      preview: 'Pay invoice INV-2002 (€1,200) to ACME GmbH?',
      risk: 'medium',
    });
    expect(asked).not.toHaveProperty('riskDescription');
    expect(nodeReport(chat.events, 'utility-bills')).toMatchObject({ state: 'completed' });
    expect(chat.content).toContain('Paid invoice INV-2002 (€1,200) to ACME GmbH');
    // This agent reads only text: the continuation's text said "Approved.".
    expect(paymentsFor(bills, agents['utility-bills']!, chat.sessionId)).toHaveLength(1);
    const tasks = new Set(
      requestsFor(agents['utility-bills']!, chat.sessionId).map((request) => request.taskId),
    );
    expect(bills.decisions.filter((each) => tasks.has(each.taskId))).toEqual([
      expect.objectContaining({ decision: 'approve', from: 'text' }),
    ]);
  });

  it('tells the agent of a denial with the instructions: nothing is paid, the step is not done', async () => {
    const chat = await streamChat(client, {
      message: 'Pay invoice INV-1003 (€400) to our supplier',
      onEvent: async (event, { sessionId }) => {
        if (event.type !== 'approval-required') return;
        await decide(sessionId, String(event['approvalId']), {
          decision: 'deny',
          instructions: 'Wrong bank account on the invoice',
        });
      },
    });
    expect(eventsOf(chat.events, 'approval-end')).toEqual([
      expect.objectContaining({
        status: 'denied',
        instructions: 'Wrong bank account on the invoice',
      }),
    ]);
    expect(nodeReport(chat.events, 'invoices')).toMatchObject({
      state: 'rejected',
      error: expect.stringContaining('Wrong bank account on the invoice'),
    });
    expect(chat.content).toContain('Steps that were not done');
    expect(chat.content).toContain('Wrong bank account on the invoice');
    expect(chat.content).not.toContain('Paid invoice');
    expect(paymentsFor(invoices, agents['invoices']!, chat.sessionId)).toEqual([]);
    const [first, continuation] = requestsFor(agents['invoices']!, chat.sessionId);
    expect(invoices.decisions.find((each) => each.taskId === first?.taskId)).toMatchObject({
      decision: 'deny',
      instructions: 'Wrong bank account on the invoice',
    });
    expect(continuation?.text).toBe('Denied. Wrong bank account on the invoice');
  });

  it('does not take the task snapshot an SDK agent re-sends on a continuation as a new request', async () => {
    // The client lets go once asked; the decision comes over the API; X-Session-ID reads the rest.
    const asked = await streamChat(client, {
      message: 'Pay invoice INV-1004 (€120) to our supplier',
      onEvent: (event) => (event.type === 'approval-required' ? 'stop' : undefined),
    });
    const approval = eventsOf(asked.events, 'approval-required')[0];
    expect(approval).toBeDefined();
    expect(
      (await decide(asked.sessionId, String(approval?.['approvalId']), { decision: 'approve' }))
        .status,
    ).toBe(200);
    const rest = await streamChat(client, { message: 'go on', sessionId: asked.sessionId });

    // The continuation turn began with the task still AUTH_REQUIRED (the SDK's snapshot) …
    const [, continuation] = requestsFor(agents['invoices']!, asked.sessionId);
    expect(continuation?.taskState).toBe('TASK_STATE_AUTH_REQUIRED');
    // … and no second approval came of it: one approval, ever; one payment.
    expect(eventsOf(rest.events, 'approval-required')).toEqual([]);
    const listed = await gatewayApi(fleet, `/sessions/${asked.sessionId}/approvals`);
    expect(listed.body['data']).toEqual([
      expect.objectContaining({ id: approval?.['approvalId'], status: 'approved' }),
    ]);
    const session = await waitForSession(
      fleet,
      asked.sessionId,
      (each) => each['status'] === 'completed',
    );
    expect(session['approvals']).toHaveLength(1);
    expect(Object.values(session['nodes'] as Json)).toEqual([
      expect.objectContaining({ agent: 'invoices', state: 'completed' }),
    ]);
    expect(rest.content).toContain('Paid invoice INV-1004 (€120) to ACME GmbH');
    expect(paymentsFor(invoices, agents['invoices']!, asked.sessionId)).toHaveLength(1);
    expect(requestsFor(agents['invoices']!, asked.sessionId)).toHaveLength(2);
  });

  it('relays a question (input-required); the answer POSTed to the inputs continues the same task', async () => {
    let listedWhilePending: Json | undefined;
    let answered: { status: number; body: Json } | undefined;
    const chat = await streamChat(client, {
      message: 'Book a hotel for my trip to the conference',
      onEvent: async (event, { sessionId }) => {
        if (event.type !== 'input-required') return;
        listedWhilePending = (await gatewayApi(fleet, `/sessions/${sessionId}/inputs`)).body;
        answered = await gatewayApi(
          fleet,
          `/sessions/${sessionId}/inputs/${String(event['inputId'])}`,
          { method: 'POST', body: JSON.stringify({ text: 'Lisbon' }) },
        );
      },
    });
    const [asked, ...more] = eventsOf(chat.events, 'input-required');
    expect(more).toEqual([]);
    expect(asked).toMatchObject({
      agent: 'travel',
      question: 'Which city should I book?',
      nodeId: expect.any(String),
      expiresAt: expect.any(String),
    });
    const inputId = String(asked?.['inputId']);
    expect(chat.reasoning).toContain('asks: Which city should I book?');
    expect(listedWhilePending?.['data']).toEqual([
      expect.objectContaining({
        id: inputId,
        status: 'pending',
        question: 'Which city should I book?',
      }),
    ]);
    expect(answered?.status).toBe(200);
    expect(eventsOf(chat.events, 'input-end')).toEqual([
      expect.objectContaining({ inputId, status: 'answered' }),
    ]);
    expect(nodeReport(chat.events, 'travel')).toMatchObject({ state: 'completed' });
    expect(chat.content).toContain('Booked a hotel in Lisbon.');
    expect(chat.error).toBeUndefined();

    const [first, continuation, ...rest] = requestsFor(agents['travel']!, chat.sessionId);
    expect(rest).toEqual([]);
    expect(continuation).toMatchObject({
      taskId: first?.taskId,
      messageId: `fleet-answer-${inputId}`,
      text: 'Lisbon',
      taskState: 'TASK_STATE_INPUT_REQUIRED',
    });
    const listed = await gatewayApi(fleet, `/sessions/${chat.sessionId}/inputs`);
    expect(listed.body['data']).toEqual([
      expect.objectContaining({ id: inputId, status: 'answered', answer: 'Lisbon' }),
    ]);
    const again = await gatewayApi(fleet, `/sessions/${chat.sessionId}/inputs/${inputId}`, {
      method: 'POST',
      body: JSON.stringify({ text: 'Porto' }),
    });
    expect(again.status).toBe(409);
    expect(travel.answers.filter((each) => each.taskId === first?.taskId)).toHaveLength(1);
  });

  it('takes the next chat message with X-Session-ID as the answer, then streams the rest', async () => {
    const asked = await streamChat(client, {
      message: 'Book a hotel for my trip to Portugal',
      onEvent: (event) => (event.type === 'input-required' ? 'stop' : undefined),
    });
    const question = eventsOf(asked.events, 'input-required')[0];
    expect(question).toMatchObject({ agent: 'travel', question: 'Which city should I book?' });

    const rest = await streamChat(client, { message: 'Porto', sessionId: asked.sessionId });
    expect(rest.sessionId).toBe(asked.sessionId);
    expect(rest.content).toContain('Booked a hotel in Porto.');
    expect(nodeReport(rest.events, 'travel')).toMatchObject({ state: 'completed' });

    const [first, continuation, ...more] = requestsFor(agents['travel']!, asked.sessionId);
    expect(more).toEqual([]);
    expect(continuation).toMatchObject({
      taskId: first?.taskId,
      messageId: `fleet-answer-${String(question?.['inputId'])}`,
      text: 'Porto',
    });
    const listed = await gatewayApi(fleet, `/sessions/${asked.sessionId}/inputs`);
    expect(listed.body['data']).toEqual([
      expect.objectContaining({ status: 'answered', answer: 'Porto' }),
    ]);
  });

  // Last: it kills the orchestrator of this fleet.
  it('survives SIGKILL of the orchestrator while the SDK agent waits for approval, and pays once', async () => {
    const asked = await streamChat(client, {
      message: 'Pay invoice INV-1005 (€700) to our supplier',
      onEvent: (event) => (event.type === 'approval-required' ? 'stop' : undefined),
    });
    const approval = eventsOf(asked.events, 'approval-required')[0];
    expect(approval).toMatchObject({ agent: 'invoices', action: 'pay-invoice' });
    const approvalId = String(approval?.['approvalId']);

    await fleet.crashAndRestart('orchestrator');

    const pending = await gatewayApi(fleet, `/sessions/${asked.sessionId}/approvals`);
    expect(pending.body['data']).toEqual([
      expect.objectContaining({ id: approvalId, status: 'pending' }),
    ]);
    expect((await decide(asked.sessionId, approvalId, { decision: 'approve' })).status).toBe(200);

    // No client is attached: the restarted orchestrator takes the session over and finishes it.
    const session = await waitForSession(
      fleet,
      asked.sessionId,
      (each) => each['status'] === 'completed',
    );
    expect(Object.values(session['nodes'] as Json)).toEqual([
      expect.objectContaining({ agent: 'invoices', state: 'completed' }),
    ]);
    expect(session['result']['text']).toContain('Paid invoice INV-1005 (€700) to ACME GmbH');
    expect(paymentsFor(invoices, agents['invoices']!, asked.sessionId)).toHaveLength(1);
    const [, continuation, ...more] = requestsFor(agents['invoices']!, asked.sessionId);
    expect(more).toEqual([]);
    expect(continuation?.messageId).toBe(`fleet-decision-${approvalId}`);
  }, 90_000);
});
