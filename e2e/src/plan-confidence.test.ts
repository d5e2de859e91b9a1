/**
 * Uncertain plans through the gateway, with the official openai SDK as the client and an agent
 * built on `@a2a-js/sdk` that asks which city to book: a plan whose confidence is below the
 * orchestrator's threshold runs anyway by default, waits for the person's approval with
 * `X-Low-Confidence: approve`, or asks the person with `X-Low-Confidence: ask` ("go ahead" runs it,
 * anything else is planned again with it); the stream says so in every case, and a bad header value
 * is a 400 in the OpenAI envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import {
  createQuestionExecutor,
  startScriptedOpenAI,
  startSdkAgent,
  TRAVEL_AGENT_CARD,
  type ScriptedOpenAI,
  type SdkAgent,
} from '@fleet/testing';
import { eventsOf, gatewayApi, streamChat, type FleetEvent } from './support/gateway-api';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

function travelPlan(task: string, confidence: number): Plan {
  return {
    nodes: [{ id: 'book', agent: 'travel', skill: 'book-hotel', task, dependsOn: [] }],
    rationale: 'a hotel booking for the travel agent',
    confidence,
  };
}

describe('uncertain plans', () => {
  let llm: ScriptedOpenAI;
  let travel: SdkAgent;
  const bookings = createQuestionExecutor();
  let fleet: RunningFleet;
  let client: OpenAI;
  /** The plans the scripted planner model gives, in order; the last one repeats. */
  let plans: Plan[] = [];

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: (recorded, context) => {
        if (context.jsonSchema === undefined) return { content: 'Composed.' };
        const format = (recorded.body as { response_format?: { json_schema?: { name?: string } } })
          .response_format;
        // Other structured calls (the run's memory, …) get nothing to go on.
        if (format?.json_schema?.name !== 'plan') return { json: {} };
        const plan = plans.length > 1 ? plans.shift() : plans[0];
        return plan === undefined ? {} : { json: plan };
      },
    });
    travel = await startSdkAgent({
      ...TRAVEL_AGENT_CARD,
      executor: bookings,
      token: E2E_INTERNAL_TOKEN,
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      agents: [],
      agentUrls: [travel.url],
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await travel?.stop();
    await llm?.close();
  }, 60_000);

  /** Answers the travel agent's question with a city; `onPlan` handles what the plan asks for. */
  function answering(onPlan: (event: FleetEvent, sessionId: string) => Promise<void>) {
    return async (
      event: Record<string, unknown> & { type: string },
      chat: { sessionId: string },
    ) => {
      if (event.type === 'input-required' && event['agent'] === 'travel') {
        await gatewayApi(fleet, `/sessions/${chat.sessionId}/inputs/${String(event['inputId'])}`, {
          method: 'POST',
          body: JSON.stringify({ text: 'Lisbon' }),
        });
        return;
      }
      await onPlan(event, chat.sessionId);
    };
  }

  it('runs an uncertain plan by default and says so', async () => {
    plans = [travelPlan('Book a hotel for my trip', 0.3)];
    const chat = await streamChat(client, {
      message: 'Book a hotel for my trip',
      onEvent: answering(() => Promise.resolve()),
    });
    expect(chat.reasoning).toContain('The plan is uncertain (confidence 0.30, below 0.5)');
    expect(eventsOf(chat.events, 'approval-required')).toEqual([]);
    expect(bookings.answers.at(-1)?.text).toBe('Lisbon');
    expect(eventsOf(chat.events, 'run-end')).toEqual([
      expect.objectContaining({ state: 'completed' }),
    ]);
  }, 60_000);

  it('shows an uncertain plan for approval with X-Low-Confidence: approve', async () => {
    plans = [travelPlan('Book a hotel for my trip', 0.3)];
    const before = travel.requests.length;
    let agentCalledBeforeApproval: boolean | undefined;
    const chat = await streamChat(client, {
      message: 'Book a hotel for my trip',
      headers: { 'X-Low-Confidence': 'approve' },
      onEvent: answering(async (event, sessionId) => {
        if (event.type !== 'approval-required') return;
        agentCalledBeforeApproval = travel.requests.length > before;
        const decided = await gatewayApi(
          fleet,
          `/sessions/${sessionId}/approvals/${String(event['approvalId'])}`,
          { method: 'POST', body: JSON.stringify({ decision: 'approve' }) },
        );
        expect(decided.status).toBe(200);
      }),
    });
    expect(chat.reasoning).toContain('showing it for your approval');
    expect(eventsOf(chat.events, 'approval-required')).toEqual([
      expect.objectContaining({ kind: 'plan' }),
    ]);
    expect(agentCalledBeforeApproval).toBe(false);
    expect(bookings.answers.at(-1)?.text).toBe('Lisbon');
    expect(eventsOf(chat.events, 'run-end')).toEqual([
      expect.objectContaining({ state: 'completed' }),
    ]);
  }, 60_000);

  it('asks about an uncertain plan with X-Low-Confidence: ask, and plans again with the reply', async () => {
    plans = [
      travelPlan('Book a hotel for my trip', 0.3),
      travelPlan('Book a hotel in Lisbon for my trip', 0.9),
    ];
    const before = travel.requests.length;
    let agentCalledBeforeReply: boolean | undefined;
    const chat = await streamChat(client, {
      message: 'Book a hotel for my trip',
      headers: { 'X-Low-Confidence': 'ask' },
      onEvent: answering(async (event, sessionId) => {
        if (event.type !== 'input-required') return;
        agentCalledBeforeReply = travel.requests.length > before;
        const replied = await gatewayApi(
          fleet,
          `/sessions/${sessionId}/inputs/${String(event['inputId'])}`,
          { method: 'POST', body: JSON.stringify({ text: 'The hotel should be in Lisbon.' }) },
        );
        expect(replied.status).toBe(200);
      }),
    });
    expect(chat.reasoning).toContain('asking you about it');
    expect(agentCalledBeforeReply).toBe(false);
    const planQuestions = eventsOf(chat.events, 'input-required').filter(
      (event) => event['agent'] !== 'travel',
    );
    expect(planQuestions).toHaveLength(1);
    expect(String(planQuestions[0]?.['question'])).toMatch(/not sure this plan/i);
    // The reply went to the planner as feedback: the second plan ran.
    const [first] = travel.requests.slice(before);
    expect(first?.text).toContain('Book a hotel in Lisbon for my trip');
    expect(bookings.answers.at(-1)?.text).toBe('Lisbon');
    expect(eventsOf(chat.events, 'run-end')).toEqual([
      expect.objectContaining({ state: 'completed' }),
    ]);
  }, 60_000);

  it('refuses a value it does not know with a 400 in the OpenAI envelope', async () => {
    await expect(
      client.chat.completions.create(
        { model: 'fleet-orchestration', messages: [{ role: 'user', content: 'Book a hotel' }] },
        { headers: { 'X-Routing-Mode': 'orchestration', 'X-Low-Confidence': 'maybe' } },
      ),
    ).rejects.toMatchObject({
      status: 400,
      error: expect.objectContaining({ type: expect.any(String) }),
    });
  }, 30_000);
});
