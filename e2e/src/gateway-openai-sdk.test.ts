/**
 * The official `openai` SDK as the client of a running gateway process: what an application
 * developer does when they point `baseURL` at the fleet.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { E2E_KEY, startGateway, type RunningGateway } from './support/start-gateway';

const UPSTREAM_KEY = 'sk-upstream-e2e';

type APIError = InstanceType<typeof OpenAI.APIError>;

describe('gateway passthrough with the openai SDK', () => {
  let llm: ScriptedOpenAI;
  let gateway: RunningGateway;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({ models: ['scripted-a', 'scripted-b'] });
    gateway = await startGateway({ OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: UPSTREAM_KEY });
    client = new OpenAI({ apiKey: E2E_KEY, baseURL: gateway.baseURL, maxRetries: 0 });
  });
  beforeEach(() => {
    llm.requests.length = 0;
  });
  afterAll(async () => {
    await gateway?.stop();
    await llm?.close();
  });

  it('completes a non-streaming request and names the route taken', async () => {
    llm.enqueue({ content: 'Paris.' });
    const { data, response } = await client.chat.completions
      .create({
        model: 'gpt-test',
        temperature: 0.2,
        messages: [{ role: 'user', content: 'Capital of France?' }],
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Paris.');
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-routing-mode')).toBe('passthrough');
    const forwarded = llm.requests[0];
    expect(forwarded?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(forwarded?.body).toMatchObject({ model: 'gpt-test', temperature: 0.2 });
  });

  it('streams with usage, preserving stream_options', async () => {
    llm.enqueue({ content: 'one two three four' });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Count to four' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finishReason: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('one two three four');
    expect(finishReason).toBe('stop');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(llm.requests[0]?.body).toMatchObject({ stream_options: { include_usage: true } });
  });

  it('passes tools through and brings the tool call back, even with a routing header', async () => {
    llm.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo', unit: 'c' } }] });
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, unit: { type: 'string' } },
            required: ['city'],
          },
        },
      },
    ];
    const { data, response } = await client.chat.completions
      .create(
        {
          model: 'gpt-test',
          tools,
          tool_choice: 'auto',
          messages: [{ role: 'user', content: 'Weather in Oslo?' }],
        },
        { headers: { 'X-Routing-Mode': 'orchestration' } },
      )
      .withResponse();
    const call = data.choices[0]?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    expect(call?.type === 'function' ? call.function.name : undefined).toBe('get_weather');
    expect(call?.type === 'function' ? JSON.parse(call.function.arguments) : undefined).toEqual({
      city: 'Oslo',
      unit: 'c',
    });
    expect(response.headers.get('x-routing-mode')).toBe('passthrough');
    expect(llm.requests[0]?.body).toMatchObject({ tools, tool_choice: 'auto' });
  });

  it('streams tool calls that the SDK helper reassembles', async () => {
    llm.enqueue({ toolCalls: [{ name: 'lookup', arguments: { query: 'a2a protocol' } }] });
    const runner = client.chat.completions.stream({
      model: 'gpt-test',
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      messages: [{ role: 'user', content: 'Look it up' }],
    });
    const completion = await runner.finalChatCompletion();
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' ? call.function.name : undefined).toBe('lookup');
    expect(call?.type === 'function' ? JSON.parse(call.function.arguments) : undefined).toEqual({
      query: 'a2a protocol',
    });
  });

  it('lists the upstream models and the fleet entries', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual([
      'scripted-a',
      'scripted-b',
      'fleet-orchestration',
      'fleet-reasoning',
      'fleet-auto',
    ]);
  });

  it('raises AuthenticationError for a wrong key', async () => {
    const stranger = new OpenAI({
      apiKey: 'sk-wrong-0000000000',
      baseURL: gateway.baseURL,
      maxRetries: 0,
    });
    const error = await stranger.models.list().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as APIError).status).toBe(401);
    expect((error as APIError).message).toContain('Incorrect API key provided.');
  });

  it('raises BadRequestError for an unknown routing mode, naming the allowed values', async () => {
    const error = await client.chat.completions
      .create(
        { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'X-Routing-Mode': 'warp' } },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).param).toBe('X-Routing-Mode');
    expect((error as APIError).message).toContain('passthrough, reasoning, orchestration, auto');
  });

  it('raises BadRequestError for an invalid request body', async () => {
    const error = await client.chat.completions
      .create({ model: 'gpt-test', messages: [] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).param).toBe('messages');
    expect(llm.requests).toHaveLength(0);
  });

  it('raises RateLimitError for an upstream 429, with its message', async () => {
    llm.enqueue({ error: { status: 429, message: 'Slow down', headers: { 'retry-after': '2' } } });
    const error = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as APIError).message).toContain('Slow down');
    expect((error as APIError).headers?.get('retry-after')).toBe('2');
  });

  it('raises InternalServerError for an upstream 500', async () => {
    llm.enqueue({ error: { status: 500, message: 'Upstream exploded' } });
    const error = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as APIError).status).toBe(500);
    expect((error as APIError).message).toContain('Upstream exploded');
  });

  it('makes the SDK throw when the upstream cuts the stream off', async () => {
    llm.enqueue({ content: 'this answer will never finish properly', cutAfterChunks: 3 });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      messages: [{ role: 'user', content: 'talk' }],
    });
    let received = '';
    const error = await (async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as APIError).message).toContain('cut off before it finished');
    expect(received.length).toBeGreaterThan(0);
  });

  it('answers 503 for reasoning without a reasoning agent, in a way the SDK reports', async () => {
    const error = await client.chat.completions
      .create(
        { model: 'gpt-test', messages: [{ role: 'user', content: 'plan my week' }] },
        { headers: { 'X-Routing-Mode': 'reasoning' }, maxRetries: 0 },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as APIError).status).toBe(503);
    // No internal token in this gateway's environment, or no agent at REASONING_AGENT_URL.
    expect((error as APIError).message).toMatch(
      /Reasoning needs FLEET_INTERNAL_TOKEN|The reasoning agent is not reachable/,
    );
  });
});

describe('gateway in offline mode with the openai SDK', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway({ LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('answers passthrough with a 503 that says how to configure an upstream', async () => {
    const client = new OpenAI({ apiKey: E2E_KEY, baseURL: gateway.baseURL, maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as APIError).status).toBe(503);
    expect((error as APIError).message).toContain('OPENAI_BASE_URL');
  });

  it('exits 0 on SIGTERM after a graceful shutdown', async () => {
    const code = await gateway.stop();
    expect(code).toBe(0);
    expect(gateway.process.output()).toContain('"msg":"stopped"');
  });
});
