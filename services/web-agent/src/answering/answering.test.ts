import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createRecordingTracer } from '@fleet/testing';
import { composeExtractiveAnswer, splitQuestion } from './compose-extractive-answer';
import { createWebAnswerer } from './create-answerer';
import { keepCitedSources } from './keep-cited-sources';
import type { SourceMaterial, WebSource } from './web-source';

function source(name: string): WebSource {
  return { title: name, url: `https://${name}.test/`, snippet: `${name} snippet`, fetched: false };
}

const MATERIALS: SourceMaterial[] = [
  {
    source: source('alpha'),
    text: 'Unrelated intro text about cookies and settings. Node.js 22 was released on 24 April 2024 by the Node.js project.',
  },
  { source: source('beta'), text: 'A page about gardening and tomatoes in the summer months.' },
  {
    source: source('gamma'),
    text: 'The Node.js 22 release enables require of ES modules and ships V8 12.4.',
  },
];

describe('keepCitedSources', () => {
  it('renumbers markers in order of first citation and drops markers without a source', () => {
    const [a, b] = [source('a'), source('b')];
    expect(keepCitedSources({ text: 'B [2]. A [1, 2]. X [9].', sources: [a, b] })).toEqual({
      text: 'B [1]. A [2][1]. X.',
      sources: [b, a],
    });
  });
});

describe('composeExtractiveAnswer', () => {
  it('quotes the best sentence of each matching source as prose, cited, only cited sources kept', () => {
    const answer = composeExtractiveAnswer({
      question: 'When was Node.js 22 released?',
      query: 'Node.js 22 release',
      materials: MATERIALS,
    });
    expect(answer.answeredBy).toBe('extractive');
    expect(answer.text).toBe(
      'Node.js 22 was released on 24 April 2024 by the Node.js project [1]. The Node.js 22 release enables require of ES modules and ships V8 12.4 [2].',
    );
    expect(answer.sources.map((entry) => entry.title)).toEqual(['alpha', 'gamma']);
  });

  it('quotes the top snippets when no sentence matches, and says when there is nothing', () => {
    const answer = composeExtractiveAnswer({
      question: 'zzz qqq',
      query: 'zzz',
      materials: MATERIALS,
    });
    expect(answer.sources).toHaveLength(3);
    expect(answer.text).toBe(
      'The pages found may not answer this directly; they open with: alpha snippet [1]. beta snippet [2]. gamma snippet [3].',
    );
    const empty = composeExtractiveAnswer({ question: 'x', query: 'x', materials: [] });
    expect(empty).toEqual({
      text: 'The web search for "x" found nothing to answer with.',
      sources: [],
      answeredBy: 'extractive',
    });
  });
});

describe('composeExtractiveAnswer with a question of several parts', () => {
  const page = (name: string, text: string): SourceMaterial => ({
    source: { ...source(name), snippet: '' },
    text,
  });
  const PAGES: SourceMaterial[] = [
    page(
      'kestrel-launch',
      'Kestrel 9 is a two-stage rocket built by Aurora Launch Systems in Lisbon. The Kestrel 9 rocket first reached orbit on 3 February 2031 from the Azores spaceport.',
    ),
    page(
      'kestrel-payload',
      'The first flight carried a 1.2 tonne technology demonstrator. Aurora plans twelve flights in 2032.',
    ),
    page('falcon-news', 'The Falcon 12 rocket is built by Meridian Space and first flew in 2029.'),
  ];

  it('answers each part with its own sentence and citation, in the order asked', () => {
    const answer = composeExtractiveAnswer({
      question: 'When did the Kestrel 9 rocket first reach orbit and who built it?',
      query: 'Kestrel 9 rocket',
      materials: PAGES,
    });
    expect(answer.text).toBe(
      'The Kestrel 9 rocket first reached orbit on 3 February 2031 from the Azores spaceport [1]. Kestrel 9 is a two-stage rocket built by Aurora Launch Systems in Lisbon [1].',
    );
    expect(answer.sources.map((entry) => entry.title)).toEqual(['kestrel-launch']);
  });

  it('says which part the pages do not answer', () => {
    const answer = composeExtractiveAnswer({
      question:
        'How heavy was the technology demonstrator on the first flight? What fuel does it burn?',
      query: 'Kestrel 9 payload',
      materials: PAGES,
    });
    expect(answer.text).toMatch(
      /^The first flight carried a 1\.2 tonne technology demonstrator \[1\]\./,
    );
    expect(answer.text).toMatch(
      /I found nothing on the pages that answers “What fuel does it burn\?”$/,
    );
    expect(answer.sources.map((entry) => entry.title)).toEqual(['kestrel-payload']);
  });
});

