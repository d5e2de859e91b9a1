import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import {
  dataPart,
  findData,
  orchestrateRequestSchema,
  partsText,
  RESULT_ARTIFACT_NAME,
  textPart,
  type RunResult,
} from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import {
  buildAgentCard,
  createA2AHandler,
  InMemoryTaskStore,
  type AgentContext,
  type AgentEvent,
} from '@fleet/a2a/server';
import { a2aRouter } from '@fleet/a2a/server/express';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { readText } from '../test-support/read-text';
import { sseFrames } from '../test-support/sse-frames';

const TOKEN = 'internal-token-0123456789';

const plan = {
  nodes: [{ id: 'n1', agent: 'web', task: 'search', dependsOn: [] }],
  rationale: 'one step',
  confidence: 0.9,
};
const runResult: RunResult = {
  sessionId: 'sess-1',
  plan,
  nodes: [{ id: 'n1', agent: 'web', state: 'completed', durationMs: 5, attempts: 1 }],
  citations: [{ title: 'Example', url: 'https://example.com' }],
  failedNodes: [],
  composer: 'offline',
};

const approvalRequired = {
  type: 'approval-required',
  approvalId: 'ap-1',
  kind: 'node',
  nodeId: 'n1',
  agent: 'mail',
  action: 'send-mail',
  summary: 'Send a mail to bob@example.com',
  preview: 'To: bob@example.com',
  risk: 'high',
  expiresAt: '2099-01-01T00:00:00.000Z',
} as const;
const approvalEnd = {
  type: 'approval-end',
  approvalId: 'ap-1',
  status: 'approved',
  instructions: 'copy Alice',
  mode: 'enhance',
} as const;

/**
 * The orchestrator's side of the contract (the progress and result shapes of
 * `@fleet/a2a`'s conventions), as a small A2A agent: the gateway's translation is what is under
 * test here; the real orchestrator is exercised end to end in e2e/.
 */
function orchestratorDouble(received: unknown[]) {
  return async function* execute(context: AgentContext): AsyncGenerator<AgentEvent> {
    await Promise.resolve();
    const input = findData(context.message.parts, orchestrateRequestSchema);
    received.push({ text: partsText(context.message.parts), input: input?.fleet });
    if (partsText(context.message.parts).includes('explode')) {
      yield {
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message: 'Planning…',
        metadata: { sessionId: 'sess-2' },
      };
      yield { type: 'status', state: 'TASK_STATE_FAILED', message: 'The planner is unreachable.' };
      return;
    }
    yield {
      type: 'status',
      state: 'TASK_STATE_WORKING',
      metadata: { sessionId: 'sess-1' },
      message: [
        textPart('Run sess-1 started.'),
        dataPart({ progress: { type: 'run-start', sessionId: 'sess-1' } }),
      ],
    };
    if (partsText(context.message.parts).includes('mail')) {
      // The run waits for a person here: the A2A task stays WORKING, the stream goes quiet.
      yield {
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message: [
          textPart('Waiting for approval: send a mail to bob@example.com.'),
          dataPart({ progress: approvalRequired }),
        ],
      };
      yield {
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message: [
          textPart('Approved, with instructions: copy Alice.'),
          dataPart({ progress: approvalEnd }),
        ],
      };
    }
    yield {
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: [
        textPart('Plan: 1 step (web).'),
        dataPart({ progress: { type: 'plan-end', plan, source: 'heuristic' } }),
      ],
    };
    yield {
      type: 'artifact',
      artifact: {
        name: RESULT_ARTIFACT_NAME,
        parts: [textPart('The answer [1].'), dataPart(runResult)],
      },
    };
  };
}

