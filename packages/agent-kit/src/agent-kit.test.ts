import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { partsText, readHandoffs, textPart, type StreamResponse } from '@fleet/a2a';
import { buildAgentCard, createA2AHandler } from '@fleet/a2a/server';
import { ServiceUnavailableError, ValidationError } from '@fleet/errors';
import {
  completed,
  dependencyContext,
  errorData,
  errorDataSchema,
  failed,
  handoff,
  handoffPart,
  refused,
  rejected,
  result,
  resultChunk,
  resultChunks,
  resultEnd,
  working,
} from './index';
import { bootAgent, nodeParts, type BootedAgent } from './testing';

describe('events', () => {
  it('builds status events', () => {
    expect(working('Reading…')).toEqual({
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: 'Reading…',
    });
    expect(working('Reading https://example.org…', { stage: 'reading' })).toEqual({
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: [
        { text: 'Reading https://example.org…' },
        { data: { progress: { stage: 'reading' } }, mediaType: 'application/json' },
      ],
    });
    expect(completed('Done.')).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: 'Done.' });
    expect(rejected('No question.')).toMatchObject({
      state: 'TASK_STATE_REJECTED',
      message: 'No question.',
    });
    expect(rejected('No question.', { need: 'text' })).toMatchObject({
      message: [
        { text: 'No question.' },
        { data: { need: 'text' }, mediaType: 'application/json' },
      ],
    });
  });

  it('carries any error as its text and the one error data part', () => {
    const event = failed(new ValidationError('The question is empty.', { details: { a: 1 } }));
    expect(event).toMatchObject({ type: 'status', state: 'TASK_STATE_FAILED' });
    const parts = event.type === 'status' && Array.isArray(event.message) ? event.message : [];
    expect(parts[0]).toMatchObject({ text: 'The question is empty.' });
    const data = (parts[1] as { data: unknown }).data;
    expect(errorDataSchema.parse(data)).toEqual({
      error: { code: 'VALIDATION_FAILED', message: 'The question is empty.', details: { a: 1 } },
    });
    // Unknown errors do not leak their message.
    const hidden = errorData(new Error('secret path /etc/x'));
    expect(hidden.error.code).toBe('INTERNAL');
    expect(hidden.error.message).not.toContain('/etc/x');
  });

  it('says when a retryable failure may be tried again, and keeps extra fields', () => {
    const error = new ServiceUnavailableError('Database down.', { retryAfterSeconds: 5 });
    expect(errorData(error)).toEqual({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'Database down.',
        details: { retryAfterSeconds: 5 },
      },
    });
    const event = refused(new ValidationError('No.'), { extra: { code: 'print(1)' } });
    expect(event).toMatchObject({
      state: 'TASK_STATE_REJECTED',
      message: [
        { text: 'No.' },
        { data: { error: { code: 'VALIDATION_FAILED' }, code: 'print(1)' } },
      ],
    });
  });

  it('builds the result artifact, with or without data', () => {
    expect(result('Answer', { sources: [] })).toMatchObject({
      type: 'artifact',
      lastChunk: true,
      artifact: { name: 'result', parts: [{ text: 'Answer' }, { data: { sources: [] } }] },
    });
    expect(result('Answer')).toMatchObject({ artifact: { parts: [{ text: 'Answer' }] } });
  });

  it('hands work off in an artifact of its own that the orchestrator reads', () => {
    const event = handoff({ skill: 'web-search', task: 'Find the G3 price', context: 'G3 kit' });
    expect(event).toMatchObject({
      type: 'artifact',
      lastChunk: true,
      artifact: { name: 'handoff' },
    });
    const parts = event.type === 'artifact' ? event.artifact.parts : [];
    expect(readHandoffs(parts)).toEqual({
      requests: [{ skill: 'web-search', task: 'Find the G3 price', context: 'G3 kit' }],
      refused: [],
    });
    // Several in one part; or the part beside a result's own.
    const two = handoff([
      { agent: 'web', task: 'one' },
      { agent: 'mail', task: 'two' },
    ]);
    expect(readHandoffs(two.type === 'artifact' ? two.artifact.parts : []).requests).toHaveLength(
      2,
    );
    const withResult = result('Answer', undefined, [handoffPart({ agent: 'web', task: 'more' })]);
    expect(
      readHandoffs(withResult.type === 'artifact' ? withResult.artifact.parts : []).requests,
    ).toEqual([{ agent: 'web', task: 'more' }]);
  });
});

describe('dependencyContext', () => {
  it('lists earlier answers and leaves out failed or empty ones', () => {
    expect(
      dependencyContext({
        sessionId: 's',
        nodeId: 'n',
        tenant: 't',
        entities: {},
        memory: [],
        dependencyOutputs: {
          'rag-1': { agent: 'rag-agent', summary: 'The budget is 5.' },
          'web-1': { agent: 'web-agent', summary: 'half', partial: true },
          'mail-1': { agent: 'mail-agent', summary: '  ' },
        },
      }),
    ).toEqual([{ label: 'rag-1 (rag-agent)', summary: 'The budget is 5.' }]);
    expect(dependencyContext(undefined)).toEqual([]);
  });
});

