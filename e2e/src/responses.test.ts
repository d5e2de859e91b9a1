/**
 * `POST /v1/responses` and `POST /v1/embeddings` end to end, with the official `openai` SDK as the
 * client of a running fleet (gateway, orchestrator, planner and the real reasoning agent as
 * processes, a scripted agent and a scripted upstream LLM): passthrough streamed and not,
 * `client.responses.stream` (which checks the event sequence), embeddings, and the reasoning and
 * orchestration routes answered in the Responses shape.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import { startScriptedOpenAI, type RespondFunction, type ScriptedOpenAI } from '@fleet/testing';
import { startFleet, type RunningFleet } from './support/start-fleet';

const COMPOSED = 'Composed answer from the agents.';
const PASSTHROUGH = 'The upstream answers directly.';

const PLAN: Plan = {
  nodes: [{ id: 'a', agent: 'web', task: 'search the news', dependsOn: [] }],
  rationale: 'scripted plan',
  confidence: 0.9,
};

/**
 * The upstream LLM for every caller: the gateway's passthrough (`/v1/responses`), the planner
 * (a JSON-schema answer with `nodes`), the reasoning agent (its calculator) and the composer.
 */
const respond: RespondFunction = (request, context) => {
  if (request.path.endsWith('/responses')) return { content: PASSTHROUGH };
  if (context.jsonSchema !== undefined) {
    return JSON.stringify(context.jsonSchema).includes('"nodes"') ? { json: PLAN } : {};
  }
  if (context.toolNames.includes('calculate')) {
    const last = context.request.messages.at(-1);
    if (last?.role === 'tool') {
      return { content: '6 × 7 = 42.', usage: { prompt_tokens: 100, completion_tokens: 10 } };
    }
    return {
      content: 'Multiplying.',
      toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }],
      usage: { prompt_tokens: 80, completion_tokens: 20 },
    };
  }
  return { content: COMPOSED };
};

describe('the Responses API and embeddings with the openai SDK', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({ respond });
    const upstream = { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' };
    fleet = await startFleet({
      env: upstream,
      agents: [{ name: 'web', skills: [{ id: 'search', tags: ['web', 'search', 'news'] }] }],
      agentServices: { 'reasoning-agent': { ...upstream, REASONING_MAX_ITERATIONS: '4' } },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  it('passes a response through, every field forwarded', async () => {
    const { data, response } = await client.responses
      .create({
        model: 'gpt-test',
        input: 'Hello',
        store: true,
        previous_response_id: 'resp_earlier',
        reasoning: { effort: 'low' },
      })
      .withResponse();
    expect(response.headers.get('x-routing-mode')).toBe('passthrough');
    expect(data.output_text).toBe(PASSTHROUGH);
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
    const forwarded = llm.requests.findLast((request) => request.path.endsWith('/responses'));
    expect(forwarded?.body).toMatchObject({
      store: true,
      previous_response_id: 'resp_earlier',
      reasoning: { effort: 'low' },
    });
  });

  it('streams a passed-through response event by event', async () => {
    const stream = await client.responses.create({ model: 'gpt-test', input: 'Hi', stream: true });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(text).toBe(PASSTHROUGH);
    const final = await client.responses.stream({ model: 'gpt-test', input: 'Hi' }).finalResponse();
    expect(final.output_text).toBe(PASSTHROUGH);
  });

  it('passes embeddings through', async () => {
    const { data, response } = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: ['one', 'two'], dimensions: 8 })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data.data).toHaveLength(2);
    expect(data.data[0]?.embedding).toHaveLength(8);
    expect(data.usage.total_tokens).toBeGreaterThan(0);
  });

  it('answers the reasoning route in the Responses shape, streamed and not', async () => {
    const options = { headers: { 'X-Routing-Mode': 'reasoning' } };
    const whole = await client.responses.create(
      { model: 'fleet-reasoning', input: 'What is 6 * 7?' },
      options,
    );
    expect(whole.output_text).toContain('42');
    const reasoning = whole.output.find((item) => item.type === 'reasoning');
    expect(reasoning?.type === 'reasoning' && reasoning.summary.map((part) => part.text)).toEqual(
      expect.arrayContaining(['Result: 42']),
    );
    expect(whole.usage?.total_tokens).toBeGreaterThan(0);

    const stream = client.responses.stream(
      { model: 'fleet-reasoning', input: 'What is 6 * 7?' },
      options,
    );
    const summaries: string[] = [];
    stream.on('response.reasoning_summary_text.done', (event) => summaries.push(event.text));
    const final = await stream.finalResponse();
    expect(final.output_text).toContain('42');
    expect(summaries).toContain('Result: 42');
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('answers the orchestration route in the Responses shape, with the fleet object', async () => {
    const stream = client.responses.stream(
      { model: 'fleet-orchestration', input: 'News on A2A' },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    let text = '';
    stream.on('response.output_text.delta', (event) => (text += event.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(COMPOSED);
    expect(text).toBe(COMPOSED);
    expect(final.output[0]?.type).toBe('reasoning');
    const fleetObject = (final as unknown as { fleet?: Record<string, unknown> }).fleet;
    expect(fleetObject).toMatchObject({ type: 'run-result', sessionId: expect.any(String) });

    const whole = await client.responses.create(
      { model: 'fleet-orchestration', input: 'News on A2A' },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    expect(whole.output_text).toBe(COMPOSED);
  });

  it('refuses previous_response_id on an agent route, naming X-Session-ID', async () => {
    const error = await client.responses
      .create(
        { model: 'fleet-orchestration', input: 'go on', previous_response_id: 'resp_1' },
        { headers: { 'X-Routing-Mode': 'orchestration' } },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as Error).message).toMatch(/X-Session-ID/);
  });
});