describe('orchestration through the gateway', () => {
  let orchestrator: http.Server;
  let gateway: TestGateway;
  const received: unknown[] = [];

  beforeAll(async () => {
    const app = express();
    orchestrator = http.createServer(app);
    await new Promise<void>((resolve) => orchestrator.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(orchestrator.address() as AddressInfo).port}`;
    const card = buildAgentCard({
      name: 'orchestrator',
      description: 'd',
      version: '0',
      url,
      skills: [],
    });
    app.use(
      a2aRouter({
        handler: createA2AHandler({
          card,
          execute: orchestratorDouble(received),
          store: new InMemoryTaskStore(),
        }),
        internalToken: TOKEN,
      }),
    );
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: { orchestratorClient: new A2AClient({ url: `${url}/a2a`, token: TOKEN }) },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await new Promise((resolve) => orchestrator.close(resolve));
  });

  it('streams progress as reasoning_content with fleet objects, then the answer', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({
        model: 'fleet-orchestration',
        stream: true,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'earlier question' },
          { role: 'assistant', content: 'earlier answer' },
          { role: 'user', content: 'Find news about A2A' },
        ],
      })
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    expect(response.headers['x-session-id']).toBe('sess-1');
    expect(response.headers['x-routing-mode']).toBe('orchestration');
    const frames = (response.body as string)
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '));
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames
      .slice(0, -1)
      .map((frame) => JSON.parse(frame.slice(6)) as Record<string, any>);
    expect(chunks[0]?.['choices'][0].delta).toEqual({
      role: 'assistant',
      reasoning_content: 'Run sess-1 started.\n',
    });
    expect(chunks[0]?.['fleet']).toEqual({ sessionId: 'sess-1', type: 'run-start' });
    expect(chunks[1]?.['fleet']).toMatchObject({ type: 'plan-end', source: 'heuristic', plan });
    expect(chunks[2]?.['choices'][0].delta).toEqual({ content: 'The answer [1].' });
    expect(chunks[2]?.['fleet']).toEqual({ type: 'run-result', ...runResult });
    expect(chunks.at(-1)?.['choices'][0].finish_reason).toBe('stop');
    expect(received.at(-1)).toEqual({
      text: 'Find news about A2A',
      input: {
        tenant: 'acme',
        history: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'earlier question' },
          { role: 'assistant', content: 'earlier answer' },
        ],
        planApproval: 'none',
      },
    });
  });

  it('passes approval-required and approval-end on as reasoning lines and fleet objects', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', stream: true, messages: [{ role: 'user', content: 'mail Bob' }] })
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    const { chunks, done } = sseFrames(response.body as string);
    expect(done).toBe(true);
    expect(chunks[1]?.choices[0]?.delta).toEqual({
      reasoning_content: 'Waiting for approval: send a mail to bob@example.com.\n',
    });
    expect(chunks[1]?.fleet).toEqual({ sessionId: 'sess-1', ...approvalRequired });
    expect(chunks[2]?.choices[0]?.delta).toEqual({
      reasoning_content: 'Approved, with instructions: copy Alice.\n',
    });
    expect(chunks[2]?.fleet).toEqual({ sessionId: 'sess-1', ...approvalEnd });

    const unary = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', messages: [{ role: 'user', content: 'mail Bob' }] });
    expect(unary.body.choices[0].message.reasoning_content).toContain(
      'Waiting for approval: send a mail to bob@example.com.\nApproved, with instructions: copy Alice.\n',
    );
  });

  it('asks for plan approval with X-Plan-Approval: required (any case)', async () => {
    for (const [header, expected] of [
      ['required', 'required'],
      [' REQUIRED ', 'required'],
      ['None', 'none'],
    ] as const) {
      const response = await request(gateway.app)
        .post('/v1/chat/completions')
        .auth(TEST_KEY, { type: 'bearer' })
        .set('x-routing-mode', 'orchestration')
        .set('x-plan-approval', header)
        .send({ model: 'm', messages: [{ role: 'user', content: 'Find news' }] });
      expect(response.status).toBe(200);
      expect(received.at(-1)).toMatchObject({ input: { planApproval: expected } });
    }
  });

  it('answers 400 naming the allowed values for any other X-Plan-Approval', async () => {
    const before = received.length;
    for (const mode of ['orchestration', 'passthrough']) {
      const response = await request(gateway.app)
        .post('/v1/chat/completions')
        .auth(TEST_KEY, { type: 'bearer' })
        .set('x-routing-mode', mode)
        .set('x-plan-approval', 'maybe')
        .send({ model: 'm', messages: [{ role: 'user', content: 'Find news' }] });
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        message: "Unknown X-Plan-Approval 'maybe'. Allowed values: required, none.",
        type: 'invalid_request_error',
        param: 'X-Plan-Approval',
        code: 'bad_request',
      });
    }
    expect(received).toHaveLength(before);
  });

  it('forwards X-Low-Confidence (any case), and leaves the choice to the orchestrator without it', async () => {
    for (const [header, expected] of [
      ['ask', 'ask'],
      [' Approve ', 'approve'],
      ['RUN', 'run'],
    ] as const) {
      const response = await request(gateway.app)
        .post('/v1/chat/completions')
        .auth(TEST_KEY, { type: 'bearer' })
        .set('x-routing-mode', 'orchestration')
        .set('x-low-confidence', header)
        .send({ model: 'm', messages: [{ role: 'user', content: 'Find news' }] });
      expect(response.status).toBe(200);
      expect(received.at(-1)).toMatchObject({ input: { lowConfidence: expected } });
    }
    await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', messages: [{ role: 'user', content: 'Find news' }] })
      .expect(200);
    expect((received.at(-1) as { input: object }).input).not.toHaveProperty('lowConfidence');
  });

  it('answers 400 naming the allowed values for any other X-Low-Confidence', async () => {
    const before = received.length;
    for (const path of ['/v1/chat/completions', '/v1/responses']) {
      const response = await request(gateway.app)
        .post(path)
        .auth(TEST_KEY, { type: 'bearer' })
        .set('x-routing-mode', 'orchestration')
        .set('x-low-confidence', 'maybe')
        .send(
          path === '/v1/responses'
            ? { model: 'm', input: 'Find news' }
            : { model: 'm', messages: [{ role: 'user', content: 'Find news' }] },
        );
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        message: "Unknown X-Low-Confidence 'maybe'. Allowed values: run, approve, ask.",
        type: 'invalid_request_error',
        param: 'X-Low-Confidence',
        code: 'bad_request',
      });
    }
    expect(received).toHaveLength(before);
  });

  it('answers in one chat.completion when not streaming, with the same fleet object', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', messages: [{ role: 'user', content: 'Find news' }] });
    expect(response.status).toBe(200);
    expect(response.headers['x-session-id']).toBe('sess-1');
    expect(response.body.object).toBe('chat.completion');
    expect(response.body.choices[0].message).toEqual({
      role: 'assistant',
      content: 'The answer [1].',
      reasoning_content: 'Run sess-1 started.\nPlan: 1 step (web).\n',
    });
    expect(response.body.fleet).toEqual(runResult);
  });

  it('turns a failed run into an error the OpenAI SDK raises', async () => {
    const unary = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', messages: [{ role: 'user', content: 'explode' }] });
    expect(unary.status).toBe(502);
    expect(unary.body.error.message).toContain('The planner is unreachable.');

    const streamed = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', stream: true, messages: [{ role: 'user', content: 'explode' }] })
      .buffer(true)
      .parse(readText);
    expect(streamed.status).toBe(200);
    expect(streamed.body as string).not.toContain('[DONE]');
    expect((streamed.body as string).trimEnd()).toMatch(
      /event: error\ndata: .*The planner is unreachable/,
    );
  });

  it('answers 503 with a hint when the orchestrator is not reachable', async () => {
    const offline = await buildGateway({
      upstream: 'offline',
      overrides: {
        orchestratorClient: new A2AClient({
          url: 'http://127.0.0.1:9/a2a',
          token: TOKEN,
          maxRetries: 0,
        }),
      },
    });
    const response = await request(offline.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'orchestration')
      .send({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(503);
    expect(response.body.error.message).toContain('pnpm fleet up');
    await offline.close();
  });
});
