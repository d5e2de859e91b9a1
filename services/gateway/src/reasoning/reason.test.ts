import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { dataPart, partsText, RESULT_ARTIFACT_NAME, textPart, type Part } from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import {
  buildAgentCard,
  createA2AHandler,
  InMemoryTaskStore,
  type AgentContext,
  type AgentEvent,
} from '@fleet/a2a/server';
import { a2aRouter } from '@fleet/a2a/server/express';
import { getFreePort } from '@fleet/testing';
import OpenAI from 'openai';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { readText } from '../test-support/read-text';
import { serve } from '../test-support/serve';
import { sseFrames } from '../test-support/sse-frames';
import { createToolPermissions } from '../tool-permissions';

const TOKEN = 'internal-token-0123456789';

const steps = [
  { type: 'thought', iteration: 1, text: 'I will multiply.' },
  {
    type: 'tool-call',
    iteration: 1,
    callId: 'c1',
    name: 'calculate',
    arguments: '{"expression":"6 * 7"}',
  },
  { type: 'tool-result', iteration: 1, callId: 'c1', name: 'calculate', ok: true, output: '42' },
] as const;
const lines = ['Thinking: I will multiply.', 'Calling calculate("6 * 7")', 'Result: 42'];

function step(index: number): AgentEvent {
  return {
    type: 'status',
    state: 'TASK_STATE_WORKING',
    message: [textPart(lines[index] ?? ''), dataPart({ reasoningStep: steps[index] })],
  };
}

/**
 * The reasoning agent's side of the contract (status lines with `{ reasoningStep }`, the `result`
 * artifact with usage), as a small A2A agent: the gateway's translation is under test here; the
 * real agent runs in e2e/.
 */
function reasoningDouble(received: Part[][], onAbort: () => void) {
  return async function* execute(context: AgentContext): AsyncGenerator<AgentEvent> {
    await Promise.resolve();
    received.push(context.message.parts);
    const text = partsText(context.message.parts);
    if (text === '' || text.includes('unanswerable')) {
      yield {
        type: 'status',
        state: 'TASK_STATE_REJECTED',
        message: 'The agent needs a question.',
      };
      return;
    }
    if (text.includes('offline')) {
      yield {
        type: 'status',
        state: 'TASK_STATE_FAILED',
        message: [
          textPart('The reasoning agent needs an upstream LLM and none is configured.'),
          dataPart({ error: { code: 'SERVICE_UNAVAILABLE', message: 'offline' } }),
        ],
      };
      return;
    }
    yield { type: 'status', state: 'TASK_STATE_WORKING' };
    yield step(0);
    if (text.includes('hang')) {
      // A slow model call: it ends only when the task is cancelled.
      await new Promise<void>((resolve) =>
        context.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      onAbort();
      return;
    }
    if (text.includes('explode')) {
      yield {
        type: 'status',
        state: 'TASK_STATE_FAILED',
        message: 'The upstream LLM answered 500.',
      };
      return;
    }
    if (text.includes('refuse midway')) {
      yield { type: 'status', state: 'TASK_STATE_REJECTED', message: 'The agent will not go on.' };
      return;
    }
    yield step(1);
    yield step(2);
    if (text.includes('slowly')) {
      // The agent kit's chunked result: pieces while the model writes, then the whole artifact.
      const pieces = ['6 × 7 ', '= 42, ', 'the answer.'];
      for (const piece of pieces) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        yield resultChunk('answer-1', piece);
      }
      yield resultEnd('answer-1', pieces.join(''), {
        steps,
        iterations: 2,
        stopReason: 'answered',
        usage: { promptTokens: 200, completionTokens: 30, totalTokens: 230 },
      });
      yield { type: 'status', state: 'TASK_STATE_COMPLETED', message: 'Answered.' };
      return;
    }
    yield {
      type: 'artifact',
      artifact: {
        name: RESULT_ARTIFACT_NAME,
        parts: [
          textPart('6 × 7 = 42.'),
          dataPart({
            steps,
            iterations: 2,
            stopReason: 'answered',
            usage: { promptTokens: 200, completionTokens: 30, totalTokens: 230 },
          }),
        ],
      },
      lastChunk: true,
    };
    yield {
      type: 'status',
      state: 'TASK_STATE_COMPLETED',
      message: 'Answered after 2 model calls.',
    };
  };
}