describe('splitQuestion', () => {
  it('splits sub-questions and clauses that open a new question, and ignores URLs', () => {
    expect(splitQuestion('When was Node.js 22 released and what does it change?')).toEqual([
      'When was Node.js 22 released',
      'what does it change',
    ]);
    expect(splitQuestion('Who makes it; when is it due')).toEqual([
      'Who makes it',
      'when is it due',
    ]);
    expect(splitQuestion('When was Node.js 22 released? See https://nodejs.org/en/blog')).toEqual([
      'When was Node.js 22 released and See',
    ]);
    expect(splitQuestion('What do schools and universities pay?')).toEqual([
      'What do schools and universities pay',
    ]);
  });
});

describe('createWebAnswerer', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({});
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });

  afterAll(async () => {
    await llm.close();
  });

  it('asks the model with numbered sources and keeps only what it cites, in an LLM span', async () => {
    llm.enqueue({ content: 'Node.js 22 shipped on 24 April 2024 [3][1], not [7].' });
    const { tracer, spans } = createRecordingTracer();
    const answer = await createWebAnswerer({ llm: { client, model: 'web-model' }, tracer }).answer({
      question: 'When was Node.js 22 released?',
      query: 'Node.js 22',
      materials: MATERIALS,
      context: [{ label: 'docs (rag-agent)', summary: 'Our services run Node 20.' }],
    });
    expect(answer).toEqual({
      text: 'Node.js 22 shipped on 24 April 2024 [1][2], not.',
      sources: [MATERIALS[2]?.source, MATERIALS[0]?.source],
      answeredBy: 'llm',
    });
    const body = llm.requests.at(-1)?.body as {
      model: string;
      messages: { role: string; content: string }[];
    };
    expect(body.model).toBe('web-model');
    const prompt = body.messages.find((message) => message.role === 'user')?.content ?? '';
    expect(prompt).toContain('[1] alpha (https://alpha.test/)');
    expect(prompt).toContain('[3] gamma (https://gamma.test/)');
    expect(prompt).toContain('- docs (rag-agent): Our services run Node 20.');
    const span = spans.find((entry) => entry.name === 'web.answer');
    expect(span?.attributes).toMatchObject({
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'web-model',
      'output.value': answer.text,
    });
  });

  it('tells the model the current date and time, streamed or not', async () => {
    const clock = () => new Date('2026-11-28T01:40:00Z');
    const answerer = createWebAnswerer({ llm: { client, model: 'web-model' }, clock });
    const input = {
      question: 'What is the latest Node.js?',
      query: 'Node.js',
      materials: MATERIALS,
    };
    llm.enqueue({ content: 'Node.js 22 [1].' });
    await answerer.answer(input);
    llm.enqueue({ content: 'Node.js 22 [1].' });
    const stream = answerer.stream(input);
    for (let next = await stream.next(); next.done !== true; next = await stream.next());
    for (const recorded of llm.requests.slice(-2)) {
      const body = recorded.body as { messages: { role: string; content: string }[] };
      expect(body.messages[0]?.role).toBe('system');
      expect(body.messages[0]?.content).toMatch(
        /^Current date and time: 2026-11-28 \(Saturday\), 01:40 UTC\.\nYou answer questions/,
      );
    }
  });

  it('falls back to the extractive answer when the model fails, saying why', async () => {
    llm.enqueue({ error: { status: 500, message: 'upstream exploded' } });
    const answer = await createWebAnswerer({ llm: { client, model: 'web-model' } }).answer({
      question: 'When was Node.js 22 released?',
      query: 'Node.js 22',
      materials: MATERIALS,
    });
    expect(answer.answeredBy).toBe('extractive');
    expect(answer.llmError).toBeDefined();
    expect(answer.text).toContain('[1]');
  });
});
