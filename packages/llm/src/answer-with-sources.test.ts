import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createRecordingTracer, startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import {
  answerWithSources,
  renderSourcesPrompt,
  renumberCitations,
  withExtractiveFallback,
} from './answer-with-sources';

describe('renumberCitations', () => {
  const text = 'B [3]. A [1, 3]. X [9]. Y [2,7].';

  it('numbers the cited sources in their own order and drops markers without a source', () => {
    expect(renumberCitations({ text, sourceCount: 3, order: 'source', trimRemoved: true })).toEqual(
      { text: 'B [3]. A [1][3]. X. Y [2].', cited: [1, 2, 3] },
    );
    expect(
      renumberCitations({ text: 'A [3].', sourceCount: 3, order: 'source', trimRemoved: true }),
    ).toEqual({ text: 'A [1].', cited: [3] });
  });

  it('numbers the cited sources in the order they are first cited', () => {
    expect(
      renumberCitations({ text, sourceCount: 3, order: 'first-cited', trimRemoved: false }),
    ).toEqual({ text: 'B [1]. A [2][1]. X . Y [3].', cited: [3, 1, 2] });
  });
});

describe('renderSourcesPrompt', () => {
  it('puts the question, the earlier steps and the numbered sources, cutting long texts', () => {
    const prompt = renderSourcesPrompt({
      question: 'When?',
      sources: [
        { heading: 'Notes', text: 'a'.repeat(13_000) },
        { heading: 'Blog (https://blog.test/)', text: 'Shipped in May.' },
      ],
      context: [{ label: 'plan', summary: 'b'.repeat(2_500) }],
    });
    expect(prompt).toBe(
      [
        'Question: When?',
        `Results of earlier steps (context, not sources):\n- plan: ${'b'.repeat(2_000)}`,
        `Sources:\n\n[1] Notes\n${'a'.repeat(12_000)}…\n\n[2] Blog (https://blog.test/)\nShipped in May.`,
      ].join('\n\n'),
    );
  });
});

describe('answerWithSources', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(() => llm.close());

  const ask = (tracer?: ReturnType<typeof createRecordingTracer>['tracer']) =>
    answerWithSources({
      client,
      model: 'answer-model',
      instructions: 'Cite the numbered sources.',
      question: 'When did it ship?',
      sources: [
        { heading: 'Notes', text: 'Planning.' },
        { heading: 'Blog', text: 'Shipped in May.' },
      ],
      spanName: 'test.answer',
      tracer,
      cite: (content) =>
        renumberCitations({ text: content, sourceCount: 2, order: 'source', trimRemoved: true }),
    });

  it('asks with the instructions and numbered sources, and cites in an LLM span', async () => {
    llm.enqueue({ content: '  It shipped in May [2].  ' });
    const { tracer, spans } = createRecordingTracer();
    await expect(ask(tracer)).resolves.toEqual({ text: 'It shipped in May [1].', cited: [2] });
    const body = llm.requests.at(-1)?.body as {
      model: string;
      temperature: number;
      messages: { role: string; content: string }[];
    };
    expect(body.model).toBe('answer-model');
    expect(body.temperature).toBe(0.1);
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Cite the numbered sources.' });
    expect(body.messages[1]?.content).toContain('[2] Blog\nShipped in May.');
    expect(spans.find((span) => span.name === 'test.answer')?.attributes).toMatchObject({
      'openinference.span.kind': 'LLM',
      'input.value': 'When did it ship?',
      'output.value': 'It shipped in May [1].',
    });
  });

  it('fails on an empty answer', async () => {
    llm.enqueue({ content: '   ' });
    await expect(ask()).rejects.toThrow('the model returned an empty answer');
  });
});

describe('withExtractiveFallback', () => {
  it('answers with the model when it can', async () => {
    const answer = await withExtractiveFallback({
      answer: () => Promise.resolve({ text: 'llm' }),
      extractive: () => ({ text: 'extractive' }),
    });
    expect(answer).toEqual({ text: 'llm' });
  });

  it('falls back to the extractive answer, saying why, after telling onFallback', async () => {
    const failures: unknown[] = [];
    const answer = await withExtractiveFallback({
      answer: () => Promise.reject(new Error('upstream exploded')),
      extractive: () => ({ text: 'extractive' }),
      onFallback: (error) => failures.push(error),
    });
    expect(answer).toEqual({ text: 'extractive', llmError: 'upstream exploded' });
    expect(failures).toEqual([new Error('upstream exploded')]);
  });

  it('rethrows when the request was aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      withExtractiveFallback({
        answer: () => Promise.reject(new Error('aborted')),
        extractive: () => ({ text: 'extractive' }),
        signal: controller.signal,
      }),
    ).rejects.toThrow('aborted');
  });
});
