import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import OpenAI from 'openai';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type RunResult } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  progressStatus,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { readText } from '../test-support/read-text';
import { seedSession } from '../test-support/seed-session';
import { serve, type Served } from '../test-support/serve';
import type { ClassifyRouteInput } from '../routing';

const runResult: RunResult = {
  sessionId: 'sess-r',
  plan: {
    nodes: [{ id: 'n1', agent: 'web', task: 'search', dependsOn: [] }],
    rationale: 'one step',
    confidence: 0.9,
  },
  nodes: [{ id: 'n1', agent: 'web', state: 'completed', durationMs: 5, attempts: 1 }],
  citations: [{ title: 'Example', url: 'https://example.com' }, { title: 'No URL' }],
  failedNodes: [],
  composer: 'llm',
  usage: {
    promptTokens: 120,
    completionTokens: 30,
    totalTokens: 150,
    calls: 2,
    unknownCalls: 0,
    complete: true,
    steps: [],
  },
};

function resultArtifact(text: string, append: boolean, data?: unknown): AgentEvent {
  const parts = data === undefined ? [textPart(text)] : [textPart(text), dataPart(data)];
  return {
    type: 'artifact',
    artifact: { artifactId: 'result-1', name: RESULT_ARTIFACT_NAME, parts },
    append,
    lastChunk: data !== undefined,
  };
}

/** The SSE events of a body: `[event name, parsed data]`. */
function responseEvents(text: string): [string, Record<string, any>][] {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => [
      /^event: (.*)$/m.exec(frame)?.[1] ?? '',
      JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null') as Record<string, any>,
    ]);
}

