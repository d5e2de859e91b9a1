import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  buildGateway,
  TEST_KEY,
  UPSTREAM_KEY,
  type TestGateway,
} from '../test-support/build-gateway';
import { readText } from '../test-support/read-text';

function sseEvents(text: string): string[] {
  return text
    .split('\n\n')
    .map((frame) => frame.trim())
    .filter((frame) => frame !== '');
}

describe('POST /v1/chat/completions (passthrough)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await buildGateway();
  });
  beforeEach(() => {
    gateway.llm!.requests.length = 0;
  });
  afterAll(() => gateway.close());

  it('forwards the exact request bytes, every parameter included', async () => {
    // Unusual spacing, key order and parameters newer than any schema must survive untouched.
    const raw =
      '{"messages":[{"role":"user","content":"Hi"}],  "model":"gpt-x","seed":7,' +
      '"logit_bias":{"50256":-100},"metadata":{"k":"v"},"future_param":{"nested":[1,2,3]}}';
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('content-type', 'application/json')
      .send(raw);
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
    expect(response.body.choices[0].message.content).toBe('You said: Hi');
    const [forwarded] = gateway.llm!.requests;
    expect(forwarded?.rawBody).toBe(raw);
    expect(forwarded?.path).toBe('/v1/chat/completions');
  });

  it('presents the upstream key upstream, never the client key', async () => {
    await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] })
      .expect(200);
    const [forwarded] = gateway.llm!.requests;
    expect(forwarded?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(JSON.stringify(forwarded?.headers)).not.toContain(TEST_KEY);
  });

  it('streams the upstream answer back with usage when asked', async () => {
    gateway.llm!.enqueue({ content: 'one two three' });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send({
        model: 'm',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'count' }],
      })
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
    const events = sseEvents(response.body as string);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events
      .slice(0, -1)
      .map((event) => JSON.parse(event.replace(/^data: /, '')) as Record<string, any>);
    const text = chunks.map((chunk) => chunk['choices'][0]?.delta?.content ?? '').join('');
    expect(text).toBe('one two three');
    expect(chunks.at(-1)?.['usage']).toMatchObject({ completion_tokens: expect.any(Number) });
    const forwarded = gateway.llm!.requests[0]?.body as Record<string, unknown>;
    expect(forwarded['stream_options']).toEqual({ include_usage: true });
  });

  it('sends requests with tools through passthrough whatever the header says', async () => {
    gateway.llm!.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const tools = [
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
      },
    ];
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', tools, messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
    expect(response.headers['x-routing-reason']).toMatch(/tools present/);
    expect(response.body.choices[0].message.tool_calls[0].function.name).toBe('get_weather');
    expect((gateway.llm!.requests[0]?.body as Record<string, unknown>)['tools']).toEqual(tools);
  });

  it('sends requests with response_format through passthrough', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'reasoning')
      .send({
        model: 'm',
        response_format: { type: 'json_object' },
        messages: [{ role: 'user', content: 'json please' }],
      });
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-reason']).toMatch(/response_format present/);
    expect(() => JSON.parse(response.body.choices[0].message.content as string)).not.toThrow();
  });
});

describe('routing routes that are not built yet', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await buildGateway();
  });
  afterAll(() => gateway.close());

  it('answers 503 for reasoning when the gateway has no internal token', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'reasoning')
      .send({ model: 'm', messages: [{ role: 'user', content: 'plan a trip' }] });
    expect(response.status).toBe(503);
    expect(response.headers['x-routing-mode']).toBe('reasoning');
    expect(response.body.error.message).toMatch(/^Reasoning needs FLEET_INTERNAL_TOKEN/);
    expect(gateway.llm!.requests).toHaveLength(0);
  });

  it('answers 503 for orchestration when the gateway has no internal token', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', messages: [{ role: 'user', content: 'plan a trip' }] });
    expect(response.status).toBe(503);
    expect(response.body.error.message).toContain('FLEET_INTERNAL_TOKEN');
  });

  it('answers 400 naming the allowed values for an unknown mode', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'turbo')
      .send({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      message:
        "Unknown X-Routing-Mode 'turbo'. Allowed values: passthrough, reasoning, orchestration, auto.",
      type: 'invalid_request_error',
      param: 'X-Routing-Mode',
      code: 'bad_request',
    });
  });
});