describe('resultChunk and resultEnd', () => {
  it('appends pieces under one id, then replaces them with the whole artifact', () => {
    expect(resultChunk('a-1', 'Hel')).toEqual({
      type: 'artifact',
      artifact: { artifactId: 'a-1', name: 'result', parts: [{ text: 'Hel' }] },
      append: true,
      lastChunk: false,
    });
    expect(resultEnd('a-1', 'Hello', { sources: [] })).toMatchObject({
      artifact: {
        artifactId: 'a-1',
        name: 'result',
        parts: [{ text: 'Hello' }, { data: { sources: [] } }],
      },
      append: false,
      lastChunk: true,
    });
  });

  it('turns a generator of deltas into chunks and returns its value', async () => {
    async function* deltas(): AsyncGenerator<string, number, undefined> {
      await Promise.resolve();
      yield 'a';
      yield '';
      yield 'b';
      return 2;
    }
    async function* run(): AsyncGenerator<unknown, number, undefined> {
      return yield* resultChunks('x', deltas());
    }
    const seen: unknown[] = [];
    const iterator = run();
    let next = await iterator.next();
    while (next.done !== true) {
      seen.push(next.value);
      next = await iterator.next();
    }
    expect(next.value).toBe(2);
    expect(seen).toEqual([resultChunk('x', 'a'), resultChunk('x', 'b')]);
  });
});

describe('bootAgent', () => {
  const redis = new Redis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
  });
  let agent: BootedAgent;

  beforeAll(async () => {
    await redis.connect();
    agent = await bootAgent({
      serviceName: 'echo-agent',
      redis,
      keyPrefix: `test:agent-kit:${process.pid}`,
      token: 'agent-kit-test-token-0123456789',
      createHandler: ({ store, url }) =>
        createA2AHandler({
          card: buildAgentCard({
            name: 'Echo',
            description: 'Echoes the task and its earlier steps.',
            version: '1.0.0',
            url,
            skills: [{ id: 'echo', name: 'Echo', description: 'Echoes.' }],
            internalToken: true,
          }),
          store,
          async *execute(context) {
            await Promise.resolve();
            yield working('Echoing…');
            const text = context.message.parts.map((part) => ('text' in part ? part.text : ''));
            if (text.join('').startsWith('stream: ')) {
              const pieces = async function* (): AsyncGenerator<string, string, undefined> {
                await Promise.resolve();
                const words = text
                  .join('')
                  .slice('stream: '.length)
                  .split(/(?<= )/);
                for (const word of words) yield word;
                return words.join('');
              };
              const joined = yield* resultChunks('answer-1', pieces());
              yield resultEnd('answer-1', joined, { echoed: true });
            } else yield result(text.join(''), { echoed: true });
            yield completed('Echoed.');
          },
        }),
    });
  });

  afterAll(async () => {
    await agent.close();
    await redis.quit();
  });

  it('serves the card at its URL and answers through the token-carrying client', async () => {
    const response = await fetch(`${agent.url}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const task = await agent.client.sendMessage({
      message: {
        messageId: 'm-1',
        role: 'ROLE_USER',
        parts: nodeParts({ text: 'hello', skill: 'echo' }),
      },
    });
    expect(task).toMatchObject({
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ name: 'result', parts: [{ text: 'hello' }, { data: { echoed: true } }] }],
    });
  });

  it('streams a result in append chunks and stores the whole artifact once', async () => {
    const events: StreamResponse[] = [];
    for await (const event of agent.client.sendStreamingMessage({
      message: { messageId: 'm-2', role: 'ROLE_USER', parts: [textPart('stream: one two three')] },
    })) {
      events.push(event);
    }
    const updates = events.flatMap((event) =>
      'artifactUpdate' in event ? [event.artifactUpdate] : [],
    );
    expect(updates.map((update) => [update.append, update.lastChunk])).toEqual([
      [true, false],
      [true, false],
      [true, false],
      [false, true],
    ]);
    expect(new Set(updates.map((update) => update.artifact.artifactId))).toEqual(
      new Set(['answer-1']),
    );
    const chunks = updates.slice(0, -1).map((update) => partsText(update.artifact.parts));
    expect(chunks).toEqual(['one ', 'two ', 'three']);
    const taskId = updates[0]?.taskId ?? '';
    const task = await agent.client.getTask({ id: taskId });
    expect(task.artifacts).toEqual([
      {
        artifactId: 'answer-1',
        name: 'result',
        parts: [
          { text: chunks.join('') },
          { data: { echoed: true }, mediaType: 'application/json' },
        ],
      },
    ]);
  });

  it('refuses calls without the token', async () => {
    const response = await fetch(`${agent.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(response.status).toBe(401);
  });
});