describe('POST /v1/responses (agent routes)', () => {
  let orchestrator: OrchestratorDouble;
  let reasoning: OrchestratorDouble;
  let gateway: TestGateway;
  let served: Served;
  const classified: ClassifyRouteInput['messages'][] = [];

  beforeAll(async () => {
    orchestrator = await startOrchestratorDouble(async function* execute(_context, call) {
      await Promise.resolve();
      if (call.text.includes('explode')) {
        yield progressStatus(
          'Run sess-x started.',
          { type: 'run-start', sessionId: 'sess-x' },
          'sess-x',
        );
        yield {
          type: 'status',
          state: 'TASK_STATE_FAILED',
          message: 'The planner is unreachable.',
        };
        return;
      }
      yield progressStatus(
        'Run sess-r started.',
        { type: 'run-start', sessionId: 'sess-r' },
        'sess-r',
      );
      yield progressStatus(
        'Plan: 1 step (web).',
        { type: 'plan-end', plan: runResult.plan, source: 'heuristic' },
        'sess-r',
      );
      yield resultArtifact('See ', true);
      yield resultArtifact('Example [1].', true);
      yield resultArtifact('See Example [1].', false, runResult);
    });
    reasoning = await startOrchestratorDouble(async function* execute() {
      await Promise.resolve();
      yield {
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message: [
          textPart('Thinking: multiply.'),
          dataPart({ reasoningStep: { type: 'thought', iteration: 1, text: 'multiply' } }),
        ],
      };
      yield resultArtifact('6 × 7 = 42.', false, {
        stopReason: 'answered',
        usage: { promptTokens: 200, completionTokens: 30, totalTokens: 230 },
      });
      yield { type: 'status', state: 'TASK_STATE_COMPLETED', message: 'Answered.' };
    });
    gateway = await buildGateway({
      overrides: {
        orchestratorClient: orchestrator.client,
        reasoningAgent: { client: reasoning.client, url: 'http://reasoning.test' },
        autoRouting: {
          classifier: {
            classify: ({ messages }) => {
              classified.push(messages);
              const text = JSON.stringify(messages);
              return Promise.resolve({
                route: text.includes('news') ? 'orchestration' : 'passthrough',
                reason: 'auto: scripted classifier',
                source: 'classifier',
                cached: false,
              });
            },
          },
          passthroughModel: 'upstream-model',
        },
      },
    });
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    await served.close();
    await gateway.close();
    await orchestrator.close();
    await reasoning.close();
  });

  function post(body: Record<string, unknown>, mode = 'orchestration') {
    return request(gateway.app)
      .post('/v1/responses')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', mode)
      .send({ model: 'fleet-orchestration', ...body });
  }

  it('answers with a response object: progress as reasoning, the answer as a message', async () => {
    const response = await post({ input: 'Find news about A2A' });
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('orchestration');
    expect(response.headers['x-session-id']).toBe('sess-r');
    const body = response.body as Record<string, any>;
    expect(body).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'fleet-orchestration',
    });
    expect(body['output'][0]).toMatchObject({
      type: 'reasoning',
      summary: [
        { type: 'summary_text', text: 'Run sess-r started.' },
        { type: 'summary_text', text: 'Plan: 1 step (web).' },
      ],
    });
    expect(body['output'][1]).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [
        {
          type: 'output_text',
          text: 'See Example [1].',
          annotations: [
            {
              type: 'url_citation',
              url: 'https://example.com',
              title: 'Example',
              start_index: 12,
              end_index: 15,
            },
          ],
        },
      ],
    });
    expect(body['usage']).toMatchObject({
      input_tokens: 120,
      output_tokens: 30,
      total_tokens: 150,
    });
    expect(body['fleet']).toMatchObject({ sessionId: 'sess-r', citations: runResult.citations });
  });

  it('streams the official event sequence, numbered, ending with response.completed', async () => {
    const response = await post({ input: 'Find news about A2A', stream: true })
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = responseEvents(response.body as string);
    expect(events.map(([name]) => name)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    for (const [name, data] of events) expect(data['type']).toBe(name);
    expect(events.map(([, data]) => data['sequence_number'])).toEqual(events.map((_, i) => i));
    expect(events[4]?.[1]).toMatchObject({
      delta: 'Run sess-r started.',
      fleet: { type: 'run-start' },
    });
    const completed = events.at(-1)?.[1]['response'] as Record<string, any>;
    expect(completed['usage']).toMatchObject({ input_tokens: 120, total_tokens: 150 });
    expect(completed['output'][1]['content'][0]['text']).toBe('See Example [1].');
    expect(completed['fleet']).toMatchObject({ type: 'run-result', sessionId: 'sess-r' });
  });

  it('is consumed by the openai SDK: responses.create and responses.stream', async () => {
    const client = new OpenAI({
      apiKey: TEST_KEY,
      baseURL: `${served.url}/v1`,
      defaultHeaders: { 'x-routing-mode': 'orchestration' },
    });
    const whole = await client.responses.create({ model: 'fleet-orchestration', input: 'news' });
    expect(whole.output_text).toBe('See Example [1].');
    const stream = client.responses.stream({ model: 'fleet-orchestration', input: 'news' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(deltas.join('')).toBe('See Example [1].');
    expect(final.output_text).toBe('See Example [1].');
    expect(final.usage?.total_tokens).toBe(150);
  });

  it('ends a failed streamed run with response.failed and an error event', async () => {
    const response = await post({ input: 'explode please', stream: true })
      .buffer(true)
      .parse(readText);
    const events = responseEvents(response.body as string);
    expect(events.at(-2)?.[0]).toBe('response.failed');
    expect(events.at(-2)?.[1]['response']).toMatchObject({
      status: 'failed',
      error: { message: expect.stringMatching(/planner/) },
    });
    expect(events.at(-1)?.[0]).toBe('error');
    expect(events.at(-1)?.[1]).toMatchObject({
      type: 'error',
      message: expect.stringMatching(/planner/),
    });
  });

  it('answers a failed run that is not streamed with the error status', async () => {
    const response = await post({ input: 'explode please' });
    expect(response.status).toBe(502);
    expect(response.body.error.message).toMatch(/planner/);
  });

  it('answers reasoning in the Responses shape, with the agent usage', async () => {
    const response = await post({ model: 'fleet-reasoning', input: 'What is 6 × 7?' }, 'reasoning');
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('reasoning');
    expect(response.body.output[0].summary[0].text).toBe('Thinking: multiply.');
    expect(response.body.output[1].content[0].text).toBe('6 × 7 = 42.');
    expect(response.body.usage).toMatchObject({
      input_tokens: 200,
      output_tokens: 30,
      total_tokens: 230,
    });
    const streamed = await post(
      { model: 'fleet-reasoning', input: 'What is 6 × 7?', stream: true },
      'reasoning',
    )
      .buffer(true)
      .parse(readText);
    const completed = responseEvents(streamed.body as string).at(-1);
    expect(completed?.[0]).toBe('response.completed');
    expect(completed?.[1]['response']['usage']).toMatchObject({ total_tokens: 230 });
  });

  it('routes by model name without the header, and sends instructions and items as messages', async () => {
    const response = await request(gateway.app)
      .post('/v1/responses')
      .auth(TEST_KEY, { type: 'bearer' })
      .send({
        model: 'fleet-orchestration',
        instructions: 'Be brief.',
        input: [
          { role: 'user', content: 'earlier question' },
          {
            type: 'message',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'earlier answer' }],
          },
          { role: 'user', content: [{ type: 'input_text', text: 'the question' }] },
        ],
      });
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-reason']).toBe('model fleet-orchestration');
    const call = orchestrator.calls.at(-1);
    expect(call?.text).toBe('the question');
    expect(call?.input?.history).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: 'earlier answer' },
    ]);
  });

  it('refuses previous_response_id and conversation on agent routes, naming X-Session-ID', async () => {
    const calls = orchestrator.calls.length;
    const previous = await post({ input: 'go on', previous_response_id: 'resp_1' });
    expect(previous.status).toBe(400);
    expect(previous.body.error.param).toBe('previous_response_id');
    expect(previous.body.error.message).toMatch(/X-Session-ID/);
    const conversation = await post({ input: 'go on', conversation: 'conv_1' });
    expect(conversation.status).toBe(400);
    expect(conversation.body.error.param).toBe('conversation');
    const tool = await post({
      input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }],
    });
    expect(tool.status).toBe(400);
    expect(tool.body.error.param).toBe('input[0]');
    const empty = await post({ input: [{ role: 'user', content: '  ' }] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.param).toBe('input');
    const missing = await post({ instructions: 'Be brief.' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('input');
    expect(orchestrator.calls.length).toBe(calls);
  });

  it('classifies the input text for auto, and swaps fleet-auto for the upstream model', async () => {
    const news = await post({ model: 'fleet-auto', input: 'Find news about A2A' }, 'auto');
    expect(news.headers['x-routing-mode']).toBe('orchestration');
    expect(news.body.object).toBe('response');
    expect(classified.at(-1)).toEqual([{ role: 'user', content: 'Find news about A2A' }]);
    gateway.llm!.requests.length = 0;
    const hello = await post(
      { model: 'fleet-auto', input: 'Hello', store: true, previous_response_id: 'resp_1' },
      'auto',
    );
    expect(hello.status).toBe(200);
    expect(hello.headers['x-routing-mode']).toBe('passthrough');
    expect(hello.headers['x-routing-reason']).toBe('auto: scripted classifier');
    expect(gateway.llm!.requests[0]?.body).toEqual({
      model: 'upstream-model',
      input: 'Hello',
      store: true,
      previous_response_id: 'resp_1',
    });
  });

  it('follows a session with X-Session-ID in the Responses shape', async () => {
    const session = await seedSession(gateway.sessions.store, {
      completedWith: 'The report went to Bob.',
    });
    const response = await request(gateway.app)
      .post('/v1/responses')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-session-id', session.id)
      .send({ model: 'fleet-orchestration', input: 'and then?' });
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('orchestration');
    expect(response.headers['x-session-id']).toBe(session.id);
    expect(response.body).toMatchObject({ object: 'response', status: 'completed' });
    expect(
      (response.body as { output: { content: { text: string }[] }[] }).output.at(-1)?.content[0]
        ?.text,
    ).toContain('The report went to Bob.');
  });
});
