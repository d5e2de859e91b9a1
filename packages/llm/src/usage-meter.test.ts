import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { trace } from '@opentelemetry/api';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { completeChat } from './complete-chat';
import { streamChat } from './stream-chat';
import { createUsageMeter, emptyUsage, recordUsage } from './usage-meter';

// No tracer provider is registered: a span that records nothing.
const span = trace.getTracer('usage-meter-test').startSpan('llm');

describe('createUsageMeter', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(() => llm.close());

  const complete = () =>
    completeChat({ client, model: 'm', messages: [{ role: 'user', content: 'Hi' }], span });

  it('counts every completeChat call made inside run, with the usage the upstream reported', async () => {
    llm.enqueue(
      { content: 'one', usage: { prompt_tokens: 10, completion_tokens: 2 } },
      { content: 'two', usage: { prompt_tokens: 20, completion_tokens: 3 } },
    );
    const meter = createUsageMeter();
    await meter.run(async () => {
      await complete();
      await complete();
    });
    expect(meter.usage()).toEqual({
      promptTokens: 30,
      completionTokens: 5,
      totalTokens: 35,
      calls: 2,
      unknownCalls: 0,
    });
  });

  it('counts a call whose usage the upstream left out as unknown, never as zero', async () => {
    llm.enqueue({ content: 'no usage', usage: false });
    const meter = createUsageMeter();
    await meter.run(complete);
    expect(meter.usage()).toEqual({ ...emptyUsage(), unknownCalls: 1 });
  });

  it('counts calls in every meter around them, and none outside', async () => {
    llm.enqueue(
      { content: 'inner', usage: { prompt_tokens: 1, completion_tokens: 1 } },
      { content: 'outside', usage: { prompt_tokens: 50, completion_tokens: 5 } },
    );
    const outer = createUsageMeter();
    const inner = await outer.run(async () => {
      const nested = createUsageMeter();
      await nested.run(complete);
      return nested;
    });
    await complete();
    expect(inner.usage()).toMatchObject({ totalTokens: 2, calls: 1 });
    expect(outer.usage()).toMatchObject({ totalTokens: 2, calls: 1 });
  });

  it('keeps concurrent runs apart', async () => {
    const first = createUsageMeter();
    const second = createUsageMeter();
    await Promise.all([
      first.run(async () => {
        await Promise.resolve();
        recordUsage({ promptTokens: 1, completionTokens: 0, totalTokens: 1 });
      }),
      second.run(async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        recordUsage({ promptTokens: 7, completionTokens: 0, totalTokens: 7 });
      }),
    ]);
    expect(first.usage().totalTokens).toBe(1);
    expect(second.usage().totalTokens).toBe(7);
  });

  it('counts a streamed call when its stream ends, and one its consumer left as unknown', async () => {
    llm.enqueue(
      { content: 'a b c', usage: { prompt_tokens: 4, completion_tokens: 3 } },
      { content: 'd e f g', usage: { prompt_tokens: 9, completion_tokens: 4 } },
    );
    const meter = createUsageMeter();
    await meter.run(async () => {
      const whole = streamChat({
        client,
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        span,
      });
      for await (const delta of whole) expect(typeof delta).toBe('string');
      const left = streamChat({
        client,
        model: 'm',
        messages: [{ role: 'user', content: 'y' }],
        span,
      });
      await left.next();
      await left.return(undefined as never);
    });
    expect(meter.usage()).toEqual({
      promptTokens: 4,
      completionTokens: 3,
      totalTokens: 7,
      calls: 1,
      unknownCalls: 1,
    });
  });
});
