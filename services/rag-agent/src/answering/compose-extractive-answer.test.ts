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
    searchMode: 'hybrid',
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
  it('quotes the best sentence as prose with its [n] marker, cited sources only', () => {
    const answer = composeExtractiveAnswer({
      question: 'How many vacation days do employees get?',
      retrieval: retrieval([leave, parental, pricing]),
    });
    expect(answer.text).toBe('Employees get 28 days of paid vacation [1].');
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
    // One part each, in the question's order, joined into one paragraph.
    expect(answer.text).toBe(
      'Plan: Enterprise; Price: 29 EUR [2]. Parental leave lasts 18 weeks at full pay [1].',
    );
    expect(answer.sources.map((source) => source.filename)).toEqual(['handbook.md', 'pricing.csv']);
  });

  it('says when nothing matches, quoting the best source’s opening', () => {
    const answer = composeExtractiveAnswer({
      question: 'Who won the football cup?',
      retrieval: retrieval([leave, pricing], { confidence: 0.2 }),
    });
    expect(answer.text).toBe(
      'The documents may not answer this directly; the closest passage says: Employees get 28 days of paid vacation [1].',
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
    expect(answer.text).toBe('No PDF.\nEmployees get 28 days of paid vacation [1].');
  });

  it('leads a sentence with its heading when the heading states a version or date it lacks', () => {
    const release = chunk({
      chunkId: '5',
      documentId: 'doc-3',
      filename: 'release-notes.html',
      docType: 'html',
      section: 'Release notes > Beacon 4.1 (4 November 2025)',
      text: 'SAML single sign-on for the Professional plan. Some gateways reconnect faster.',
    });
    const answer = composeExtractiveAnswer({
      question: 'Which release added SAML single sign-on?',
      retrieval: retrieval([release]),
    });
    expect(answer.text).toBe(
      'Under “Beacon 4.1 (4 November 2025)”, SAML single sign-on for the Professional plan [1].',
    );
  });
});

describe('composeExtractiveAnswer with a question of several parts', () => {
  const BRIEF = {
    documentId: 'doc-heron',
    filename: 'project-heron-brief.md',
    docType: 'md' as const,
  };
  const overview = chunk({
    ...BRIEF,
    chunkId: 'h1',
    section: 'Project Heron brief > Overview',
    text: 'Project Heron replaces the air-quality sensors in the Lisbon office with Beacon X1 units. The project runs from May to September 2026.',
  });
  const budget = chunk({
    ...BRIEF,
    chunkId: 'h2',
    section: 'Project Heron brief > Budget',
    text: 'The total budget for Project Heron is 1.2 million EUR, approved by the board in January 2026. Half of it is reserved for hardware; travel is not included.',
  });
  const ownership = chunk({
    ...BRIEF,
    chunkId: 'h3',
    section: 'Project Heron brief > Governance',
    text: 'Project Heron is owned by Maria Keller, head of Operations. She reports on progress to the steering committee every month.',
  });
  const osprey = chunk({
    chunkId: 'o1',
    documentId: 'doc-osprey',
    filename: 'project-osprey-brief.md',
    section: 'Project Osprey brief > Budget',
    text: 'Project Osprey has a budget of 300,000 EUR and is owned by Tiago Alves.',
  });
  const chunks = [overview, osprey, budget, ownership];

  /** The section of the source that the marker right after `phrase` points at. */
  function citedSection(answer: ReturnType<typeof composeExtractiveAnswer>, phrase: string) {
    const after = answer.text.slice(answer.text.indexOf(phrase));
    const marker = /\[(\d+)\]/.exec(after)?.[1];
    return answer.sources[Number(marker) - 1]?.section;
  }

  it('answers each part with the sentence that states it, citing its own section', () => {
    const answer = composeExtractiveAnswer({
      question: 'What is the total budget for Project Heron and who owns it?',
      retrieval: retrieval(chunks),
    });
    expect(answer.text).toContain('1.2 million EUR');
    expect(answer.text).toContain('Maria Keller');
    expect(citedSection(answer, '1.2 million EUR')).toBe('Project Heron brief > Budget');
    expect(citedSection(answer, 'Maria Keller')).toBe('Project Heron brief > Governance');
    // The budget comes first, as asked; no other project's facts, no labels or list marks.
    expect(answer.text.indexOf('1.2 million')).toBeLessThan(answer.text.indexOf('Maria Keller'));
    expect(answer.text).not.toContain('Osprey');
    expect(answer.text).not.toMatch(/^- |\n- |From the documents|doc-heron|h2/);
    expect(answer.text).toBe(
      'The total budget for Project Heron is 1.2 million EUR, approved by the board in January 2026 [1]. Project Heron is owned by Maria Keller, head of Operations [2].',
    );
  });

  it('answers sub-questions separated by question marks and semicolons, in order', () => {
    for (const question of [
      'Who owns Project Heron? When does it run?',
      'Who owns Project Heron; when does the project run',
    ]) {
      const answer = composeExtractiveAnswer({ question, retrieval: retrieval(chunks) });
      expect(citedSection(answer, 'Maria Keller')).toBe('Project Heron brief > Governance');
      expect(citedSection(answer, 'May to September 2026')).toBe('Project Heron brief > Overview');
      expect(answer.text.indexOf('Maria Keller')).toBeLessThan(answer.text.indexOf('May to'));
    }
  });

  it('says plainly which part the documents do not answer', () => {
    const answer = composeExtractiveAnswer({
      question: 'What is the total budget for Project Heron, and what is the capital of France?',
      retrieval: retrieval(chunks),
    });
    expect(citedSection(answer, '1.2 million EUR')).toBe('Project Heron brief > Budget');
    expect(answer.text).toMatch(
      /I found nothing in the documents that answers “What is the capital of France\?”$/,
    );
  });

  it('quotes one sentence once when it answers two parts', () => {
    const answer = composeExtractiveAnswer({
      question: 'What is the budget of Project Osprey and who owns Project Osprey?',
      retrieval: retrieval(chunks),
    });
    expect(answer.text).toBe(
      'Project Osprey has a budget of 300,000 EUR and is owned by Tiago Alves [1].',
    );
  });

  it('bounds the answer: at most two sentences per part and four parts', () => {
    const answer = composeExtractiveAnswer({
      question:
        'Who owns Project Heron? What is its budget? When does it run? What does it replace? Who approved the budget?',
      retrieval: retrieval(chunks),
    });
    const sentences = answer.text.match(/\[\d+\]/g) ?? [];
    expect(sentences.length).toBeLessThanOrEqual(4);
    expect(answer.text.length).toBeLessThanOrEqual(1600);
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
