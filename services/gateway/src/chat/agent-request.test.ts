import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { dataPart, RESULT_ARTIFACT_NAME, textPart } from '@fleet/a2a';
import { ValidationError } from '@fleet/errors';
import {
  buildGateway,
  createTestSessions,
  TEST_KEY,
  type TestGateway,
} from '../test-support/build-gateway';
import {
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';

/**
 * Requests the agent routes cannot run (no user text) are the client's mistake: 400 naming the
 * field, before any session or A2A call. The double plays a sloppy orchestrator that records a
 * session for whatever arrives and fails runs without text, which is what clients got before.
 */
/** The eight bytes every PNG starts with (enough for the gateway's type check). */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('agent routes validate the conversation at the gateway', () => {
  let orchestrator: OrchestratorDouble;
  let reasoner: OrchestratorDouble;
  let offline: TestGateway;
  let online: TestGateway;

  beforeAll(async () => {
    const sessions = createTestSessions();
    const store = sessions.store;
    orchestrator = await startOrchestratorDouble(async function* (_context, call) {
      await store.create({ tenant: call.input?.tenant ?? 'acme', request: call.text || '(none)' });
      if (call.text.trim() === '') throw new ValidationError('The message has no request text.');
      yield {
        type: 'artifact',
        artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart(`Done: ${call.text}`)] },
      };
    });
    reasoner = await startOrchestratorDouble(async function* (_context, call) {
      await Promise.resolve();
      if (call.text.trim() === '') throw new ValidationError('The message has no request text.');
      yield {
        type: 'artifact',
        artifact: {
          name: RESULT_ARTIFACT_NAME,
          parts: [textPart(`Reasoned: ${call.text}`), dataPart({ steps: 1 })],
        },
      };
    });
    offline = await buildGateway({
      upstream: 'offline',
      sessions,
      overrides: { orchestratorClient: orchestrator.client },
    });
    online = await buildGateway({
      overrides: { reasoningAgent: { client: reasoner.client, url: 'http://reasoning.test' } },
    });
  });
  afterAll(async () => {
    await offline.close();
    await online.close();
    await orchestrator.close();
    await reasoner.close();
  });

  const chat = (gateway: TestGateway, mode: string, body: unknown) =>
    request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', mode)
      .send(body as object);

  const invalid: { name: string; messages: unknown[]; param: string }[] = [
    {
      name: 'null content',
      messages: [{ role: 'user', content: null }],
      param: 'messages[0].content',
    },
    { name: 'a number', messages: [{ role: 'user', content: 42 }], param: 'messages[0].content' },
    {
      name: 'an object',
      messages: [{ role: 'user', content: { text: 'hi' } }],
      param: 'messages[0].content',
    },
    {
      name: 'an empty string',
      messages: [{ role: 'user', content: '' }],
      param: 'messages[0].content',
    },
    {
      name: 'only whitespace after earlier turns',
      messages: [
        { role: 'user', content: 'Plan a trip' },
        { role: 'assistant', content: 'Where to?' },
        { role: 'user', content: '   ' },
      ],
      param: 'messages[2].content',
    },
    {
      name: 'only a system message',
      messages: [{ role: 'system', content: 'You are helpful.' }],
      param: 'messages',
    },
  ];

  it.each(invalid)(
    'orchestration: 400 for $name, and no session or orchestrator call',
    async ({ messages, param }) => {
      const calls = orchestrator.calls.length;
      const response = await chat(offline, 'orchestration', { model: 'fleet', messages });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(response.body.error.message).toContain(`'${param}'`);
      expect(orchestrator.calls).toHaveLength(calls);
      expect(await offline.sessions.store.list('acme')).toEqual([]);
    },
  );

  it.each(invalid)(
    'reasoning: 400 for $name, without calling the agent',
    async ({ messages, param }) => {
      const calls = reasoner.calls.length;
      const response = await chat(online, 'reasoning', { model: 'fleet', messages });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(reasoner.calls).toHaveLength(calls);
    },
  );

  it('orchestration: 400 naming messages for more text than GATEWAY_AGENT_TEXT_LIMIT, no session', async () => {
    const limited = await buildGateway({
      upstream: 'offline',
      sessions: createTestSessions(),
      overrides: { orchestratorClient: orchestrator.client, agentTextLimit: 1000 },
    });
    try {
      const calls = orchestrator.calls.length;
      const messages = [
        { role: 'user', content: 'x'.repeat(600) },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: `Summarise ${'y'.repeat(400)}` },
      ];
      const response = await chat(limited, 'orchestration', { model: 'fleet', messages });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        type: 'invalid_request_error',
        param: 'messages',
      });
      expect(response.body.error.message).toMatch(
        /carry 1012 characters .* at most 1000 \(GATEWAY_AGENT_TEXT_LIMIT\)/,
      );
      expect(orchestrator.calls).toHaveLength(calls);
      expect(await limited.sessions.store.list('acme')).toEqual([]);
    } finally {
      await limited.close();
    }
  });

  it('auto: 400 when the request goes to orchestration without text', async () => {
    const calls = orchestrator.calls.length;
    const response = await chat(offline, 'auto', {
      model: 'fleet-auto',
      messages: [{ role: 'user', content: null }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      type: 'invalid_request_error',
      param: 'messages[0].content',
    });
    expect(orchestrator.calls).toHaveLength(calls);
    expect(await offline.sessions.store.list('acme')).toEqual([]);
  });

  it('still runs what OpenAI accepts: content parts, and assistant tool calls without content', async () => {
    const response = await chat(offline, 'orchestration', {
      model: 'fleet',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: 'Look it up' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'found' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Summarise ' },
            {
              type: 'image_url',
              image_url: { url: `data:image/png;base64,${PNG_SIGNATURE.toString('base64')}` },
            },
            { type: 'text', text: 'it' },
          ],
        },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.choices[0].message.content).toBe('Done: Summarise it');
    expect(orchestrator.calls.at(-1)?.input?.history).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Look it up' },
      { role: 'assistant', content: '' },
      { role: 'tool', content: 'found' },
    ]);
    expect(orchestrator.calls.at(-1)?.parts.filter((part) => part.raw !== undefined)).toEqual([
      {
        raw: PNG_SIGNATURE.toString('base64'),
        filename: 'attachment-1.png',
        mediaType: 'image/png',
      },
    ]);
  });

  it('refuses an image by http URL on an agent route: the gateway fetches none', async () => {
    const response = await chat(offline, 'orchestration', {
      model: 'fleet',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('messages[0].content[1].image_url.url');
  });

  it('leaves passthrough alone: the upstream judges content', async () => {
    const response = await chat(online, 'passthrough', {
      model: 'gpt-x',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: null, tool_calls: [] },
        { role: 'user', content: [{ type: 'text', text: 'again' }] },
      ],
    });
    expect(response.status).toBe(200);
  });
});
