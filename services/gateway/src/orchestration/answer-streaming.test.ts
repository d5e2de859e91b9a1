import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import OpenAI from 'openai';
import request from 'supertest';
import { dataPart, partsText, RESULT_ARTIFACT_NAME, textPart, type RunResult } from '@fleet/a2a';
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
import { serve } from '../test-support/serve';
import { sseFrames } from '../test-support/sse-frames';

const TOKEN = 'internal-token-0123456789';

const plan = {
  nodes: [{ id: 'n1', agent: 'web', task: 'search', dependsOn: [] }],
  rationale: 'one step',
  confidence: 0.9,
};
const runResult: RunResult = {
  sessionId: 'sess-s',
  plan,
  nodes: [{ id: 'n1', agent: 'web', state: 'completed', durationMs: 5, attempts: 1 }],
  citations: [{ title: 'Example', url: 'https://example.com' }],
  failedNodes: [],
  composer: 'llm',
};
const PIECES = ['Paris is ', 'the capital ', 'of France [1].'];
const REST = '\n\nSources\n[1] Example — https://example.com';
const ANSWER = `${PIECES.join('')}${REST}`;
const READING = 'Reading https://example.com/paris';
const NODE_PROGRESS = {
  type: 'node-progress',
  nodeId: 'n1',
  agent: 'web',
  text: READING,
  stage: 'reading',
};

/**
 * A test that watches the answer arrive piece by piece sets `pieceGate` before it asks: the
 * orchestrator then writes the later pieces only once the client holds the first one (or after 5 s,
 * when a gateway that buffers has kept it), and notes when it wrote them.
 */
let pieceGate: { firstPieceRead: Promise<void>; laterPiecesAt?: number } | undefined;

/**
 * The orchestrator's side of the wire (docs/a2a.md, "The result artifact, streamed"): progress,
 * then the answer as chunks of one `result` artifact (`append: true`), the last
 * (`lastChunk: true`) with the whole text and the run result. Pauses between chunks so a test can see them arrive
 * one by one.
 */
async function* streamingOrchestrator(context: AgentContext): AsyncGenerator<AgentEvent> {
  await Promise.resolve();
  yield {
    type: 'status',
    state: 'TASK_STATE_WORKING',
    metadata: { sessionId: 'sess-s' },
    message: [
      textPart('Run sess-s started.'),
      dataPart({ progress: { type: 'run-start', sessionId: 'sess-s' } }),
    ],
  };
  if (partsText(context.message.parts).includes('step progress')) {
    // What a step's agent said it was doing, as the orchestrator relays it.
    yield {
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: [textPart(`Step n1 (web): ${READING}`), dataPart({ progress: NODE_PROGRESS })],
    };
  }
  const artifactId = `result-${context.taskId}`;
  for (const [index, piece] of PIECES.entries()) {
    yield {
      type: 'artifact',
      artifact: { artifactId, name: RESULT_ARTIFACT_NAME, parts: [textPart(piece)] },
      append: true,
    };
    if (index === 0 && pieceGate) {
      const waited = new AbortController();
      await Promise.race([
        pieceGate.firstPieceRead,
        delay(5000, undefined, { signal: waited.signal }).catch(() => undefined),
      ]);
      waited.abort();
      pieceGate.laterPiecesAt = Date.now();
    }
    await delay(100);
  }
  yield {
    type: 'status',
    state: 'TASK_STATE_WORKING',
    message: [textPart('Done.'), dataPart({ progress: { type: 'run-end', state: 'completed' } })],
  };
  // The orchestrator's last chunk replaces the pieces with the whole answer (agent-kit's
  // `resultEnd` shape); a last chunk that appends the rest is read the same way.
  const appendRest = partsText(context.message.parts).includes('append the rest');
  yield {
    type: 'artifact',
    artifact: {
      artifactId,
      name: RESULT_ARTIFACT_NAME,
      parts: [textPart(appendRest ? REST : ANSWER), dataPart(runResult)],
    },
    append: appendRest,
    lastChunk: true,
  };
  yield { type: 'status', state: 'TASK_STATE_COMPLETED', metadata: { sessionId: 'sess-s' } };
}

