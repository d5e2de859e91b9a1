import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type RunResult } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import OpenAI from 'openai';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  progressStatus,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { serve, type Served } from '../test-support/serve';

/**
 * The gateway's idle limit on the orchestrator's and the reasoning agent's streams in this test
 * (60 s in production, GATEWAY_AGENT_IDLE_TIMEOUT_MS), and the agents' keep-alive interval (15 s).
 */
const IDLE_MS = 400;
const KEEP_ALIVE_MS = 50;
/** A person deciding, or a model thinking: twice the idle limit, keep-alives flowing. */
const WAIT_MS = 2 * IDLE_MS;

const SESSION = 'sess-slow';
const runResult: RunResult = {
  sessionId: SESSION,
  plan: { nodes: [], rationale: 'pay the invoice', confidence: 1 },
  nodes: [],
  citations: [],
  failedNodes: [],
  composer: 'offline',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function answer(text: string, data: unknown): AgentEvent {
  return {
    type: 'artifact',
    artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart(text), dataPart(data)] },
  };
}

/**
 * An orchestrated run whose step waits for a person's approval for {@link WAIT_MS}, the
 * orchestrator sending only keep-alives meanwhile, then answers. With `silent` in the request it
 * is an orchestrator that stops sending anything, keep-alives included.
 */
async function* approvalRun(): AsyncGenerator<AgentEvent> {
  yield progressStatus(
    `Run ${SESSION} started.`,
    { type: 'run-start', sessionId: SESSION },
    SESSION,
  );
  yield progressStatus(
    'Waiting for approval: pay invoice INV-7.',
    {
      type: 'approval-required',
      approvalId: 'ap-1',
      kind: 'node',
      nodeId: 'n1',
      agent: 'ledger',
      action: 'pay',
      summary: 'Pay invoice INV-7',
      preview: 'INV-7: 40 EUR',
      risk: 'high',
      expiresAt: new Date(Date.now() + 120_000).toISOString(),
    },
    SESSION,
  );
  await sleep(WAIT_MS);
  yield progressStatus(
    'Approved.',
    { type: 'approval-end', approvalId: 'ap-1', status: 'approved' },
    SESSION,
  );
  yield answer('Paid INV-7.', runResult);
  yield { type: 'status', state: 'TASK_STATE_COMPLETED' };
}

/** A reasoning task whose one model call takes {@link WAIT_MS}. */
async function* slowModelTask(): AsyncGenerator<AgentEvent> {
  yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'Thinking.' };
  await sleep(WAIT_MS);
  yield answer('6 × 7 = 42.', {
    stopReason: 'answered',
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  });
  yield { type: 'status', state: 'TASK_STATE_COMPLETED', message: 'Answered.' };
}

describe('agent streams that wait for a person or a model', () => {
  let orchestrator: OrchestratorDouble;
  let silentOrchestrator: OrchestratorDouble;
  let reasoning: OrchestratorDouble;
  let gateway: TestGateway;
  let silentGateway: TestGateway;
  let served: Served;
  let silentServed: Served;

  beforeAll(async () => {
    const timing = { keepAliveMs: KEEP_ALIVE_MS, clientTimeoutMs: IDLE_MS };
    orchestrator = await startOrchestratorDouble(approvalRun, timing);
    reasoning = await startOrchestratorDouble(slowModelTask, timing);
    // No keep-alives at all: the idle limit is what ends the wait.
    silentOrchestrator = await startOrchestratorDouble(approvalRun, {
      keepAliveMs: 0,
      clientTimeoutMs: IDLE_MS,
    });
    gateway = await buildGateway({
      overrides: {
        orchestratorClient: orchestrator.client,
        reasoningAgent: { client: reasoning.client, url: 'http://reasoning.test' },
      },
    });
    silentGateway = await buildGateway({
      upstream: 'offline',
      overrides: { orchestratorClient: silentOrchestrator.client },
    });
    served = await serve(gateway.app);
    silentServed = await serve(silentGateway.app);
  });
  afterAll(async () => {
    await served.close();
    await silentServed.close();
    await gateway.close();
    await silentGateway.close();
    await orchestrator.close();
    await silentOrchestrator.close();
    await reasoning.close();
  });

  const sdk = (url: string, mode: string) =>
    new OpenAI({
      apiKey: TEST_KEY,
      baseURL: `${url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-routing-mode': mode },
    });
  const ask = {
    model: 'fleet-orchestration',
    messages: [{ role: 'user' as const, content: 'Pay INV-7' }],
  };

  it('streams the answer of a run approved after twice the idle limit, keep-alives flowing', async () => {
    const stream = await sdk(served.url, 'orchestration').chat.completions.create({
      ...ask,
      stream: true,
    });
    let content = '';
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    expect(content).toBe('Paid INV-7.');
  });

  it('answers the same run without streaming once it is approved', async () => {
    const completion = await sdk(served.url, 'orchestration').chat.completions.create(ask);
    expect(completion.choices[0]?.message.content).toBe('Paid INV-7.');
  });

  it('streams the Responses answer of the same run', async () => {
    const stream = await sdk(served.url, 'orchestration').responses.create({
      model: 'fleet-orchestration',
      input: 'Pay INV-7',
      stream: true,
    });
    let done: string | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.done') done = event.text;
    }
    expect(done).toBe('Paid INV-7.');
  });

  it('answers a reasoning request whose model call takes twice the idle limit', async () => {
    const client = sdk(served.url, 'reasoning');
    const completion = await client.chat.completions.create({
      model: 'fleet-reasoning',
      messages: [{ role: 'user', content: 'What is 6 × 7?' }],
    });
    expect(completion.choices[0]?.message.content).toBe('6 × 7 = 42.');
    const stream = await client.chat.completions.create({
      model: 'fleet-reasoning',
      messages: [{ role: 'user', content: 'What is 6 × 7?' }],
      stream: true,
    });
    let content = '';
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    expect(content).toBe('6 × 7 = 42.');
  });

  it('still ends a stream whose orchestrator sends nothing for the idle limit, with an error event', async () => {
    const stream = await sdk(silentServed.url, 'orchestration').chat.completions.create({
      ...ask,
      stream: true,
    });
    const read = async () => {
      for await (const _chunk of stream) {
        // Progress until the orchestrator falls silent.
      }
    };
    await expect(read()).rejects.toThrow(
      /The orchestrator went silent \(GATEWAY_AGENT_IDLE_TIMEOUT_MS\): No event, not even a keep-alive, arrived for 400 ms/,
    );
  });

  it('answers 504 without streaming when the orchestrator sends nothing for the idle limit', async () => {
    await expect(
      sdk(silentServed.url, 'orchestration').chat.completions.create(ask),
    ).rejects.toMatchObject({ status: 504 });
  });
});