/** A piece of the `result` artifact, as the agent kit's `resultChunk` sends it. */
function resultChunk(artifactId: string, text: string): AgentEvent {
  const artifact = { artifactId, name: RESULT_ARTIFACT_NAME, parts: [textPart(text)] };
  return { type: 'artifact', artifact, append: true, lastChunk: false };
}

/** The whole `result` artifact ending a streamed one, as the agent kit's `resultEnd` sends it. */
function resultEnd(artifactId: string, text: string, data: unknown): AgentEvent {
  const artifact = {
    artifactId,
    name: RESULT_ARTIFACT_NAME,
    parts: [textPart(text), dataPart(data)],
  };
  return { type: 'artifact', artifact, append: false, lastChunk: true };
}

function post(gateway: TestGateway, body: Record<string, unknown>) {
  return request(gateway.app)
    .post('/v1/chat/completions')
    .auth(TEST_KEY, { type: 'bearer' })
    .set('x-routing-mode', 'reasoning')
    .send({ model: 'fleet-reasoning', ...body });
}

describe('reasoning route', () => {
  let agentServer: http.Server;
  let agentUrl: string;
  let gateway: TestGateway;
  const received: Part[][] = [];
  let abortedRuns = 0;
  let onAbort = (): void => undefined;

  beforeAll(async () => {
    const app = express();
    agentServer = http.createServer(app);
    await new Promise<void>((resolve) => agentServer.listen(0, '127.0.0.1', resolve));
    agentUrl = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}`;
    app.use(
      a2aRouter({
        handler: createA2AHandler({
          card: buildAgentCard({
            name: 'reasoning-agent',
            description: 'double',
            version: '0',
            url: agentUrl,
            skills: [],
          }),
          execute: reasoningDouble(received, () => {
            abortedRuns += 1;
            onAbort();
          }),
          store: new InMemoryTaskStore(),
        }),
        internalToken: TOKEN,
      }),
    );
    gateway = await buildGateway({
      overrides: {
        reasoningAgent: {
          client: new A2AClient({ url: `${agentUrl}/a2a`, token: TOKEN }),
          url: agentUrl,
        },
      },
    });
  });

  afterAll(async () => {
    await gateway.close();
    agentServer.closeAllConnections();
    await new Promise((resolve) => agentServer.close(resolve));
  });

  it('streams each step as reasoning_content, then the answer, usage and [DONE]', async () => {
    const response = await post(gateway, {
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'user', content: 'What is 6?' },
        { role: 'assistant', content: '6.' },
        { role: 'user', content: 'What is 6 * 7?' },
      ],
    })
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('reasoning');
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    const { chunks, done } = sseFrames(response.body as string);
    expect(done).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([
      { role: 'assistant', reasoning_content: 'Thinking: I will multiply.\n' },
      { reasoning_content: 'Calling calculate("6 * 7")\n' },
      { reasoning_content: 'Result: 42\n' },
      { content: '6 × 7 = 42.' },
      {},
      undefined,
    ]);
    expect(chunks[1]?.fleet).toEqual({ type: 'reasoning-step', step: steps[1] });
    expect(chunks[4]?.choices[0]?.finish_reason).toBe('stop');
    const usageChunk = chunks[5] as unknown as Record<string, unknown>;
    expect(usageChunk['choices']).toEqual([]);
    expect(usageChunk['usage']).toEqual({
      prompt_tokens: 200,
      completion_tokens: 30,
      total_tokens: 230,
    });
    const ids = new Set(chunks.map((chunk) => (chunk as unknown as { id: string }).id));
    expect(ids.size).toBe(1);
    // The agent got the question and the conversation before it.
    expect(partsText(received.at(-1) ?? [])).toBe('What is 6 * 7?');
    expect(received.at(-1)?.find((part) => part.data !== undefined)?.data).toEqual({
      reasoning: {
        history: [
          { role: 'user', content: 'What is 6?' },
          { role: 'assistant', content: '6.' },
        ],
      },
    });
  });

  it('streams the answer as content deltas as the agent writes it (openai SDK)', async () => {
    const served = await serve(gateway.app);
    try {
      const client = new OpenAI({
        apiKey: TEST_KEY,
        baseURL: `${served.url}/v1`,
        maxRetries: 0,
        defaultHeaders: { 'x-routing-mode': 'reasoning' },
      });
      const stream = await client.chat.completions.create({
        model: 'fleet-reasoning',
        stream: true,
        messages: [{ role: 'user', content: 'What is 6 * 7, slowly?' }],
      });
      const deltas: { text: string; at: number }[] = [];
      for await (const chunk of stream) {
        const text = chunk.choices[0]?.delta.content;
        if (typeof text === 'string' && text !== '') deltas.push({ text, at: Date.now() });
      }
      expect(deltas.map((delta) => delta.text)).toEqual(['6 × 7 ', '= 42, ', 'the answer.']);
      // The first piece left while the agent was still writing (it pauses 150 ms between pieces).
      expect((deltas.at(-1)?.at ?? 0) - (deltas[0]?.at ?? 0)).toBeGreaterThanOrEqual(200);
      const whole = await client.chat.completions.create({
        model: 'fleet-reasoning',
        messages: [{ role: 'user', content: 'What is 6 * 7, slowly?' }],
      });
      expect(whole.choices[0]?.message.content).toBe(deltas.map((delta) => delta.text).join(''));
    } finally {
      await served.close();
    }
  });

  it('leaves usage out of the stream unless include_usage asks for it', async () => {
    const response = await post(gateway, {
      stream: true,
      messages: [{ role: 'user', content: 'What is 6 * 7?' }],
    })
      .buffer(true)
      .parse(readText);
    const { chunks, done } = sseFrames(response.body as string);
    expect(done).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('answers without streaming with reasoning_content, content and usage', async () => {
    const response = await post(gateway, {
      messages: [{ role: 'user', content: 'What is 6 * 7?' }],
    });
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('reasoning');
    expect(response.body).toMatchObject({
      object: 'chat.completion',
      model: 'fleet-reasoning',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: '6 × 7 = 42.',
            reasoning_content: `${lines.join('\n')}\n`,
          },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 200, completion_tokens: 30, total_tokens: 230 },
      fleet: { route: 'reasoning', stopReason: 'answered', iterations: 2 },
    });
  });

  it('ends a stream that breaks after the first step with an error event, never [DONE]', async () => {
    const response = await post(gateway, {
      stream: true,
      messages: [{ role: 'user', content: 'explode please' }],
    })
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    const body = response.body as string;
    expect(body).toContain('Thinking: I will multiply.');
    expect(body).not.toContain('[DONE]');
    expect(body).toMatch(
      /event: error\ndata: {"error":{"message":"The reasoning agent failed: The upstream LLM answered 500.","type":"server_error","param":null,"code":"upstream_error"}}\n\n$/,
    );
  });

  it('gives a failure mid-stream the same error body as the answer without streaming', async () => {
    const messages = [{ role: 'user', content: 'refuse midway' }];
    const answered = await post(gateway, { messages });
    expect(answered.status).toBe(400);
    const streamed = await post(gateway, { stream: true, messages }).buffer(true).parse(readText);
    expect(streamed.status).toBe(200);
    const frame = /event: error\ndata: (.*)\n\n$/.exec(streamed.body as string);
    expect(JSON.parse(frame?.[1] ?? 'null')).toEqual(answered.body);
    expect(answered.body).toEqual({
      error: {
        message: 'The agent will not go on.',
        type: 'invalid_request_error',
        param: null,
        code: 'bad_request',
      },
    });
  });

  it('cancels the agent task when the client goes away mid-stream', async () => {
    const server = http.createServer(gateway.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const aborted = new Promise<void>((resolve) => (onAbort = resolve));
    try {
      const controller = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_KEY}`,
          'content-type': 'application/json',
          'x-routing-mode': 'reasoning',
        },
        body: JSON.stringify({
          model: 'm',
          stream: true,
          messages: [{ role: 'user', content: 'hang on' }],
        }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain('Thinking: I will multiply.');
      controller.abort();
      await aborted;
      expect(abortedRuns).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers 502 without streaming when the agent fails', async () => {
    const response = await post(gateway, { messages: [{ role: 'user', content: 'explode' }] });
    expect(response.status).toBe(502);
    expect(response.body.error.message).toBe(
      'The reasoning agent failed: The upstream LLM answered 500.',
    );
  });

  it('answers 400 with the reason when the agent rejects the request', async () => {
    // (A request without user text never reaches the agent: the gateway refuses it first.)
    const response = await post(gateway, {
      messages: [{ role: 'user', content: 'an unanswerable question' }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe('The agent needs a question.');
  });

  it('answers 503 when the agent has no upstream', async () => {
    const response = await post(gateway, { messages: [{ role: 'user', content: 'offline?' }] });
    expect(response.status).toBe(503);
    expect(response.body.error.message).toContain('needs an upstream LLM');
  });

  it("sends the tenant's tool policy as reasoning.toolPolicy", async () => {
    const limited = await buildGateway({
      overrides: {
        reasoningAgent: {
          client: new A2AClient({ url: `${agentUrl}/a2a`, token: TOKEN }),
          url: agentUrl,
        },
        toolPermissions: createToolPermissions({
          inline: { tenants: { acme: { deny: ['memory/delete_*'] } } },
        }),
      },
    });
    try {
      const response = await post(limited, { messages: [{ role: 'user', content: '6 * 7?' }] });
      expect(response.status).toBe(200);
      expect(received.at(-1)?.find((part) => part.data !== undefined)?.data).toEqual({
        reasoning: { history: [], toolPolicy: { deny: ['memory/delete_*'] } },
      });
    } finally {
      await limited.close();
    }
  });

  it('answers 503 saying how to configure an upstream when the gateway is offline', async () => {
    const offline = await buildGateway({
      upstream: 'offline',
      overrides: {
        reasoningAgent: {
          client: new A2AClient({ url: `${agentUrl}/a2a`, token: TOKEN }),
          url: agentUrl,
        },
      },
    });
    try {
      const response = await post(offline, { messages: [{ role: 'user', content: '6 * 7?' }] });
      expect(response.status).toBe(503);
      expect(response.headers['x-routing-mode']).toBe('reasoning');
      expect(response.body.error.message).toMatch(
        /^X-Routing-Mode: reasoning needs an upstream LLM\. No upstream LLM is configured.*Set OPENAI_BASE_URL/,
      );
    } finally {
      await offline.close();
    }
  });

  it('answers 503 naming the agent when it is not reachable', async () => {
    const port = await getFreePort();
    const url = `http://127.0.0.1:${port}`;
    const unreachable = await buildGateway({
      overrides: {
        reasoningAgent: { client: new A2AClient({ url: `${url}/a2a`, token: TOKEN }), url },
      },
    });
    try {
      const response = await post(unreachable, {
        stream: true,
        messages: [{ role: 'user', content: '6 * 7?' }],
      });
      expect(response.status).toBe(503);
      expect(response.body.error.message).toBe(
        `The reasoning agent is not reachable (${url}); start the fleet with \`pnpm fleet up\` or set REASONING_AGENT_URL.`,
      );
    } finally {
      await unreachable.close();
    }
  });

  it('answers 503 when the gateway has no internal token to call the agent with', async () => {
    const tokenless = await buildGateway();
    try {
      const response = await post(tokenless, { messages: [{ role: 'user', content: '6 * 7?' }] });
      expect(response.status).toBe(503);
      expect(response.body.error.message).toMatch(/^Reasoning needs FLEET_INTERNAL_TOKEN/);
    } finally {
      await tokenless.close();
    }
  });

  it('still sends requests with tools through passthrough', async () => {
    const response = await post(gateway, {
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    });
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
  });
});
