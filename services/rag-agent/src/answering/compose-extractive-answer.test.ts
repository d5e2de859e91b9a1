import { describe, expect, it } from '@jest/globals';
import type { Retrieval, RetrievedChunk } from '../retrieval';
import { composeExtractiveAnswer } from './compose-extractive-answer';
import { groupSources, keepCitedSources } from './group-sources';

function chunk(
  overrides: Partial<RetrievedChunk> & Pick<RetrievedChunk, 'chunkId' | 'text'>,
): RetrievedChunk {
  return {
    documentId: 'doc-1',
    filename: 'handbook.md',
    docType: 'md',
    section: 'Handbook > Leave',
    score: 2 / 61,
    ...overrides,
  };
}

function retrieval(chunks: RetrievedChunk[], overrides: Partial<Retrieval> = {}): Retrieval {
  return {
    query: 'q',
    chunks,
    filters: { requested: {}, mentions: [], applied: false },
    candidates: chunks.length,
    reranked: false,
    confidence: 0.8,
    documents: 2,
    ...overrides,
  };
}

const leave = chunk({
  chunkId: '1',
  text: 'Section: Handbook > Leave\n\nEmployees get 28 days of paid vacation. The office has plants.',
  metadata: { bodyOffset: 27 },
});
const parental = chunk({
  chunkId: '2',
  section: 'Handbook > Parental leave',
  text: 'Parental leave lasts 18 weeks [3] at full pay.',
});
const pricing = chunk({
  chunkId: '3',
  documentId: 'doc-2',
  filename: 'pricing.csv',
  docType: 'csv',
  section: '',
  text: '| Plan | Price |\n| --- | --- |\n| Team | 12 EUR |\n| Enterprise | 29 EUR |',
});

describe('composeExtractiveAnswer', () => {
  it('quotes the best sentences under their heading with [n] markers, cited sources only', () => {
    const answer = composeExtractiveAnswer({
      question: 'How many vacation days do employees get?',
      retrieval: retrieval([leave, parental, pricing]),
    });
    expect(answer.text).toBe(
      'From the documents (1 source):\n- Leave: Employees get 28 days of paid vacation [1].',
    );
    expect(answer.sources.map((source) => source.title)).toEqual([
      'handbook.md — Handbook > Leave',
    ]);
    expect(answer.sources[0]?.snippet).toBe(
      'Employees get 28 days of paid vacation. The office has plants.',
    );
    expect(answer.chunks.map((entry) => entry.source)).toEqual([1, undefined, undefined]);
    expect(answer.answeredBy).toBe('extractive');
  });

  it('turns table rows into sentences, strips the document’s own bracket numbers and renumbers', () => {
    const answer = composeExtractiveAnswer({
      question: 'What does the Enterprise plan cost, and how long is parental leave?',
      retrieval: retrieval([leave, parental, pricing]),
    });
    expect(answer.text).toContain('- Plan: Enterprise; Price: 29 EUR [2].');
    // The heading adds nothing the sentence does not say, so it is left out.
    expect(answer.text).toContain('- Parental leave lasts 18 weeks at full pay [1].');
    expect(answer.sources.map((source) => source.filename)).toEqual(['handbook.md', 'pricing.csv']);
  });

  it('says when nothing matches, quoting the best source’s opening', () => {
    const answer = composeExtractiveAnswer({
      question: 'Who won the football cup?',
      retrieval: retrieval([leave, pricing], { confidence: 0.2 }),
    });
    expect(answer.text).toBe(
      'The documents may not answer this directly; the closest passages say:\n- Leave: Employees get 28 days of paid vacation [1].',
    );
  });

  it('answers without sources when nothing was found, and leads with a filter note', () => {
    expect(
      composeExtractiveAnswer({ question: 'x', retrieval: retrieval([], { documents: 0 }) }).text,
    ).toBe('There are no documents in this library yet, so there is nothing to answer from.');
    const answer = composeExtractiveAnswer({
      question: 'How many vacation days?',
      retrieval: retrieval([leave], {
        filters: {
          requested: { docTypes: ['pdf'] },
          mentions: ['the PDF'],
          applied: false,
          note: 'No PDF.',
        },
      }),
    });
    expect(answer.text).toMatch(/^No PDF\.\nFrom the documents/);
  });
});

describe('groupSources', () => {
  it('makes one source per document section, numbered by its best chunk', () => {
    const second = chunk({ chunkId: '4', text: 'More about leave.' });
    const { sources, chunks } = groupSources([parental, leave, second, pricing]);
    expect(sources.map((source) => source.title)).toEqual([
      'handbook.md — Handbook > Parental leave',
      'handbook.md — Handbook > Leave',
      'pricing.csv',
    ]);
    expect(chunks.map((entry) => entry.source)).toEqual([1, 2, 2, 3]);
  });

  it('names the page of PDF sources', () => {
    const { sources } = groupSources([
      chunk({
        chunkId: '9',
        filename: 'sla.pdf',
        docType: 'pdf',
        page: 2,
        section: 'Credits',
        text: 'x',
      }),
    ]);
    expect(sources[0]).toMatchObject({ title: 'sla.pdf, p. 2 — Credits', page: 2 });
  });
});

describe('keepCitedSources', () => {
  it('keeps the cited sources, renumbers the markers and drops markers that point at nothing', () => {
    const { sources, chunks } = groupSources([leave, parental, pricing]);
    const kept = keepCitedSources({
      text: 'A [3]. B [1, 3]. C [4] and [0].',
      sources,
      chunks,
    });
    expect(kept.text).toBe('A [2]. B [1][2]. C and.');
    expect(kept.sources.map((source) => source.filename)).toEqual(['handbook.md', 'pricing.csv']);
    expect(kept.chunks.map((entry) => entry.source)).toEqual([1, undefined, 2]);
  });
});
