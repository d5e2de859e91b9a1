/**
 * The reasoning path end to end, on a running fleet (gateway, orchestrator, planner and the real
 * reasoning agent as their own processes, real Redis): the official `openai` SDK sends a question
 * through the gateway with `X-Routing-Mode: reasoning`; the reasoning agent thinks with a scripted
 * upstream LLM, calls its calculator, and the SDK receives the steps as `reasoning_content` and the
 * answer as content, streamed and not.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI, { type APIError } from 'openai';
import {
  startOtlpCapture,
  startScriptedOpenAI,
  type OtlpCapture,
  type RespondFunction,
  type ScriptedOpenAI,
} from '@fleet/testing';
import { startFleet, type RunningFleet } from './support/start-fleet';

const QUESTION = 'What is (17 + 25) * 3?';
const EXPECTED_STEPS = ['Calling calculate("(17 + 25) * 3")', 'Result: 126'];

const EXPECTED_ANSWER = 'First the sum, then times three.\n\n(17 + 25) × 3 = 126.';

/** The reasoning agent's model: asks for the calculator, then answers from its result. */
const calculatorModel: RespondFunction = (_request, context) => {
  if (!context.toolNames.includes('calculate')) return {};
  const last = context.request.messages.at(-1);
  if (last?.role === 'tool') {
    return {
      content: `(17 + 25) × 3 = ${typeof last.content === 'string' ? last.content : '?'}.`,
      usage: { prompt_tokens: 180, completion_tokens: 12 },
    };
  }
  return {
    content: 'First the sum, then times three.',
    toolCalls: [{ name: 'calculate', arguments: { expression: '(17 + 25) * 3' } }],
    usage: { prompt_tokens: 150, completion_tokens: 25 },
  };
};

/** `reasoning_content` is not in the SDK's types; the SDK passes it through. */
interface ReasoningDelta {
  content?: string | null;
  reasoning_content?: string;
}

describe('reasoning route with the openai SDK', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({ respond: calculatorModel });
    const upstream = { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' };
    fleet = await startFleet({
      agents: [],
      agentServices: { 'reasoning-agent': { ...upstream, REASONING_MAX_ITERATIONS: '4' } },
      serviceEnv: { gateway: upstream },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  it('streams the steps as reasoning_content, then the answer and usage', async () => {
    const { data: stream, response } = await client.chat.completions
      .create(
        {
          model: 'fleet-reasoning',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: QUESTION }],
        },
        { headers: { 'X-Routing-Mode': 'reasoning' } },
      )
      .withResponse();
    expect(response.headers.get('x-routing-mode')).toBe('reasoning');
    let reasoning = '';
    let content = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    const order: string[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as ReasoningDelta | undefined;
      if (delta?.reasoning_content) {
        reasoning += delta.reasoning_content;
        order.push('reasoning');
      }
      if (delta?.content) {
        content += delta.content;
        order.push('content');
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(reasoning).toBe(`${EXPECTED_STEPS.join('\n')}\n`);
    // The model's note before its tool call is answer text, streamed as it was written.
    expect(content).toBe(EXPECTED_ANSWER);
    expect(order.indexOf('reasoning')).toBeGreaterThan(0);
    expect(order[0]).toBe('content');
    expect(order.at(-1)).toBe('content');
    expect(usage).toEqual({ prompt_tokens: 330, completion_tokens: 37, total_tokens: 367 });
    // The agent's model saw the tool's result before answering.
    const toolTurn = llm.requests.find((entry) =>
      (entry.body as { messages: { role: string }[] }).messages.some(
        (message) => message.role === 'tool',
      ),
    );
    expect(toolTurn).toBeDefined();
  });

  it('answers without streaming with message.reasoning_content and content', async () => {
    const completion = await client.chat.completions.create(
      { model: 'fleet-reasoning', messages: [{ role: 'user', content: QUESTION }] },
      { headers: { 'X-Routing-Mode': 'reasoning' } },
    );
    const message = completion.choices[0]?.message as
      (OpenAI.ChatCompletionMessage & { reasoning_content?: string }) | undefined;
    expect(message?.content).toBe(EXPECTED_ANSWER);
    expect(message?.reasoning_content).toBe(`${EXPECTED_STEPS.join('\n')}\n`);
    expect(completion.usage).toEqual({
      prompt_tokens: 330,
      completion_tokens: 37,
      total_tokens: 367,
    });
  });
});

describe('reasoning route offline', () => {
  let fleet: RunningFleet;

  beforeAll(async () => {
    fleet = await startFleet({ agents: [], agentServices: { 'reasoning-agent': {} } });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  it('answers 503 saying how to configure an upstream, as the SDK reports it', async () => {
    const client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
    const error = await client.chat.completions
      .create(
        { model: 'fleet-reasoning', messages: [{ role: 'user', content: QUESTION }] },
        { headers: { 'X-Routing-Mode': 'reasoning' } },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as APIError).status).toBe(503);
    expect((error as APIError).message).toMatch(
      /X-Routing-Mode: reasoning needs an upstream LLM\. .*OPENAI_BASE_URL/,
    );
  });
});

describe('reasoning route tracing', () => {
  let otlp: OtlpCapture;
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;

  beforeAll(async () => {
    otlp = await startOtlpCapture();
    llm = await startScriptedOpenAI({ respond: calculatorModel });
    fleet = await startFleet({
      agents: [],
      agentServices: { 'reasoning-agent': {} },
      env: {
        OPENAI_BASE_URL: llm.baseURL,
        OPENAI_API_KEY: 'sk-e2e-upstream',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    await otlp?.close();
  }, 60_000);

  it('is one trace: the gateway, the AGENT span, an LLM span per call and a TOOL span', async () => {
    const client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
    await client.chat.completions.create(
      { model: 'fleet-reasoning', messages: [{ role: 'user', content: QUESTION }] },
      { headers: { 'X-Routing-Mode': 'reasoning' } },
    );
    // Graceful stops flush every exporter (sdk.shutdown on SIGTERM).
    await fleet.stop();

    const root = otlp.spans.find(
      (span) => span.serviceName === 'gateway' && span.parentSpanId === undefined,
    );
    expect(root?.name).toBe('POST /v1/chat/completions (reasoning)');
    const trace = otlp.spans.filter((span) => span.traceId === root?.traceId);
    const kinds = (kind: string) =>
      trace.filter(
        (span) =>
          span.serviceName === 'reasoning-agent' &&
          span.attributes['openinference.span.kind'] === kind,
      );
    expect(kinds('AGENT')).toHaveLength(1);
    expect(kinds('LLM').map((span) => span.name)).toEqual(['reasoning.llm', 'reasoning.llm']);
    expect(kinds('TOOL')).toEqual([
      expect.objectContaining({
        name: 'reasoning.tool calculate',
        attributes: expect.objectContaining({ 'tool.name': 'calculate', 'output.value': '126' }),
      }),
    ]);
    const ids = new Set(trace.map((span) => span.spanId));
    for (const span of trace) {
      if (span.parentSpanId !== undefined) expect(ids.has(span.parentSpanId)).toBe(true);
    }
  });
});
