import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { FleetError } from '@fleet/errors';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createRecordingTracer } from '@fleet/testing';
import { createReasoningTools } from '../tools';
import type { ReasoningEvent, ReasoningOutcome, ReasoningStep } from './reasoning-step';
import { LAST_STEP_NOTE, runReasoning, type RunReasoningOptions } from './run-reasoning';

interface RequestBody {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
  tool_choice?: string;
}

describe('runReasoning', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  const tools = createReasoningTools({ now: () => new Date('2026-07-01T12:00:00Z') });

  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });

  beforeEach(() => {
    llm.requests.length = 0;
  });

  afterAll(async () => {
    await llm.close();
  });

  async function run(
    options: Partial<RunReasoningOptions> = {},
  ): Promise<{ steps: ReasoningStep[]; outcome: ReasoningOutcome }> {
    const events: ReasoningEvent[] = [];
    for await (const event of runReasoning({
      client,
      model: 'reasoning-model',
      question: 'What is (17 + 25) * 3?',
      tools,
      maxIterations: 6,
      maxTokens: 16_000,
      ...options,
    })) {
      events.push(event);
    }
    const last = events.at(-1);
    if (last?.type !== 'end') throw new Error('the run did not end with an outcome');
    expect(events.filter((event) => event.type === 'end')).toHaveLength(1);
    return {
      steps: events.flatMap((event) => (event.type === 'step' ? [event.step] : [])),
      outcome: last.outcome,
    };
  }

  function body(index: number): RequestBody {
    return llm.requests[index]?.body as RequestBody;
  }

  it('thinks, calls a tool, feeds its result back and answers', async () => {
    llm.enqueue(
      {
        content: 'I will multiply the sum by three.',
        toolCalls: [
          { id: 'call_1', name: 'calculate', arguments: { expression: '(17 + 25) * 3' } },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      },
      { content: 'The result is 126.', usage: { prompt_tokens: 150, completion_tokens: 10 } },
    );
    const { steps, outcome } = await run();
    // The note before the tool call went out as answer text; the record keeps it as a thought.
    expect(outcome.steps[0]).toEqual({
      type: 'thought',
      iteration: 1,
      text: 'I will multiply the sum by three.',
    });
    expect(steps).toEqual([
      {
        type: 'tool-call',
        iteration: 1,
        callId: 'call_1',
        name: 'calculate',
        arguments: '{"expression":"(17 + 25) * 3"}',
      },
      {
        type: 'tool-result',
        iteration: 1,
        callId: 'call_1',
        name: 'calculate',
        ok: true,
        output: '126',
      },
    ]);
    expect(outcome).toMatchObject({
      // The note before the tool call is part of the answer, as in any chat client.
      answer: 'I will multiply the sum by three.\n\nThe result is 126.',
      stopReason: 'answered',
      iterations: 2,
      usage: { promptTokens: 250, completionTokens: 30, totalTokens: 280 },
      model: 'reasoning-model',
    });
    expect(outcome.steps.slice(1)).toEqual(steps);
    expect(body(0).tools?.map((tool) => tool.function.name)).toEqual([
      'calculate',
      'current_time',
      'date_diff',
    ]);
    expect(body(0).tool_choice).toBe('auto');
    expect(body(1).messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: '126',
    });
  });

  it('hands a tool error back to the model, which corrects itself', async () => {
    llm.enqueue(
      { toolCalls: [{ id: 'bad', name: 'calculate', arguments: { expression: '10 / (5 - 5)' } }] },
      { toolCalls: [{ id: 'nope', name: 'search_web', arguments: {} }] },
      { toolCalls: [{ id: 'good', name: 'calculate', arguments: { expression: '10 / 5' } }] },
      { content: 'It is 2.' },
    );
    const { steps, outcome } = await run();
    const results = steps.filter((step) => step.type === 'tool-result');
    expect(results).toEqual([
      expect.objectContaining({
        callId: 'bad',
        ok: false,
        output: expect.stringMatching(/Division by zero/),
      }),
      expect.objectContaining({
        callId: 'nope',
        ok: false,
        output: 'There is no tool named "search_web".',
      }),
      expect.objectContaining({ callId: 'good', ok: true, output: '2' }),
    ]);
    expect(body(1).messages.at(-1)?.content).toMatch(/^Error: Division by zero/);
    expect(outcome).toMatchObject({ answer: 'It is 2.', stopReason: 'answered', iterations: 4 });
  });

  it('runs several tool calls of one turn in order', async () => {
    llm.enqueue(
      {
        toolCalls: [
          { id: 'a', name: 'current_time', arguments: { timezone: 'Asia/Tokyo' } },
          { id: 'b', name: 'date_diff', arguments: { start: '2026-07-01', end: '2026-12-31' } },
        ],
      },
      { content: 'It is 21:00 in Tokyo and 183 days remain.' },
    );
    const { steps } = await run({ question: 'Time in Tokyo and days to new year eve?' });
    expect(steps.map((step) => `${step.type}:${'name' in step ? step.name : ''}`)).toEqual([
      'tool-call:current_time',
      'tool-result:current_time',
      'tool-call:date_diff',
      'tool-result:date_diff',
    ]);
    expect(steps[1]).toMatchObject({
      ok: true,
      output: expect.stringContaining('"local":"2026-07-01 21:00:00"'),
    });
    expect(steps[3]).toMatchObject({ ok: true, output: expect.stringContaining('"days":183') });
  });

  it('streams the answer live from a call that could still call a tool', async () => {
    llm.enqueue({ content: 'It is 4, the sum of two and two.', chunkCount: 8, chunkDelayMs: 15 });
    const started = Date.now();
    const deltas: { text: string; at: number }[] = [];
    let outcome: ReasoningOutcome | undefined;
    for await (const event of runReasoning({
      client,
      model: 'reasoning-model',
      question: 'What is 2 + 2?',
      tools,
      maxIterations: 6,
      maxTokens: 16_000,
    })) {
      if (event.type === 'answer-delta')
        deltas.push({ text: event.text, at: Date.now() - started });
      if (event.type === 'end') outcome = event.outcome;
    }
    // The call offered tools, yet a short answer went out in pieces while the model wrote it.
    expect(body(0).tools?.length).toBeGreaterThan(0);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((delta) => delta.text).join('')).toBe(outcome?.answer);
    expect(outcome?.answer).toBe('It is 4, the sum of two and two.');
    expect(deltas.at(-1)!.at - deltas[0]!.at).toBeGreaterThan(60);
  });

  it('streams a note before a tool call, then the answer after a blank line', async () => {
    llm.enqueue(
      {
        content: 'Let me compute that. ',
        chunkCount: 3,
        toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '2 + 2' } }],
      },
      { content: ' It is 4.', chunkCount: 3 },
    );
    const deltas: string[] = [];
    let outcome: ReasoningOutcome | undefined;
    for await (const event of runReasoning({
      client,
      model: 'reasoning-model',
      question: 'What is 2 + 2?',
      tools,
      maxIterations: 6,
      maxTokens: 16_000,
    })) {
      if (event.type === 'answer-delta') deltas.push(event.text);
      if (event.type === 'end') outcome = event.outcome;
    }
    expect(outcome?.answer).toBe('Let me compute that.\n\nIt is 4.');
    expect(deltas.join('')).toBe(outcome?.answer);
    expect(outcome?.steps.map((step) => step.type)).toEqual([
      'thought',
      'tool-call',
      'tool-result',
    ]);
  });

  it('shows an upstream reasoning_content as a thought', async () => {
    llm.enqueue({ reasoningContent: 'Simple: 2 + 2 is 4.', content: '4' });
    const { steps, outcome } = await run({ question: 'What is 2 + 2?' });
    expect(steps).toEqual([{ type: 'thought', iteration: 1, text: 'Simple: 2 + 2 is 4.' }]);
    expect(outcome.answer).toBe('4');
  });

  it('passes the conversation and context before the question', async () => {
    llm.enqueue({ content: 'Yes.' });
    await run({
      question: 'And doubled?',
      history: [
        { role: 'user', content: 'What is 21?' },
        { role: 'assistant', content: '21.' },
      ],
      context: ['calc (reasoning-agent): 21'],
    });
    expect(body(0).messages.map((message) => [message.role, message.content])).toEqual([
      ['system', expect.stringContaining('step by step')],
      ['user', 'What is 21?'],
      ['assistant', '21.'],
      ['user', 'And doubled?\n\nContext from earlier steps:\n- calc (reasoning-agent): 21'],
    ]);
  });

  describe('budgets', () => {
    it('asks for an answer without tools on the last allowed call', async () => {
      llm.enqueue(
        { toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '2 * 21' } }] },
        { content: 'Probably 42.' },
      );
      const { outcome } = await run({ maxIterations: 2 });
      expect(body(1).tool_choice).toBe('none');
      expect(body(1).messages.at(-1)).toEqual({ role: 'user', content: LAST_STEP_NOTE });
      expect(outcome).toMatchObject({
        answer: 'Probably 42.',
        stopReason: 'answered',
        iterations: 2,
      });
    });

    it('answers with what it has and says so when the iterations run out', async () => {
      llm.enqueue(
        {
          content: 'First the sum.',
          toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '17 + 25' } }],
        },
        // The model ignores tool_choice: none and still asks for a tool.
        { toolCalls: [{ id: 'c2', name: 'calculate', arguments: { expression: '42 * 3' } }] },
      );
      const { steps, outcome } = await run({ maxIterations: 2 });
      expect(llm.requests).toHaveLength(2);
      expect(outcome.stopReason).toBe('iteration-budget');
      expect(outcome.iterations).toBe(2);
      expect(outcome.answer).toBe(
        [
          'First the sum.',
          '',
          'The reasoning budget ran out (2 model calls) before I reached a final answer.',
          '',
          'What I found so far:',
          '- calculate("17 + 25") → 42',
        ].join('\n'),
      );
      // The refused second call never ran.
      expect(steps.filter((step) => step.type === 'tool-call')).toHaveLength(1);
    });

    it('stops calling the model once the token budget is spent', async () => {
      llm.enqueue({
        toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '6 * 7' } }],
        usage: { prompt_tokens: 900, completion_tokens: 200 },
      });
      const { outcome } = await run({ maxTokens: 1000 });
      expect(llm.requests).toHaveLength(1);
      expect(outcome).toMatchObject({
        stopReason: 'token-budget',
        iterations: 1,
        usage: { totalTokens: 1100 },
      });
      expect(outcome.answer).toMatch(/^The reasoning budget ran out \(1000 tokens\)/);
      expect(outcome.answer).toContain('- calculate("6 * 7") → 42');
    });

    it('estimates usage when the upstream reports none, so the budget still holds', async () => {
      llm.enqueue({
        toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '1 + 1' } }],
        usage: false,
      });
      const { outcome } = await run({ maxTokens: 10 });
      expect(outcome.stopReason).toBe('token-budget');
      expect(outcome.usage.estimated).toBe(true);
      expect(outcome.usage.totalTokens).toBeGreaterThan(10);
      expect(llm.requests).toHaveLength(1);
    });
  });

  it('fails with a typed error when the upstream fails', async () => {
    llm.enqueue({ error: { status: 500, message: 'model crashed' } });
    const error: unknown = await run().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(FleetError.isInstance(error)).toBe(true);
    expect((error as FleetError).message).toMatch(/The upstream LLM answered 500: .*model crashed/);
  });

  it('records an LLM span per model call and a TOOL span per tool call', async () => {
    const { tracer, spans } = createRecordingTracer();
    llm.enqueue(
      { toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '2 ^ 5' } }] },
      { content: '32' },
    );
    await run({ tracer });
    expect(spans.map((span) => [span.name, span.attributes['openinference.span.kind']])).toEqual([
      ['reasoning.llm', 'LLM'],
      ['reasoning.tool calculate', 'TOOL'],
      ['reasoning.llm', 'LLM'],
    ]);
    expect(spans[1]?.attributes).toMatchObject({
      'tool.name': 'calculate',
      'input.value': '{"expression":"2 ^ 5"}',
      'output.value': '32',
    });
    expect(spans[2]?.attributes['llm.model_name']).toBe('reasoning-model');
    expect(spans.every((span) => span.ended)).toBe(true);
  });
});
