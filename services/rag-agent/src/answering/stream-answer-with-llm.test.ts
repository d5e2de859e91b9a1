import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import type { Retrieval, RetrievedChunk } from '../retrieval';
import type { Answer } from './answer';
import { createAnswerer } from './create-answerer';
import { answerWithLlm } from './answer-with-llm';

function chunk(id: string, [filename, section]: [string, string], text: string): RetrievedChunk {
  return {
    chunkId: id,
    documentId: `doc-${filename}`,
    filename,
    docType: 'md',
    section,
    text,
    score: 1,
  };
}

const retrieval: Retrieval = {
  query: 'leave',
  chunks: [
    chunk('c1', ['handbook.md', 'Vacation'], 'Employees get 28 days of paid vacation.'),
    chunk('c2', ['handbook.md', 'Parental leave'], 'Parents get 18 weeks of parental leave.'),
    chunk('c3', ['policy.md', 'Expenses'], 'Expenses above 500 EUR need approval.'),
    chunk('c4', ['handbook.md', 'Vacation'], 'Unused days carry over until March.'),
  ],
  filters: {
    requested: {},
    mentions: [],
    applied: false,
    note: 'No document matched the filters.',
  },
  candidates: 4,
  reranked: false,
  confidence: 0.8,
  documents: 2,
  searchMode: 'hybrid',
};

async function drain(
  stream: AsyncGenerator<string, Answer, undefined>,
): Promise<{ pieces: string[]; answer: Answer }> {
  const pieces: string[] = [];
  let next = await stream.next();
  while (next.done !== true) {
    pieces.push(next.value);
    next = await stream.next();
  }
  return { pieces, answer: next.value };
}

describe('Answerer.stream', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(() => llm.close());

  it('streams the note then the answer, numbering sources in first-cited order', async () => {
    const content = 'Parents get 18 weeks [2]. Vacation is 28 days [1, 2]; nothing on pets [7].';
    llm.enqueue({ content, chunkSize: 2 });
    const answerer = createAnswerer({ llm: { client, model: 'm' } });
    const { pieces, answer } = await drain(answerer.stream({ question: 'Leave?', retrieval }));
    expect(pieces[0]).toBe('No document matched the filters.\n\n');
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join('')).toBe(answer.text);
    expect(answer.text).toBe(
      'No document matched the filters.\n\nParents get 18 weeks [1]. Vacation is 28 days [2][1]; nothing on pets.',
    );
    expect(answer.answeredBy).toBe('llm');
    // [1] is the section the answer cites first, and the chunks point at the same numbers.
    expect(answer.sources.map((source) => source.title)).toEqual([
      'handbook.md — Parental leave',
      'handbook.md — Vacation',
    ]);
    expect(answer.chunks.map((each) => [each.chunkId, each.source])).toEqual([
      ['c1', 2],
      ['c2', 1],
      ['c3', undefined],
      ['c4', 2],
    ]);
  });

  it('cites the same sources as the answer that is not streamed, only numbered differently', async () => {
    const content = 'Expenses need approval [3]. Vacation is 28 days [1].';
    llm.enqueue({ content, chunkSize: 4 }, { content });
    const answerer = createAnswerer({ llm: { client, model: 'm' } });
    const { answer: streamed } = await drain(answerer.stream({ question: 'Q?', retrieval }));
    const whole = await answerWithLlm({ client, model: 'm', question: 'Q?', retrieval });
    expect(new Set(streamed.sources)).toEqual(new Set(whole.sources));
    expect(streamed.text).toContain('Expenses need approval [1]. Vacation is 28 days [2].');
    expect(whole.text).toContain('Expenses need approval [2]. Vacation is 28 days [1].');
  });

  it('falls back to the extractive answer when the stream breaks part-way', async () => {
    llm.enqueue({
      content: 'Parents get 18 weeks [2] of leave.',
      chunkSize: 3,
      streamError: { afterChunks: 4 },
    });
    const answerer = createAnswerer({ llm: { client, model: 'm' } });
    const { answer } = await drain(answerer.stream({ question: 'parental leave', retrieval }));
    expect(answer.answeredBy).toBe('extractive');
    expect(answer.llmError).toBeDefined();
  });
});