describe('orchestrated answers that stream', () => {
  let orchestrator: http.Server;
  let orchestratorClient: A2AClient;
  let gateway: TestGateway;

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
          execute: streamingOrchestrator,
          store: new InMemoryTaskStore(),
        }),
        internalToken: TOKEN,
      }),
    );
    orchestratorClient = new A2AClient({ url: `${url}/a2a`, token: TOKEN });
    gateway = await buildGateway({ upstream: 'offline', overrides: { orchestratorClient } });
  });
  afterAll(async () => {
    await gateway.close();
    await new Promise((resolve) => orchestrator.close(resolve));
  });

  it('turns result artifact chunks into content deltas as they arrive (openai SDK)', async () => {
    const served = await serve(gateway.app);
    try {
      const client = new OpenAI({
        apiKey: TEST_KEY,
        baseURL: `${served.url}/v1`,
        maxRetries: 0,
        defaultHeaders: { 'x-routing-mode': 'orchestration' },
      });
      let firstPieceRead = (): void => undefined;
      const gate: NonNullable<typeof pieceGate> = {
        firstPieceRead: new Promise<void>((resolve) => (firstPieceRead = resolve)),
      };
      pieceGate = gate;
      const stream = await client.chat.completions.create({
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: 'What is the capital of France?' }],
      });
      const deltas: { text: string; at: number }[] = [];
      let reasoning = '';
      let fleet: unknown;
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string };
        if (typeof delta?.reasoning_content === 'string') reasoning += delta.reasoning_content;
        if (typeof delta?.content === 'string' && delta.content !== '') {
          deltas.push({ text: delta.content, at: Date.now() });
          firstPieceRead();
        }
        const extra = (chunk as unknown as { fleet?: { type?: string } }).fleet;
        if (extra?.type === 'run-result') fleet = extra;
      }
      pieceGate = undefined;
      expect(deltas.map((delta) => delta.text)).toEqual([...PIECES, REST]);
      // The first piece reached the client before the orchestrator wrote the others.
      expect(gate.laterPiecesAt).toBeDefined();
      expect(deltas[0]?.at).toBeLessThanOrEqual(gate.laterPiecesAt ?? 0);
      expect(reasoning).toBe('Run sess-s started.\nDone.\n');
      expect(fleet).toEqual({ type: 'run-result', ...runResult });

      const whole = await client.chat.completions.create({
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: 'What is the capital of France?' }],
      });
      expect(whole.choices[0]?.message.content).toBe(ANSWER);
      expect((whole as unknown as { fleet: unknown }).fleet).toEqual(runResult);
    } finally {
      await served.close();
    }
  });

  it('passes a step’s own progress (node-progress) to an openai SDK stream as reasoning_content with its fleet event', async () => {
    const served = await serve(gateway.app);
    try {
      const client = new OpenAI({
        apiKey: TEST_KEY,
        baseURL: `${served.url}/v1`,
        maxRetries: 0,
        defaultHeaders: { 'x-routing-mode': 'orchestration' },
      });
      const stream = await client.chat.completions.create({
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: 'Paris, with step progress' }],
      });
      const said: { reasoning: string; fleet: unknown }[] = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as { reasoning_content?: string };
        const extra = (chunk as unknown as { fleet?: { type?: string } }).fleet;
        if (extra?.type === 'node-progress') {
          said.push({ reasoning: delta?.reasoning_content ?? '', fleet: extra });
        }
      }
      expect(said).toEqual([
        {
          reasoning: `Step n1 (web): ${READING}\n`,
          fleet: { sessionId: 'sess-s', ...NODE_PROGRESS },
        },
      ]);
    } finally {
      await served.close();
    }
  });

  it.each(['replaces the pieces', 'append the rest'])(
    'sends the run result once, on the last chunk, and ends with stop (last chunk: %s)',
    async (content) => {
      const response = await request(gateway.app)
        .post('/v1/chat/completions')
        .auth(TEST_KEY, { type: 'bearer' })
        .set('x-routing-mode', 'orchestration')
        .send({ model: 'm', stream: true, messages: [{ role: 'user', content }] })
        .buffer(true)
        .parse(readText);
      const { chunks, done } = sseFrames(response.body as string);
      expect(done).toBe(true);
      const answers = chunks.filter((chunk) => chunk.choices[0]?.delta.content !== undefined);
      expect(answers.map((chunk) => chunk.choices[0]?.delta.content)).toEqual([...PIECES, REST]);
      expect(answers.map((chunk) => (chunk.fleet as { type?: string } | undefined)?.type)).toEqual([
        undefined,
        undefined,
        undefined,
        'run-result',
      ]);
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');

      const whole = await request(gateway.app)
        .post('/v1/chat/completions')
        .auth(TEST_KEY, { type: 'bearer' })
        .set('x-routing-mode', 'orchestration')
        .send({ model: 'm', messages: [{ role: 'user', content }] });
      expect(whole.body.choices[0].message.content).toBe(ANSWER);
    },
  );
});
