import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createRecordingTracer, startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import {
  createCitationRenumberer,
  renumberCitations,
  streamAnswerWithSources,
  type StreamedAnswer,
} from './answer-with-sources';

/** Every way of cutting `text` into two and three pieces. */
function splits(text: string): string[][] {
  const out: string[][] = [];
  for (let first = 0; first <= text.length; first++) {
    out.push([text.slice(0, first), text.slice(first)]);
    for (let second = first; second <= text.length; second += 3) {
      out.push([text.slice(0, first), text.slice(first, second), text.slice(second)]);
    }
  }
  return out;
}

describe('createCitationRenumberer', () => {
  const texts = [
    'B [3]. A [1, 3]. X [9]. Y [2,7].',
    'Fact [9]. Other [2][1] and [1 , 2] end [3',
    'No markers at all, [not one], [ 1] and a[2]',
  ];

  it.each(texts)('gives what renumberCitations gives however %p is cut', (text) => {
    for (const trimRemoved of [true, false]) {
      const whole = renumberCitations({ text, sourceCount: 3, order: 'first-cited', trimRemoved });
      for (const pieces of splits(text)) {
        const renumberer = createCitationRenumberer({ sourceCount: 3, trimRemoved });
        const out = pieces.map((piece) => renumberer.push(piece)).join('') + renumberer.end();
        expect({ pieces, out, cited: renumberer.cited }).toEqual({
          pieces,
          out: whole.text,
          cited: whole.cited,
        });
      }
    }
  });

  it('holds back only an unfinished marker', () => {
    const renumberer = createCitationRenumberer({ sourceCount: 3, trimRemoved: true });
    expect(renumberer.push('B [3')).toBe('B');
    expect(renumberer.push(']. A [1')).toBe(' [1]. A');
    expect(renumberer.push(', 9].')).toBe(' [2].');
    expect(renumberer.end()).toBe('');
    expect(renumberer.cited).toEqual([3, 1]);
  });
});

describe('streamAnswerWithSources', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(() => llm.close());

  async function collect(
    tracer?: ReturnType<typeof createRecordingTracer>['tracer'],
  ): Promise<{ pieces: string[]; times: number[]; answer: StreamedAnswer }> {
    const stream = streamAnswerWithSources({
      client,
      model: 'answer-model',
      instructions: 'Cite the numbered sources.',
      question: 'When did it ship?',
      sources: [
        { heading: 'Notes', text: 'Planning.' },
        { heading: 'Blog', text: 'Shipped in May.' },
        { heading: 'Wiki', text: 'Released to all.' },
      ],
      spanName: 'test.answer',
      trimRemoved: true,
      tracer,
    });
    const pieces: string[] = [];
    const times: number[] = [];
    let next = await stream.next();
    while (next.done !== true) {
      pieces.push(next.value);
      times.push(Date.now());
      next = await stream.next();
    }
    return { pieces, times, answer: next.value };
  }

  it('yields the answer in pieces while the model writes, citations renumbered across cuts', async () => {
    // Cut every 3 characters: markers are split between deltas.
    llm.enqueue({
      content: '  It shipped in May [2] and went out [3][9] to all [2, 3].  ',
      chunkSize: 3,
      chunkDelayMs: 15,
    });
    const { tracer, spans } = createRecordingTracer();
    const started = Date.now();
    const { pieces, times, answer } = await collect(tracer);
    const finished = Date.now();
    expect(answer).toEqual({
      text: 'It shipped in May [1] and went out [2] to all [1][2].',
      cited: [2, 3],
    });
    expect(pieces.join('')).toBe(answer.text);
    expect(pieces.length).toBeGreaterThan(5);
    // The first piece came long before the model had finished.
    expect((times[0] ?? finished) - started).toBeLessThan((finished - started) / 2);
    const body = llm.requests.at(-1)?.body as {
      stream: boolean;
      stream_options: unknown;
      temperature: number;
    };
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(body.temperature).toBe(0.1);
    const span = spans.find((each) => each.name === 'test.answer');
    expect(span?.ended).toBe(true);
    expect(span?.attributes).toMatchObject({
      'openinference.span.kind': 'LLM',
      'input.value': 'When did it ship?',
      'output.value': answer.text,
      'llm.model_name': 'answer-model',
      'llm.token_count.completion': expect.any(Number),
      'llm.token_count.total': expect.any(Number),
    });
  });

  it('answers without token counts when the server sends no usage', async () => {
    llm.enqueue({ content: 'Shipped [2].', usage: false });
    const { tracer, spans } = createRecordingTracer();
    const { answer } = await collect(tracer);
    expect(answer.text).toBe('Shipped [1].');
    const attributes = spans.find((each) => each.name === 'test.answer')?.attributes ?? {};
    expect(attributes['llm.token_count.total']).toBeUndefined();
    expect(attributes['output.value']).toBe('Shipped [1].');
  });

  it('fails on an empty answer without yielding anything', async () => {
    llm.enqueue({ content: '   ' });
    const pieces: string[] = [];
    await expect(
      (async () => {
        const { pieces: got } = await collect();
        pieces.push(...got);
      })(),
    ).rejects.toThrow('the model returned an empty answer');
    expect(pieces).toEqual([]);
  });

  it('fails with the typed error when the stream breaks', async () => {
    llm.enqueue({
      content: 'Shipped in May [2] for sure.',
      chunkSize: 4,
      streamError: { afterChunks: 3 },
    });
    const { tracer, spans } = createRecordingTracer();
    await expect(collect(tracer)).rejects.toThrow();
    expect(spans.find((each) => each.name === 'test.answer')?.status).toMatchObject({ code: 2 });
  });
});
